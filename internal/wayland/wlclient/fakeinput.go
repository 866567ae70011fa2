package wlclient

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/mcec/mcec/internal/wayland/wire"
)

// FakeInput is KWin's fake input (org_kde_kwin_fake_input, Plasma 5.27): one object that is
// both a pointer and a keyboard. Its keys are evdev codes read through the session's own
// keymap: a client cannot give it a keymap (version 5 can, Plasma 6 offers EIS instead). Every
// request is followed by a round trip, so KWin has handled it before the next one: a press sent
// right behind a motion missed every time (shared/spec/wayland-notes.md).
type FakeInput struct {
	cl *Client
	id uint32

	mu      sync.Mutex
	buttons []uint32 // pressed and not released
	keys    []uint32
}

// FakeInput returns KWin's fake input, authenticated on first use. KWin offers the global only
// to clients it allows (a desktop file listing it in X-KDE-Wayland-Interfaces, or
// KWIN_WAYLAND_NO_PERMISSION_CHECKS=1): without it this fails with ErrUnsupported.
func (cl *Client) FakeInput(ctx context.Context) (*FakeInput, error) {
	cl.fakeOnce.Do(func() {
		var id uint32
		if id, cl.fakeErr = cl.need(ifFakeInput); cl.fakeErr != nil {
			return
		}
		for _, g := range cl.Globals() {
			if g.Interface == ifFakeInput && g.Version < fakeInputMinVersion {
				cl.fakeErr = fmt.Errorf("%w: %s version %d (keys need %d)", ErrUnsupported, ifFakeInput, g.Version, fakeInputMinVersion)
				return
			}
		}
		f := &FakeInput{cl: cl, id: id}
		if cl.fakeErr = cl.c.Send(id, fakeAuthenticate, wire.String("mcec"), wire.String("an AI agent's desktop automation")); cl.fakeErr != nil {
			return
		}
		if cl.fakeErr = cl.c.Roundtrip(ctx); cl.fakeErr == nil {
			cl.fake = f
		}
	})
	return cl.fake, cl.fakeErr
}

// MotionAbsolute moves the pointer to x,y in layout coordinates.
func (f *FakeInput) MotionAbsolute(ctx context.Context, x, y int) error {
	x0, y0, x1, y1 := f.cl.layout()
	if x < x0 || y < y0 || x >= x1 || y >= y1 {
		return fmt.Errorf("wayland: point %d,%d is outside the outputs (%d,%d to %d,%d)", x, y, x0, y0, x1, y1)
	}
	// The centre of the pixel: KWin takes the position as is.
	if err := f.cl.c.Send(f.id, fakeMotionAbsolute, wire.Fixed(float64(x)+0.5), wire.Fixed(float64(y)+0.5)); err != nil {
		return err
	}
	return f.cl.c.Roundtrip(ctx)
}

// Button presses or releases a button by its evdev code.
func (f *FakeInput) Button(ctx context.Context, code uint32, pressed bool) error {
	if err := f.cl.c.Send(f.id, fakeButton, wire.Uint(code), wire.Uint(state(pressed))); err != nil {
		return err
	}
	f.note(&f.buttons, code, pressed)
	return f.cl.c.Roundtrip(ctx)
}

// Axis turns the wheel by clicks: vertical positive is down, horizontal positive is right.
func (f *FakeInput) Axis(ctx context.Context, vertical bool, clicks int) error {
	axis := uint32(axisHorizontal)
	if vertical {
		axis = axisVertical
	}
	// 15 per click, libinput's wheel unit, which KWin passes on as the axis value.
	if err := f.cl.c.Send(f.id, fakeAxis, wire.Uint(axis), wire.Fixed(float64(15*clicks))); err != nil {
		return err
	}
	return f.cl.c.Roundtrip(ctx)
}

// Key presses or releases the key of evdev code code.
func (f *FakeInput) Key(ctx context.Context, code uint32, pressed bool) error {
	if err := f.cl.c.Send(f.id, fakeKeyboardKey, wire.Uint(code), wire.Uint(state(pressed))); err != nil {
		return err
	}
	f.note(&f.keys, code, pressed)
	return f.cl.c.Roundtrip(ctx)
}

func (f *FakeInput) note(list *[]uint32, code uint32, pressed bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if pressed {
		*list = append(*list, code)
	} else if i := slices.Index(*list, code); i >= 0 {
		*list = slices.Delete(*list, i, i+1)
	}
}

// release lets go of every button and key still pressed: fake input has no destroy request,
// and KWin keeps them down after the client leaves.
func (f *FakeInput) release() {
	f.mu.Lock()
	buttons, keys := slices.Clone(f.buttons), slices.Clone(f.keys)
	f.mu.Unlock()
	for _, b := range buttons {
		_ = f.cl.c.Send(f.id, fakeButton, wire.Uint(b), wire.Uint(0))
	}
	for _, k := range keys {
		_ = f.cl.c.Send(f.id, fakeKeyboardKey, wire.Uint(k), wire.Uint(0))
	}
}

func state(pressed bool) uint32 {
	if pressed {
		return 1
	}
	return 0
}
