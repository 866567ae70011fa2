package ocr

import (
	"context"
	"image"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/sysload"
)

func readTSV(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// terminal.tsv is hand-written Tesseract output: two lines of a terminal, a slider read as
// dashes, a label with punctuation around a word, a word with no text, and a repeat.
func TestParseTSV(t *testing.T) {
	res := parseTSV(readTSV(t, "terminal.tsv"), 1)
	wantText := "alpha beta\nrun done.\nRun — (Done)\ndone"
	if res.Text != wantText || res.LineCount != 4 || res.WordCount != 7 {
		t.Fatalf("text %q, %d lines, %d words; want %q, 4, 7", res.Text, res.LineCount, res.WordCount, wantText)
	}
	if len(res.Lines) != 4 || len(res.Words) != 7 {
		t.Fatalf("%d lines, %d words", len(res.Lines), len(res.Words))
	}
	want := []Word{
		{"alpha", image.Rect(20, 20, 120, 48), 96, 0},
		{"beta", image.Rect(141, 21, 222, 48), 92, 0},
		{"run", image.Rect(20, 61, 81, 88), 88, 1},
		{"done.", image.Rect(101, 60, 184, 88), 95, 1},
		{"Run", image.Rect(600, 301, 690, 330), 94, 2},
		{"(Done)", image.Rect(740, 300, 810, 330), 100, 2},
		{"done", image.Rect(20, 299, 140, 329), 90, 3},
	}
	for i, w := range want {
		if res.Words[i] != w {
			t.Errorf("word %d = %+v, want %+v", i, res.Words[i], w)
		}
	}
	// The line's box covers its punctuation too; its text keeps it.
	if l := res.Lines[2]; l.Text != "Run — (Done)" || l.Box != image.Rect(600, 300, 810, 330) {
		t.Errorf("line 2 = %+v", l)
	}
}

// TestParseTSVUpscaled: boxes read on a 2x image are mapped back, widened to whole pixels.
func TestParseTSVUpscaled(t *testing.T) {
	res := parseTSV(readTSV(t, "terminal.tsv"), 2)
	if w := res.Words[1]; w.Box != image.Rect(70, 10, 111, 24) {
		t.Errorf("beta at %v, want (70,10)-(111,24)", w.Box)
	}
	if l := res.Lines[0]; l.Box != image.Rect(10, 10, 111, 24) {
		t.Errorf("line 0 at %v", l.Box)
	}
}

func TestParseTSVEmpty(t *testing.T) {
	for _, in := range []string{"", "level\tpage_num\n", "garbage\nmore\tgarbage"} {
		if res := parseTSV(in, 1); res.Text != "" || res.LineCount != 0 || len(res.Words) != 0 {
			t.Errorf("parseTSV(%q) = %+v", in, res)
		}
	}
}

// TestParseTSVFactory: on a real run (gtk3-widget-factory upscaled 2x, --psm 11 tsv), the word
// boxes map back into the 1275x725 image, each word is in its line, and phrases are found where
// the labels are.
func TestParseTSVFactory(t *testing.T) {
	res := parseTSV(readTSV(t, "factory.tsv"), 2)
	if res.WordCount < 100 || res.LineCount < 50 {
		t.Fatalf("%d words, %d lines", res.WordCount, res.LineCount)
	}
	bounds := image.Rect(0, 0, 1275, 725)
	for _, w := range res.Words {
		if !w.Box.In(bounds) || w.Box.Empty() || !strings.Contains(res.Lines[w.Line].Text, w.Text) {
			t.Errorf("word %+v (line %q)", w, res.Lines[w.Line].Text)
		}
	}
	if m := res.Find("comboboxentry"); len(m) != 1 || !m[0].Box.In(image.Rect(10, 55, 365, 265)) {
		t.Errorf("comboboxentry found %d times: %+v", len(m), m)
	}
	if m := res.Find("click icon to change mode"); len(m) != 1 || m[0].Box.Dx() < 100 {
		t.Errorf("the placeholder phrase: %+v", m)
	}
}

func TestFind(t *testing.T) {
	res := parseTSV(readTSV(t, "terminal.tsv"), 1)
	boxes := func(ms []Match) []image.Rectangle {
		var out []image.Rectangle
		for _, m := range ms {
			out = append(out, m.Box)
		}
		return out
	}
	tests := []struct {
		phrase string
		want   []image.Rectangle
	}{
		{"alpha", []image.Rectangle{image.Rect(20, 20, 120, 48)}},
		{"ALPHA beta", []image.Rectangle{image.Rect(20, 20, 222, 48)}},
		// Reading order: the line at y 60, then the row at y 300 left to right.
		{"done", []image.Rectangle{image.Rect(101, 60, 184, 88), image.Rect(20, 299, 140, 329), image.Rect(740, 300, 810, 330)}},
		{"done.", []image.Rectangle{image.Rect(101, 60, 184, 88), image.Rect(20, 299, 140, 329), image.Rect(740, 300, 810, 330)}},
		{"run  done", []image.Rectangle{image.Rect(20, 60, 184, 88), image.Rect(600, 300, 810, 330)}},
		{"beta run", nil}, // not on one line
		{"don", nil},      // whole words only
		{"alpha beta gamma", nil},
		{" - ", nil}, // nothing left to match
	}
	for _, tt := range tests {
		if got := boxes(res.Find(tt.phrase)); !slices.Equal(got, tt.want) {
			t.Errorf("Find(%q) = %v, want %v", tt.phrase, got, tt.want)
		}
	}
	if m := res.Find("run done"); m[0].Text != "run done." || m[0].Confidence != 88 || m[1].Text != "Run (Done)" {
		t.Errorf("matches %+v", m)
	}
}

func TestClosest(t *testing.T) {
	res := parseTSV(readTSV(t, "terminal.tsv"), 1)
	got := res.Closest("alpah", 2)
	if len(got) != 2 || got[0].Text != "alpha" || got[0].Distance != 2 {
		t.Errorf("Closest(alpah) = %+v", got)
	}
	if got := res.Closest("run dome", 1); len(got) != 1 || got[0].Text != "run done." || got[0].Distance != 1 {
		t.Errorf("Closest(run dome) = %+v", got)
	}
	if got := res.Closest("a b c d e f g h", 3); len(got) != 0 {
		t.Errorf("a phrase longer than any line: %+v", got)
	}
}

func TestFold(t *testing.T) {
	for in, want := range map[string]string{"Save:": "save", "(Done)": "done", "50%": "50", "e-mail": "e-mail", "——": "", "Ünïcode.": "ünïcode"} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"save", "save", 0}, {"save", "5ave", 1}, {"kitten", "sitting", 3}, {"", "abc", 3}, {"héllo", "hello", 1}} {
		if d := editDistance(tt.a, tt.b); d != tt.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, d, tt.d)
		}
	}
}

// TestRecognizeWordBoxes: Recognize's boxes are in the given image's pixels (the upscale mapped
// back) and sit on the glyphs: the tabs' labels, cropped from the factory.
func TestRecognizeWordBoxes(t *testing.T) {
	needTesseract(t)
	ctx, cancel := context.WithTimeout(context.Background(), sysload.Scale(30*time.Second)) // tesseract shares the processors with the rest of make test
	defer cancel()
	img := crop(factory(t), image.Rect(10, 580, 335, 615))
	res, err := Recognize(ctx, img, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Upscaled {
		t.Error("a small image was not upscaled")
	}
	pages := res.Find("page")
	if len(pages) != 3 {
		t.Fatalf("found %d 'page' labels in %q", len(pages), res.Text)
	}
	for i, m := range pages {
		if !m.Box.In(img.Bounds()) || m.Box.Dy() < 6 || m.Box.Dy() > 20 || m.Box.Dx() < 15 || m.Box.Dx() > 60 {
			t.Errorf("page %d at %v in a %v image", i, m.Box, img.Bounds())
		}
		if i > 0 && m.Box.Min.X <= pages[i-1].Box.Max.X {
			t.Errorf("tabs out of reading order: %v after %v", m.Box, pages[i-1].Box)
		}
	}
}

func TestStrips(t *testing.T) {
	small := image.Rect(0, 0, 200, 100)
	if s := strips(small, 0); len(s) != 1 || s[0].r != small {
		t.Errorf("a small image was split: %+v", s)
	}
	big := image.Rect(10, 20, 2570, 1620)
	s := strips(big, 0)
	if len(s) != 2 || s[0].r.Min != big.Min || s[1].r.Max != big.Max || s[0].own1 != s[1].own0 || s[0].own0 != 20 || s[1].own1 != 1620 {
		t.Fatalf("strips %+v", s)
	}
	if s[0].r.Max.Y-s[0].own1 != stripOverlap || s[1].own0-s[1].r.Min.Y != stripOverlap {
		t.Errorf("overlap: %+v", s)
	}
	if s := strips(big, -1); len(s) != 1 {
		t.Errorf("split though told not to: %+v", s)
	}
}

// TestStripsReadAsWhole: the factory upscaled (3.7 Mpx) is read in two strips; it reads the
// same words as one run, none twice at the cut, in about half the time on two cores.
func TestStripsReadAsWhole(t *testing.T) {
	needTesseract(t)
	img := factory(t)
	read := func(limit int) (Result, time.Duration) {
		ctx, cancel := context.WithTimeout(context.Background(), sysload.Scale(60*time.Second))
		defer cancel()
		start := time.Now()
		res, err := Recognize(ctx, img, Options{StripMinPixels: limit})
		if err != nil {
			t.Fatal(err)
		}
		return res, time.Since(start)
	}
	whole, tw := read(-1)
	split, ts := read(0)
	t.Logf("whole %v (%d words), two strips %v (%d words)", tw.Round(time.Millisecond), whole.WordCount, ts.Round(time.Millisecond), split.WordCount)
	count := func(r Result) map[string]int {
		m := map[string]int{}
		for _, w := range r.Words {
			if w.Confidence >= 80 {
				m[Fold(w.Text)]++
			}
		}
		return m
	}
	cw, cs := count(whole), count(split)
	same := 0
	for w, n := range cw {
		same += min(n, cs[w])
	}
	total := 0
	for _, n := range cw {
		total += n
	}
	if float64(same) < 0.95*float64(total) {
		t.Errorf("strips read %d of the %d confident words one run read", same, total)
	}
	for w, n := range cs {
		if n > cw[w]+1 {
			t.Errorf("%q read %d times in strips, %d whole: a word at the cut counted twice", w, n, cw[w])
		}
	}
}
