//go:build linux

package x11_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/x11"
)

// bigText is n bytes of mixed text (ASCII with some multi-byte characters), valid UTF-8.
func bigText(n int) string {
	const unit = "The quick brown fox jumps over the lazy dog — Grüße, ж, 😀.\n"
	s := strings.Repeat(unit, n/len(unit)+1)
	for len(s) > n {
		s = s[:len(s)-1]
	}
	return strings.ToValidUTF8(s, "")
}

// clipboardOwner reads who owns CLIPBOARD, on the test app's connection.
func clipboardOwner(t testing.TB, app *xapp) xproto.Window {
	t.Helper()
	r, err := xproto.GetSelectionOwner(app.c, app.atom(t, "CLIPBOARD")).Reply()
	if err != nil {
		t.Fatal(err)
	}
	return r.Owner
}

// TestClipboardRoundTrip sets the clipboard on one connection and reads it from the same one
// (from memory) and from another (through the X server, INCR for large text).
func TestClipboardRoundTrip(t *testing.T) {
	owner, reader := dial(t), dial(t)
	tests := []struct {
		name, text string
	}{
		{"ascii", "hello, clipboard"},
		{"latin1", "Grüße à la carte"},
		{"unicode", "ж€😀 漢字"},
		{"empty", ""},
		{"newlines", "a\nb\r\nc\t"},
		{"1 MiB", bigText(1 << 20)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := owner.ClipboardSet(ctxT(t), tt.text); err != nil {
				t.Fatalf("ClipboardSet: %v", err)
			}
			got, err := owner.ClipboardGet(ctxT(t))
			if err != nil || got != tt.text {
				t.Fatalf("own ClipboardGet = %d bytes, %v; want %d bytes", len(got), err, len(tt.text))
			}
			start := time.Now()
			got, err = reader.ClipboardGet(ctxT(t))
			if err != nil {
				t.Fatalf("ClipboardGet: %v", err)
			}
			if got != tt.text {
				t.Fatalf("ClipboardGet = %d bytes %.40q, want %d bytes %.40q", len(got), got, len(tt.text), tt.text)
			}
			t.Logf("read %d bytes through the server in %v", len(got), time.Since(start))
		})
	}
}

// TestClipboardGTK has a GTK app read what we set and we read what it sets.
func TestClipboardGTK(t *testing.T) {
	c := dial(t)
	g := startGTKApp(t)
	tests := []struct {
		name, text string
	}{
		{"ascii", "from mcec"},
		{"unicode", "ж€😀 — «quotes»"},
		{"1 MiB", bigText(1 << 20)},
	}
	for _, tt := range tests {
		t.Run("gtk reads "+tt.name, func(t *testing.T) {
			if err := c.ClipboardSet(ctxT(t), tt.text); err != nil {
				t.Fatal(err)
			}
			got := g.clipboard(t)
			if got == nil || *got != tt.text {
				t.Fatalf("GTK read %v, want %d bytes", describe(got), len(tt.text))
			}
		})
		t.Run("we read gtk's "+tt.name, func(t *testing.T) {
			text := tt.text + " (gtk)"
			g.setClipboard(t, text)
			got, err := c.ClipboardGet(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			if got != text {
				t.Fatalf("ClipboardGet = %d bytes %.40q, want %d bytes", len(got), got, len(text))
			}
		})
	}
}

func describe(s *string) string {
	if s == nil {
		return "no text"
	}
	if len(*s) > 40 {
		return (*s)[:40] + "..."
	}
	return *s
}

// TestClipboardOwnership: another client taking the selection ends ours; closing the
// connection drops it.
func TestClipboardOwnership(t *testing.T) {
	app := newXApp(t)
	c := dial(t)
	other, err := x11.Dial(ctxT(t), "")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := c.ClipboardSet(ctxT(t), "mine"); err != nil {
		t.Fatal(err)
	}
	if err := other.ClipboardSet(ctxT(t), "theirs"); err != nil {
		t.Fatal(err)
	}
	// c lost it: it reads the new owner's text, not its memory.
	if got, err := c.ClipboardGet(ctxT(t)); err != nil || got != "theirs" {
		t.Fatalf("after losing the selection: %q, %v", got, err)
	}
	other.Close()
	// The server drops a closed client's selections when it handles the disconnect, which a
	// loaded server does a moment later.
	deadline := time.Now().Add(5 * time.Second)
	for o := clipboardOwner(t, app); o != 0; o = clipboardOwner(t, app) {
		if time.Now().After(deadline) {
			t.Fatalf("CLIPBOARD still owned by 0x%x 5 s after Close", o)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got, err := c.ClipboardGet(ctxT(t)); err != nil || got != "" {
		t.Fatalf("empty clipboard: %q, %v", got, err)
	}
	if _, err := other.ClipboardGet(ctxT(t)); !errors.Is(err, platform.ErrDisplayUnavailable) {
		t.Errorf("ClipboardGet on a closed connection: %v", err)
	}
	if err := other.ClipboardSet(ctxT(t), "x"); !errors.Is(err, platform.ErrDisplayUnavailable) {
		t.Errorf("ClipboardSet on a closed connection: %v", err)
	}
}

// TestClipboardTargets asks our owner for TARGETS and STRING the way other clients do.
func TestClipboardTargets(t *testing.T) {
	app := newXApp(t)
	c := dial(t)
	if err := c.ClipboardSet(ctxT(t), "Grüße"); err != nil {
		t.Fatal(err)
	}
	targets := convert(t, app, "TARGETS")
	var names []string
	for i := 0; i+4 <= len(targets.Value); i += 4 {
		a := xproto.Atom(uint32(targets.Value[i]) | uint32(targets.Value[i+1])<<8 | uint32(targets.Value[i+2])<<16 | uint32(targets.Value[i+3])<<24)
		r, err := xproto.GetAtomName(app.c, a).Reply()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, r.Name)
	}
	for _, want := range []string{"TARGETS", "UTF8_STRING", "STRING", "TEXT", "TIMESTAMP"} {
		if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+want+" ") {
			t.Errorf("TARGETS %v lack %s", names, want)
		}
	}
	if s := convert(t, app, "STRING"); string(s.Value) != "Gr\xfc\xdfe" {
		t.Errorf("STRING = %q, want Latin-1", s.Value)
	}
	if err := c.ClipboardSet(ctxT(t), "ж"); err != nil {
		t.Fatal(err)
	}
	if s := convert(t, app, "STRING"); s != nil {
		t.Errorf("STRING of non-Latin-1 text = %q, want a refusal", s.Value)
	}
	// Text larger than one request goes INCR (the transfer is then abandoned: the owner
	// drops it after a while).
	if err := c.ClipboardSet(ctxT(t), bigText(1<<20)); err != nil {
		t.Fatal(err)
	}
	if s := convert(t, app, "UTF8_STRING"); s == nil || s.Type != app.atom(t, "INCR") {
		t.Errorf("1 MiB UTF8_STRING reply %+v, want type INCR", s)
	}
}

// TestClipboardOwnerNotAnswering: an owner that never answers costs ownerReplyLimit.
func TestClipboardOwnerNotAnswering(t *testing.T) {
	app := newXApp(t)
	c := dial(t)
	mute := app.window(t, winOpts{x: -10, y: -10, w: 1, h: 1, bg: u32(0)})
	if err := xproto.SetSelectionOwnerChecked(app.c, mute, app.atom(t, "CLIPBOARD"), xproto.TimeCurrentTime).Check(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := c.ClipboardGet(ctxT(t)); !errors.Is(err, platform.ErrAppNotResponding) {
		t.Errorf("ClipboardGet = %v, want ErrAppNotResponding", err)
	}
	t.Logf("gave up after %v", time.Since(start))
}

// convert asks the clipboard owner for target on the test app's connection (nil: refused).
func convert(t *testing.T, app *xapp, target string) *xproto.GetPropertyReply {
	t.Helper()
	w := app.window(t, winOpts{x: -10, y: -10, w: 1, h: 1, bg: u32(0)})
	prop := app.atom(t, "MCEC_TEST_SEL")
	rec := &recorder{changed: make(chan struct{}, 1)}
	app.mu.Lock()
	app.selections[w] = rec
	app.mu.Unlock()
	xproto.ConvertSelection(app.c, w, app.atom(t, "CLIPBOARD"), app.atom(t, target), prop, xproto.TimeCurrentTime)
	evs := rec.waitFor(t, "SelectionNotify", func(evs []xgb.Event) bool { return len(evs) > 0 })
	n := evs[0].(xproto.SelectionNotifyEvent)
	if n.Property == xproto.AtomNone {
		return nil
	}
	r, err := xproto.GetProperty(app.c, true, w, prop, xproto.GetPropertyTypeAny, 0, 1<<20).Reply()
	if err != nil {
		t.Fatal(err)
	}
	return r
}
