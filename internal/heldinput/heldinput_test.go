package heldinput

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/mcec/mcec/internal/headless"
)

// An XTEST client that presses Control and the left button and disconnects (as mcec killed
// outright does) leaves both down; Release lifts them and leaves a clean desktop.
func TestReleaseWhatADeadClientHeld(t *testing.T) {
	if miss := headless.MissingPrograms(); len(miss) > 0 {
		t.Skipf("no private desktop: %v", miss)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	d, err := headless.Start(ctx, headless.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Stop()

	if h, err := Release(ctx, d.Display()); err != nil || !h.Empty() {
		t.Fatalf("a fresh desktop: released %+v, %v", h, err)
	}
	dead, err := xgb.NewConnDisplay(d.Display())
	if err != nil {
		t.Fatal(err)
	}
	if err := xtest.Init(dead); err != nil {
		t.Fatal(err)
	}
	root := xproto.Setup(dead).DefaultScreen(dead).Root
	const control = 37 // Control_L on Xvfb's default map
	if err := xtest.FakeInputChecked(dead, xproto.KeyPress, control, 0, root, 0, 0, 0).Check(); err != nil {
		t.Fatal(err)
	}
	if err := xtest.FakeInputChecked(dead, xproto.ButtonPress, 1, 0, root, 0, 0, 0).Check(); err != nil {
		t.Fatal(err)
	}
	dead.Close()

	obs, err := xgb.NewConnDisplay(d.Display())
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	down := func() (bool, uint16) {
		km, err := xproto.QueryKeymap(obs).Reply()
		if err != nil {
			t.Fatal(err)
		}
		p, err := xproto.QueryPointer(obs, root).Reply()
		if err != nil {
			t.Fatal(err)
		}
		return km.Keys[control/8]&(1<<(control%8)) != 0, p.Mask & xproto.ButtonMask1
	}
	if key, btn := down(); !key || btn == 0 {
		t.Fatalf("the dead client's presses are not held (key %v, button mask %#x): the X server no longer needs this", key, btn)
	}
	h, err := Release(ctx, d.Display())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(h.Keys, control) || !slices.Equal(h.Buttons, []byte{1}) {
		t.Errorf("released %+v, want keycode %d and button 1", h, control)
	}
	if key, btn := down(); key || btn != 0 {
		t.Errorf("still held after Release: key %v, button mask %#x", key, btn)
	}
}
