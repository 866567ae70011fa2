//go:build linux

package x11_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/x11"
)

// noneHeld fails the test when any key or button is still down.
func noneHeld(t testing.TB, c *x11.Conn) {
	t.Helper()
	held, err := c.Input().Held(ctxT(t))
	if err != nil {
		t.Fatalf("Held: %v", err)
	}
	if len(held) > 0 {
		t.Errorf("still held: %v", held)
	}
}

// keyboardMapping reads the core keyboard mapping on the test app's own connection.
func keyboardMapping(t testing.TB, a *xapp) []xproto.Keysym {
	t.Helper()
	s := xproto.Setup(a.c)
	r, err := xproto.GetKeyboardMapping(a.c, s.MinKeycode, byte(int(s.MaxKeycode)-int(s.MinKeycode)+1)).Reply()
	if err != nil {
		t.Fatal(err)
	}
	return r.Keysyms
}

// keycodeOf is the first keycode whose plain level is sym.
func keycodeOf(t testing.TB, a *xapp, sym xproto.Keysym) xproto.Keycode {
	t.Helper()
	s := xproto.Setup(a.c)
	r, err := xproto.GetKeyboardMapping(a.c, s.MinKeycode, byte(int(s.MaxKeycode)-int(s.MinKeycode)+1)).Reply()
	if err != nil {
		t.Fatal(err)
	}
	per := int(r.KeysymsPerKeycode)
	for i := 0; i*per < len(r.Keysyms); i++ {
		if r.Keysyms[i*per] == sym {
			return xproto.Keycode(int(s.MinKeycode) + i)
		}
	}
	t.Fatalf("keysym %#x not in the keymap", sym)
	return 0
}

// inputWindow creates a managed window that records input, raises it and returns it.
func inputWindow(t testing.TB, c *x11.Conn, app *xapp, title string, w, h int) (xproto.Window, platform.Rect, *recorder) {
	t.Helper()
	win := app.window(t, winOpts{x: 100, y: 100, w: w, h: h, managed: true, bg: u32(0x30c060), title: title, record: true})
	info := waitManaged(t, c, uint32(win))
	if err := c.Raise(ctxT(t), uint32(win)); err != nil {
		t.Fatalf("Raise: %v", err)
	}
	return win, info.Bounds, app.recorder(win)
}

func buttonEvents(evs []xgb.Event) (presses []xproto.ButtonPressEvent, releases []xproto.ButtonReleaseEvent) {
	for _, ev := range evs {
		switch e := ev.(type) {
		case xproto.ButtonPressEvent:
			presses = append(presses, e)
		case xproto.ButtonReleaseEvent:
			releases = append(releases, e)
		}
	}
	return presses, releases
}

func TestClick(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	_, b, rec := inputWindow(t, c, app, "click", 300, 200)
	tests := []struct {
		name   string
		dx, dy int
		button platform.Button
		count  int
	}{
		{"left", 10, 20, platform.ButtonLeft, 1},
		{"right", 150, 100, platform.ButtonRight, 1},
		{"middle", 299, 199, platform.ButtonMiddle, 1},
		{"double", 40, 40, platform.ButtonLeft, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec.reset()
			p := platform.Point{X: b.X + tt.dx, Y: b.Y + tt.dy}
			if err := c.Input().Click(ctxT(t), p, tt.button, tt.count); err != nil {
				t.Fatalf("Click: %v", err)
			}
			evs := rec.waitFor(t, "all releases", func(evs []xgb.Event) bool {
				_, r := buttonEvents(evs)
				return len(r) >= tt.count
			})
			presses, releases := buttonEvents(evs)
			if len(presses) != tt.count || len(releases) != tt.count {
				t.Fatalf("%d presses, %d releases: %s", len(presses), len(releases), describeEvents(evs))
			}
			for _, e := range presses {
				if e.Detail != xproto.Button(tt.button) || int(e.RootX) != p.X || int(e.RootY) != p.Y ||
					int(e.EventX) != tt.dx || int(e.EventY) != tt.dy {
					t.Errorf("press %+v, want button %d at %v (window %d,%d)", e, tt.button, p, tt.dx, tt.dy)
				}
			}
			if tt.count == 2 {
				// GTK's default double-click time is 400 ms, openbox's here 500 ms.
				if gap := releases[1].Time - presses[0].Time; gap > 100 {
					t.Errorf("double click spans %d ms", gap)
				}
			}
			noneHeld(t, c)
		})
	}

	t.Run("errors", func(t *testing.T) {
		for _, tc := range []struct {
			p      platform.Point
			button platform.Button
			count  int
		}{
			{platform.Point{X: -1, Y: 5}, 1, 1},
			{platform.Point{X: 5, Y: 100000}, 1, 1},
			{platform.Point{X: 5, Y: 5}, 0, 1},
			{platform.Point{X: 5, Y: 5}, 1, 0},
		} {
			if err := c.Input().Click(ctxT(t), tc.p, tc.button, tc.count); !errors.Is(err, platform.ErrUnsupported) {
				t.Errorf("Click(%v, %d, %d) = %v, want ErrUnsupported", tc.p, tc.button, tc.count, err)
			}
		}
	})
}

// TestClickCovered clicks a point of a window covered by another: without raising, the cover
// gets the click; after Raise, the window does.
func TestClickCovered(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	under, ub, urec := inputWindow(t, c, app, "under", 300, 200)
	cover, _, crec := inputWindow(t, c, app, "cover", 200, 150)
	// Put the cover over the middle of the window below.
	if err := c.WindowOp(ctxT(t), uint32(cover), platform.WindowOp{Kind: platform.OpMove, X: ub.X + 50, Y: ub.Y + 25}); err != nil {
		t.Fatal(err)
	}
	p := platform.Point{X: ub.X + 150, Y: ub.Y + 100}

	if err := c.Input().Click(ctxT(t), p, platform.ButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	crec.waitFor(t, "the cover gets the click", func(evs []xgb.Event) bool { p, _ := buttonEvents(evs); return len(p) == 1 })

	crec.reset()
	urec.reset()
	start := time.Now()
	if err := c.Raise(ctxT(t), uint32(under)); err != nil {
		t.Fatalf("Raise: %v", err)
	}
	t.Logf("Raise of a covered window: %v", time.Since(start))
	if err := c.Input().Click(ctxT(t), p, platform.ButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	evs := urec.waitFor(t, "the raised window gets the click", func(evs []xgb.Event) bool { _, r := buttonEvents(evs); return len(r) == 1 })
	if pr, _ := buttonEvents(evs); len(pr) != 1 || int(pr[0].EventX) != 150 || int(pr[0].EventY) != 100 {
		t.Errorf("press %+v", pr)
	}
	if pr, _ := buttonEvents(crec.snapshot()); len(pr) != 0 {
		t.Errorf("the cover got %d presses after the raise", len(pr))
	}
	noneHeld(t, c)
}

// TestClickGTK clicks a GTK toggle button.
func TestClickGTK(t *testing.T) {
	c := dial(t)
	g := startRaisedGTKApp(t, c)
	for _, want := range []bool{true, false} {
		if err := c.Input().Click(ctxT(t), g.toggle, platform.ButtonLeft, 1); err != nil {
			t.Fatal(err)
		}
		g.next(t, "toggled", func(v json.RawMessage) bool { var b bool; return json.Unmarshal(v, &b) == nil && b == want })
	}
	noneHeld(t, c)
}

func TestDrag(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	_, b, rec := inputWindow(t, c, app, "drag", 500, 300)
	at := func(x, y int) platform.Point { return platform.Point{X: b.X + x, Y: b.Y + y} }
	tests := []struct {
		name string
		path []platform.Point
	}{
		{"line", []platform.Point{at(20, 20), at(420, 60)}},
		{"polyline", []platform.Point{at(20, 20), at(420, 20), at(420, 260), at(30, 250)}},
		{"in place", []platform.Point{at(50, 50)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec.reset()
			length := 0
			for i := 1; i < len(tt.path); i++ {
				length += max(abs(tt.path[i].X-tt.path[i-1].X), abs(tt.path[i].Y-tt.path[i-1].Y))
			}
			start := time.Now()
			if err := c.Input().Drag(ctxT(t), tt.path, platform.ButtonLeft); err != nil {
				t.Fatalf("Drag: %v", err)
			}
			t.Logf("drag over %d px: %v", length, time.Since(start))
			evs := rec.waitFor(t, "the release", func(evs []xgb.Event) bool { _, r := buttonEvents(evs); return len(r) == 1 })
			presses, releases := buttonEvents(evs)
			first, last := tt.path[0], tt.path[len(tt.path)-1]
			if len(presses) != 1 || int(presses[0].RootX) != first.X || int(presses[0].RootY) != first.Y {
				t.Fatalf("presses %+v, want one at %v", presses, first)
			}
			if int(releases[0].RootX) != last.X || int(releases[0].RootY) != last.Y {
				t.Errorf("release at %d,%d, want %v", releases[0].RootX, releases[0].RootY, last)
			}
			motions, pressed := 0, false
			for _, ev := range evs {
				switch e := ev.(type) {
				case xproto.ButtonPressEvent:
					pressed = true
				case xproto.ButtonReleaseEvent:
					pressed = false
				case xproto.MotionNotifyEvent:
					if pressed {
						motions++
						if e.State&xproto.ButtonMask1 == 0 {
							t.Errorf("motion at %d,%d without button 1 down", e.RootX, e.RootY)
						}
					}
				}
			}
			if want := length / 8; motions < want {
				t.Errorf("%d motion events while pressed, want >= %d", motions, want)
			}
			noneHeld(t, c)
		})
	}

	t.Run("cancelled midway", func(t *testing.T) {
		rec.reset()
		ctx, cancel := context.WithCancel(ctxT(t))
		defer cancel()
		motions := 0
		rec.mu.Lock()
		rec.onEvent = func(ev xgb.Event) {
			if e, ok := ev.(xproto.MotionNotifyEvent); ok && e.State&xproto.ButtonMask1 != 0 {
				if motions++; motions == 5 {
					cancel()
				}
			}
		}
		rec.mu.Unlock()
		defer func() { rec.mu.Lock(); rec.onEvent = nil; rec.mu.Unlock() }()
		err := c.Input().Drag(ctx, []platform.Point{at(20, 20), at(480, 280)}, platform.ButtonLeft)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Drag = %v, want context.Canceled", err)
		}
		rec.waitFor(t, "the release after cancel", func(evs []xgb.Event) bool { _, r := buttonEvents(evs); return len(r) == 1 })
		noneHeld(t, c)
	})
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// TestType types into a GTK entry and text view and compares what GTK got; characters missing
// from the keymap go through remapped keycodes, and the mapping is the same afterwards.
func TestType(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	g := startRaisedGTKApp(t, c)
	before := keyboardMapping(t, app)
	in := c.Input()
	tests := []struct {
		name, text string
		spares     int // 0: all
	}{
		{"ascii", "Hello, World! 0123456789 ~`!@#$%^&*()_+-=[]{}\\|;:'\",.<>/?", 0},
		{"latin1 and unicode", "é€ж", 0},
		{"emoji", "😀", 0},
		{"mixed", "Grüße, €5 и ещё 😀👍!", 0},
		{"more than the spare keycodes", "αβγδεζηθ ΑΒΓ", 2},
		{"replaces the selection", "short", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x11.SetSpareLimit(c, tt.spares)
			defer x11.SetSpareLimit(c, 0)
			// Ctrl+A selects the entry's text, which the typed text replaces.
			if err := in.Chord(ctxT(t), "Control_L", "a"); err != nil {
				t.Fatalf("Chord: %v", err)
			}
			start := time.Now()
			if err := in.Type(ctxT(t), tt.text); err != nil {
				t.Fatalf("Type: %v", err)
			}
			t.Logf("Type %d characters: %v", len([]rune(tt.text)), time.Since(start))
			g.waitText(t, "entry", tt.text)
			noneHeld(t, c)
		})
	}

	t.Run("text view", func(t *testing.T) {
		g.command(t, "focus view")
		g.next(t, "focused", nil)
		if err := in.Type(ctxT(t), "one\ttwo\r\nthree\nж"); err != nil {
			t.Fatal(err)
		}
		g.waitText(t, "view", "one\ttwo\nthree\nж")
		noneHeld(t, c)
	})

	if after := keyboardMapping(t, app); !slices.Equal(before, after) {
		t.Errorf("keyboard mapping not restored")
	}

	t.Run("errors", func(t *testing.T) {
		if err := in.Type(ctxT(t), "bell\a"); !errors.Is(err, platform.ErrUnsupported) {
			t.Errorf("Type with a control character = %v, want ErrUnsupported", err)
		}
		if err := in.Type(ctxT(t), ""); err != nil {
			t.Errorf("Type(\"\") = %v", err)
		}
	})
}

// TestTypeCancelled cancels a long Type midway: keys are released and the mapping restored.
func TestTypeCancelled(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	g := startRaisedGTKApp(t, c)
	before := keyboardMapping(t, app)
	ctx, cancel := context.WithCancel(ctxT(t))
	go func() {
		defer cancel()
		for m := range g.lines {
			if _, ok := m["entry"]; ok {
				return // the first characters arrived
			}
		}
	}()
	err := c.Input().Type(ctx, strings.Repeat("Ж😀abc", 2000))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Type = %v, want context.Canceled", err)
	}
	noneHeld(t, c)
	if after := keyboardMapping(t, app); !slices.Equal(before, after) {
		t.Errorf("keyboard mapping not restored")
	}
}

// TestChord checks order, modifier state and automatic Shift on a window that records keys.
func TestChord(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	_, _, rec := inputWindow(t, c, app, "keys", 200, 100)
	ctrl, shift := keycodeOf(t, app, 0xffe3), keycodeOf(t, app, 0xffe1)
	tkey, akey, f5 := keycodeOf(t, app, 't'), keycodeOf(t, app, 'a'), keycodeOf(t, app, 0xffc2)
	tests := []struct {
		name     string
		keys     []string
		presses  []xproto.Keycode
		lastMods uint16 // modifier state seen by the last press
	}{
		{"ctrl+shift+t", []string{"Control_L", "Shift_L", "t"}, []xproto.Keycode{ctrl, shift, tkey}, xproto.ModMaskControl | xproto.ModMaskShift},
		{"shift added for a capital", []string{"Control_L", "A"}, []xproto.Keycode{ctrl, shift, akey}, xproto.ModMaskControl | xproto.ModMaskShift},
		{"names in any case", []string{"control_l", "f5"}, []xproto.Keycode{ctrl, f5}, xproto.ModMaskControl},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec.reset()
			if err := c.Input().Chord(ctxT(t), tt.keys...); err != nil {
				t.Fatalf("Chord: %v", err)
			}
			evs := rec.waitFor(t, "all key releases", func(evs []xgb.Event) bool {
				n := 0
				for _, ev := range evs {
					if _, ok := ev.(xproto.KeyReleaseEvent); ok {
						n++
					}
				}
				return n == len(tt.presses)
			})
			// Presses as keycodes, releases as negative keycodes.
			var order, want []int
			var lastState uint16
			for _, ev := range evs {
				switch e := ev.(type) {
				case xproto.KeyPressEvent:
					order = append(order, int(e.Detail))
					lastState = e.State
				case xproto.KeyReleaseEvent:
					order = append(order, -int(e.Detail))
				}
			}
			for _, k := range tt.presses {
				want = append(want, int(k))
			}
			for i := len(tt.presses) - 1; i >= 0; i-- {
				want = append(want, -int(tt.presses[i]))
			}
			if !slices.Equal(order, want) {
				t.Errorf("key events %v, want %v (negative: release)", order, want)
			}
			if lastState&(xproto.ModMaskControl|xproto.ModMaskShift) != tt.lastMods {
				t.Errorf("last press state %#x, want modifiers %#x", lastState, tt.lastMods)
			}
			noneHeld(t, c)
		})
	}

	t.Run("key missing from the keymap", func(t *testing.T) {
		before := keyboardMapping(t, app)
		rec.reset()
		if err := c.Input().Chord(ctxT(t), "EuroSign"); err != nil {
			t.Fatal(err)
		}
		rec.waitFor(t, "the key", func(evs []xgb.Event) bool { return len(evs) == 2 })
		if after := keyboardMapping(t, app); !slices.Equal(before, after) {
			t.Errorf("keyboard mapping not restored")
		}
		noneHeld(t, c)
	})

	t.Run("unknown key", func(t *testing.T) {
		if err := c.Input().Chord(ctxT(t), "Control_L", "NoSuchKey"); !errors.Is(err, platform.ErrUnsupported) {
			t.Errorf("Chord = %v, want ErrUnsupported", err)
		}
		noneHeld(t, c)
	})
}

// TestChordGTK selects an entry's text with Ctrl+A and replaces it by typing.
func TestChordGTK(t *testing.T) {
	c := dial(t)
	g := startRaisedGTKApp(t, c)
	in := c.Input()
	if err := in.Type(ctxT(t), "first"); err != nil {
		t.Fatal(err)
	}
	g.waitText(t, "entry", "first")
	if err := in.Chord(ctxT(t), "Control_L", "a"); err != nil {
		t.Fatal(err)
	}
	if err := in.Type(ctxT(t), "second"); err != nil {
		t.Fatal(err)
	}
	g.waitText(t, "entry", "second")
	if err := in.Chord(ctxT(t), "BackSpace"); err != nil {
		t.Fatal(err)
	}
	g.waitText(t, "entry", "secon")
	noneHeld(t, c)
}

// TestGesturesConcurrent runs gestures from many goroutines: each is atomic, none leaves
// anything held.
func TestGesturesConcurrent(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	_, b, rec := inputWindow(t, c, app, "concurrent", 300, 200)
	done := make(chan error, 16)
	for i := range 16 {
		go func() {
			p := platform.Point{X: b.X + 10 + i*10, Y: b.Y + 50}
			switch i % 3 {
			case 0:
				done <- c.Input().Click(ctxT(t), p, platform.ButtonLeft, 1)
			case 1:
				done <- c.Input().Drag(ctxT(t), []platform.Point{p, {X: p.X, Y: p.Y + 100}}, platform.ButtonLeft)
			default:
				done <- c.Input().Chord(ctxT(t), "Shift_L", "x")
			}
		}()
	}
	for range 16 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	evs := rec.waitFor(t, "11 button releases", func(evs []xgb.Event) bool { _, r := buttonEvents(evs); return len(r) == 11 })
	// Atomic gestures: a press is always followed by its own release before the next press.
	down := false
	for _, ev := range evs {
		switch ev.(type) {
		case xproto.ButtonPressEvent:
			if down {
				t.Fatalf("two presses without a release: %s", describeEvents(evs))
			}
			down = true
		case xproto.ButtonReleaseEvent:
			down = false
		}
	}
	noneHeld(t, c)
}
