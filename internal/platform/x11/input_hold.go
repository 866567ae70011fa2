package x11

import (
	"context"
	"fmt"

	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/keysym"
	"github.com/mcec/mcec/internal/platform"
)

// Press-and-hold primitives for raw commands (shiftdown:, mouse:down). Unlike the other gestures
// they leave a key or button down when they return: the press is latched (inputState.latched),
// so the gesture's end does not release it. Whoever pressed it must call Release / ButtonUp.

// unhold removes the last h from list and reports whether it was there.
func unhold(list *[]heldInput, h heldInput) bool {
	l := *list
	for i := len(l) - 1; i >= 0; i-- {
		if l[i] == h {
			*list = append(l[:i], l[i+1:]...)
			return true
		}
	}
	return false
}

// holdKeycode resolves key to a keycode of the current keymap. Held keys cannot go through a
// remapped spare keycode: the mapping is restored when the gesture ends.
func (c *Conn) holdKeycode(ctx context.Context, key string) (xproto.Keycode, error) {
	sym, err := keysym.FromName(key)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", platform.ErrUnsupported, err)
	}
	km, err := c.keymap(ctx, true)
	if err != nil {
		return 0, xerr(err, platform.ErrDisplayUnavailable, "reading the keymap")
	}
	pos, ok := km.lookup(sym)
	if !ok {
		return 0, fmt.Errorf("%w: key %s is not on the keyboard map, so it cannot be held down (a chord can press it)", platform.ErrUnsupported, key)
	}
	return pos.code, nil
}

// Press presses key and leaves it down until Release.
func (in input) Press(ctx context.Context, key string) error {
	return in.keyHold(ctx, key, true)
}

// Release releases a key that Press left down (a key that is not down is released harmlessly).
func (in input) Release(ctx context.Context, key string) error {
	return in.keyHold(ctx, key, false)
}

func (in input) keyHold(ctx context.Context, key string, down bool) error {
	c := in.c
	what, typ := "pressing a key", byte(fakeKeyPress)
	if !down {
		what, typ = "releasing a key", fakeKeyRelease
	}
	g, err := c.beginGesture(ctx, what)
	if err != nil {
		return err
	}
	defer g.end()
	code, err := c.holdKeycode(ctx, key)
	if err != nil {
		return err
	}
	return g.send(ctx, inputOp{typ: typ, detail: byte(code), latch: down})
}

// ButtonDown moves the pointer to p and presses button, leaving it down until ButtonUp.
func (in input) ButtonDown(ctx context.Context, p platform.Point, button platform.Button) error {
	return in.buttonHold(ctx, p, button, true)
}

// ButtonUp moves the pointer to p and releases button.
func (in input) ButtonUp(ctx context.Context, p platform.Point, button platform.Button) error {
	return in.buttonHold(ctx, p, button, false)
}

func (in input) buttonHold(ctx context.Context, p platform.Point, button platform.Button, down bool) error {
	c := in.c
	if err := c.checkPoint(p); err != nil {
		return err
	}
	if err := checkButton(button); err != nil {
		return err
	}
	what, typ := "pressing a button", byte(fakeButtonPress)
	if !down {
		what, typ = "releasing a button", fakeButtonRelease
	}
	g, err := c.beginGesture(ctx, what)
	if err != nil {
		return err
	}
	defer g.end()
	// A press waits for a tooltip over p to close (see moveToPress); a release goes with its
	// motion, to whatever holds the pointer.
	ops := []inputOp{{typ: typ, detail: byte(button), latch: down}}
	if down {
		if err := g.moveToPress(ctx, p); err != nil {
			return err
		}
	} else {
		ops = append([]inputOp{motion(p)}, ops...)
	}
	if err := g.send(ctx, ops...); err != nil {
		return err
	}
	// The window manager may hold a press in a synchronous grab (see Click).
	_, err = c.wmSync(ctx)
	return err
}

// MoveTo moves the pointer to p.
func (in input) MoveTo(ctx context.Context, p platform.Point) error {
	c := in.c
	if err := c.checkPoint(p); err != nil {
		return err
	}
	g, err := c.beginGesture(ctx, "moving the pointer")
	if err != nil {
		return err
	}
	defer g.end()
	return g.send(ctx, motion(p))
}

// Pointer returns the pointer's position on the root window.
func (in input) Pointer(ctx context.Context) (platform.Point, error) {
	c := in.c
	var p platform.Point
	err := c.await(ctx, "reading the pointer position", func() error {
		r, err := xproto.QueryPointer(c.xc, c.scr.root).Reply()
		if err != nil {
			return err
		}
		p = platform.Point{X: int(r.RootX), Y: int(r.RootY)}
		return nil
	})
	return p, xerr(err, platform.ErrDisplayUnavailable, "reading the pointer position")
}

// maxScroll bounds the wheel clicks of one Scroll.
const maxScroll = 100

// Scroll turns the wheel where the pointer is: dy > 0 down, dy < 0 up, dx > 0 right, dx < 0
// left, one click per unit (X buttons 4/5 and 6/7).
func (in input) Scroll(ctx context.Context, dx, dy int) error {
	c := in.c
	if abs(dx) > maxScroll || abs(dy) > maxScroll {
		return fmt.Errorf("%w: scroll of %d,%d clicks (at most %d each way)", platform.ErrUnsupported, dx, dy, maxScroll)
	}
	var ops []inputOp
	click := func(n int, neg, pos byte) {
		b := pos
		if n < 0 {
			b = neg
		}
		for range abs(n) {
			ops = append(ops, inputOp{typ: fakeButtonPress, detail: b}, inputOp{typ: fakeButtonRelease, detail: b})
		}
	}
	click(dy, 4, 5)
	click(dx, 6, 7)
	if len(ops) == 0 {
		return nil
	}
	g, err := c.beginGesture(ctx, "scrolling")
	if err != nil {
		return err
	}
	defer g.end()
	if err := g.send(ctx, ops...); err != nil {
		return err
	}
	_, err = c.wmSync(ctx)
	return err
}

// KnownKey reports whether name is an X keysym name (as Chord and Press accept it), so callers
// can reject a bad key before anything is pressed.
func KnownKey(name string) bool {
	_, err := keysym.FromName(name)
	return err == nil
}
