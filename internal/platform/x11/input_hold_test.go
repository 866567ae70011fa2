//go:build linux

package x11_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/x11"
)

// TestHold covers the press-and-hold primitives: a held key outlives its call and modifies later
// gestures, held buttons too, until released; scrolling and pointer moves.
func TestHold(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	_, b, rec := inputWindow(t, c, app, "hold", 300, 200)
	in := c.Input()
	ctx := ctxT(t)

	if err := in.Press(ctx, "Control_L"); err != nil {
		t.Fatal(err)
	}
	held, err := in.Held(ctx)
	if err != nil || !slices.Contains(held, "Control_L") {
		t.Fatalf("after Press: held %v, %v", held, err)
	}
	// Control's own press reports the state before it (no Control) and may reach the recorder
	// after Press returns (it did on a loaded machine): it is waited for before the reset.
	rec.waitFor(t, "the Control press", func(evs []xgb.Event) bool {
		return slices.ContainsFunc(evs, func(e xgb.Event) bool { _, ok := e.(xproto.KeyPressEvent); return ok })
	})
	rec.reset()
	if err := in.Chord(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	evs := rec.waitFor(t, "the a release", func(evs []xgb.Event) bool {
		return slices.ContainsFunc(evs, func(e xgb.Event) bool { _, ok := e.(xproto.KeyReleaseEvent); return ok })
	})
	for _, e := range evs {
		if kp, ok := e.(xproto.KeyPressEvent); ok && kp.State&xproto.ModMaskControl == 0 {
			t.Errorf("a pressed without the held Control: state %#x", kp.State)
		}
	}
	if held, _ := in.Held(ctx); !slices.Contains(held, "Control_L") {
		t.Fatalf("a chord released the held Control: %v", held)
	}
	if err := in.Release(ctx, "Control_L"); err != nil {
		t.Fatal(err)
	}
	noneHeld(t, c)

	p := platform.Point{X: b.X + 30, Y: b.Y + 40}
	rec.reset()
	if err := in.ButtonDown(ctx, p, platform.ButtonLeft); err != nil {
		t.Fatal(err)
	}
	if held, _ := in.Held(ctx); !slices.Contains(held, "button1") {
		t.Fatalf("after ButtonDown: %v", held)
	}
	q := platform.Point{X: p.X + 50, Y: p.Y + 10}
	if err := in.MoveTo(ctx, q); err != nil {
		t.Fatal(err)
	}
	if got, err := in.Pointer(ctx); err != nil || got != q {
		t.Fatalf("Pointer = %v, %v; want %v", got, err, q)
	}
	if err := in.ButtonUp(ctx, q, platform.ButtonLeft); err != nil {
		t.Fatal(err)
	}
	evs = rec.waitFor(t, "the release", func(evs []xgb.Event) bool { _, r := buttonEvents(evs); return len(r) == 1 })
	presses, releases := buttonEvents(evs)
	if len(presses) != 1 || int(presses[0].RootX) != p.X || int(releases[0].RootX) != q.X {
		t.Errorf("presses %+v releases %+v", presses, releases)
	}
	noneHeld(t, c)

	rec.reset()
	if err := in.Scroll(ctx, 1, -2); err != nil {
		t.Fatal(err)
	}
	evs = rec.waitFor(t, "three wheel clicks", func(evs []xgb.Event) bool { _, r := buttonEvents(evs); return len(r) == 3 })
	presses, _ = buttonEvents(evs)
	var got []xproto.Button
	for _, e := range presses {
		got = append(got, e.Detail)
	}
	if !slices.Equal(got, []xproto.Button{4, 4, 7}) {
		t.Errorf("wheel buttons %v, want up, up, right", got)
	}
	noneHeld(t, c)

	for _, err := range []error{
		in.Press(ctx, "NoSuchKey"), in.Press(ctx, "EuroSign"), in.MoveTo(ctx, platform.Point{X: -1}),
		in.ButtonDown(ctx, platform.Point{X: 5, Y: 5}, 0), in.Scroll(ctx, 0, 1000),
	} {
		if !errors.Is(err, platform.ErrUnsupported) {
			t.Errorf("got %v, want ErrUnsupported", err)
		}
	}
	if !x11.KnownKey("Page_Down") || !x11.KnownKey("XF86AudioPlay") || x11.KnownKey("NoSuchKey") {
		t.Error("KnownKey")
	}
	noneHeld(t, c)
}

// TestHeldKeyDoesNotRepeat: on mcec's private desktop a key held past the autorepeat delay
// (660 ms by default) reaches the application as one press, as a loaded machine that
// deschedules the server between a press and its release would otherwise repeat it.
func TestHeldKeyDoesNotRepeat(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	_, _, rec := inputWindow(t, c, app, "no repeat", 300, 200)
	in := c.Input()
	ctx := ctxT(t)
	rec.reset()
	if err := in.Press(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // the hold itself is what is tested: past the repeat delay
	if err := in.Release(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	evs := rec.waitFor(t, "the a release", func(evs []xgb.Event) bool {
		return slices.ContainsFunc(evs, func(e xgb.Event) bool { _, ok := e.(xproto.KeyReleaseEvent); return ok })
	})
	presses := 0
	for _, e := range evs {
		if _, ok := e.(xproto.KeyPressEvent); ok {
			presses++
		}
	}
	if presses != 1 {
		t.Errorf("a key held 1 s pressed %d times: %s", presses, describeEvents(evs))
	}
}
