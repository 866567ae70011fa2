// Package heldinput releases the keys and buttons that XTEST clients left down. The X server
// keeps a key or button an XTEST client pressed after that client disconnects: an mcec killed
// outright while the line protocol held `shiftdown:ctrl` and `mouse:lbd` (or in the middle of a
// drag) leaves Control and the left button down on the desktop, and the next click there, a
// person's or an agent's, becomes a Ctrl+drag. mcec calls Release when it attaches to a desktop.
//
// Only the XTEST devices' own state is read (XInput's per-device state), so keys a person holds
// on a real keyboard are left alone.
package heldinput

import (
	"context"
	"errors"
	"fmt"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/mcec/mcec/internal/xinput2"
)

// Held is what the XTEST devices hold down.
type Held struct {
	Keys    []byte // keycodes
	Buttons []byte // pointer buttons
}

// Empty reports whether nothing is held.
func (h Held) Empty() bool { return len(h.Keys) == 0 && len(h.Buttons) == 0 }

// Query reads what the XTEST devices of display hold down.
func Query(ctx context.Context, display string) (Held, error) {
	xi, err := xinput2.Dial(ctx, display)
	if err != nil {
		return Held{}, err
	}
	defer xi.Close()
	return query(xi)
}

func query(xi *xinput2.Conn) (Held, error) {
	devs, err := xi.QueryDevices()
	if err != nil {
		return Held{}, err
	}
	var h Held
	for _, d := range devs {
		if !d.IsXTest() || (d.Use != xinput2.SlaveKeyboard && d.Use != xinput2.SlavePointer) {
			continue
		}
		st, err := xi.QueryDeviceState(d.ID)
		if err != nil {
			return Held{}, fmt.Errorf("state of %s: %w", d.Name, err)
		}
		h.Keys = append(h.Keys, st.Keys...)
		h.Buttons = append(h.Buttons, st.Buttons...)
	}
	return h, nil
}

// Release releases what the XTEST devices of display hold down and returns what it released;
// it reads the state again to confirm.
func Release(ctx context.Context, display string) (Held, error) {
	xi, err := xinput2.Dial(ctx, display)
	if err != nil {
		return Held{}, err
	}
	defer xi.Close()
	held, err := query(xi)
	if err != nil || held.Empty() {
		return held, err
	}
	x, err := xgb.NewConnDisplay(display)
	if err != nil {
		return Held{}, err
	}
	defer x.Close()
	if err := xtest.Init(x); err != nil {
		return Held{}, err
	}
	root := xproto.Setup(x).DefaultScreen(x).Root
	var errs []error
	for _, b := range held.Buttons {
		errs = append(errs, xtest.FakeInputChecked(x, xproto.ButtonRelease, b, 0, root, 0, 0, 0).Check())
	}
	for _, k := range held.Keys {
		errs = append(errs, xtest.FakeInputChecked(x, xproto.KeyRelease, k, 0, root, 0, 0, 0).Check())
	}
	if err := errors.Join(errs...); err != nil {
		return Held{}, err
	}
	after, err := query(xi)
	if err != nil {
		return Held{}, err
	}
	if !after.Empty() {
		return Held{}, fmt.Errorf("still held after releasing: keycodes %v, buttons %v", after.Keys, after.Buttons)
	}
	return held, nil
}
