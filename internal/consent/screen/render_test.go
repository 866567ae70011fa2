package screen

import (
	"image"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"

	"github.com/mcec/mcec/internal/consent"
)

func TestLayout(t *testing.T) {
	now := time.Date(2025, 1, 2, 15, 4, 5, 0, time.Local)
	long := strings.Repeat("w", 120) + " " + strings.Repeat("reason words ", 14)
	for _, q := range []consent.Question{
		{ID: "c1", Commands: []string{"launch"}, Reason: "open the editor", Asked: now, Deadline: now.Add(2 * time.Minute)},
		{ID: "c2", Commands: []string{"launch", "keysym", "ctrl-a", "chars", "alt-f4", "window-op", "focus-window", "x"},
			Reason: long[:consent.MaxReason], Session: "sess-1\x1b[2J", Asked: now, Deadline: now.Add(2 * time.Minute)},
	} {
		l, err := lay(q)
		if err != nil {
			t.Fatal(err)
		}
		text, head, _ := faces()
		var all []string
		for _, ln := range l.lines {
			f := text
			if ln.head {
				f = head
			}
			if w := font.MeasureString(f, ln.text); w > fixed.I(width-2*margin) {
				t.Errorf("%s: line %q is %d px wide", q.ID, ln.text, w.Ceil())
			}
			if strings.ContainsRune(ln.text, '\x1b') {
				t.Errorf("%s: control character reached the dialog: %q", q.ID, ln.text)
			}
			all = append(all, ln.text)
		}
		joined := strings.Join(all, " ")
		for _, want := range []string{"launch", "Answer by " + now.Add(2*time.Minute).Format("15:04:05")} {
			if !strings.Contains(joined, want) {
				t.Errorf("%s: the dialog does not say %q:\n%s", q.ID, want, joined)
			}
		}
		rects, err := ButtonRects(l.size.Y)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range l.buttons {
			if !b.rect.In(image.Rectangle{Max: l.size}) || rects[b.answer] != b.rect {
				t.Errorf("%s: button %s at %v (ButtonRects %v) in %v", q.ID, b.label, b.rect, rects[b.answer], l.size)
			}
			c := b.rect.Min.Add(b.rect.Size().Div(2))
			if got, ok := l.hit(c); !ok || got.answer != b.answer {
				t.Errorf("%s: hit at %v = %v %v", q.ID, c, got.answer, ok)
			}
		}
		if _, ok := l.hit(image.Pt(1, 1)); ok {
			t.Errorf("%s: the margin is a button", q.ID)
		}
		img := l.draw(true)
		px := bgrx(img, 0, 1)
		if len(px) != width*4 || px[0] != colBackground.B || px[2] != colBackground.R || px[3] != 0 {
			t.Errorf("%s: bgrx first pixel %v", q.ID, px[:4])
		}
	}
}

func TestWrap(t *testing.T) {
	text, _, err := faces()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in    string
		lines int
	}{
		{"", 1},
		{"short", 1},
		{strings.Repeat("x", 400), 0}, // broken inside the word: several lines
		{"日本語のテキスト " + strings.Repeat("ab ", 100), 0},
	}
	for _, tt := range tests {
		got := wrap(text, tt.in, 200)
		if tt.lines > 0 && len(got) != tt.lines {
			t.Errorf("wrap(%q) = %d lines", tt.in, len(got))
		}
		if noSpace(strings.Join(got, "")) != noSpace(tt.in) {
			t.Errorf("wrap(%q) lost text: %q", tt.in, got)
		}
		for _, l := range got {
			if font.MeasureString(text, l) > fixed.I(200) && len([]rune(l)) > 1 {
				t.Errorf("line %q too wide", l)
			}
		}
	}
}

func noSpace(s string) string { return strings.Join(strings.Fields(s), "") }
