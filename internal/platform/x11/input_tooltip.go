package x11

import (
	"context"
	"fmt"
	"time"

	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/platform"
)

// tipLimit bounds how long a press waits for a tooltip covering its point to go away. GTK hides
// its tooltip as soon as it reads the motion away from the widget; Qt fades its tooltip out
// 300 ms later.
const tipLimit = 500 * time.Millisecond

// moveToPress moves the pointer to p for a press there, and holds the press back while a
// tooltip covers p.
//
// A pointer that rests on a widget with a tooltip (where a fresh X server put it, the middle of
// the screen, on a desktop nobody has touched yet, or where the last gesture left it) gets the
// tooltip half a second later, just below the pointer, over whatever lies there. A press sent
// right behind the motion reaches the tooltip window, not the widget under it: the server routes
// it before the application has read the motion that makes it hide the tooltip, and GTK drops a
// press on its tooltip (the first click on galculator's "9", under the "Save to memory" tooltip
// of the button in the middle of the screen, was lost; issue 27). So when the top-level window
// at p is a tooltip, the press waits until it is unmapped, at most tipLimit, and then goes
// anyway. Without a tooltip this costs two round trips.
func (g *gesture) moveToPress(ctx context.Context, p platform.Point) error {
	c := g.c
	// Before the motion, so the tooltip's unmapping (a top-level unmap, which wakes the root's
	// subscribers) cannot come before the subscription.
	wake, cancel := c.subscribe(c.scr.root)
	defer cancel()
	if err := g.send(ctx, motion(p)); err != nil {
		return err
	}
	if c.tooltipAt(ctx, p) == 0 {
		return nil
	}
	limit := time.NewTimer(tipLimit)
	defer limit.Stop()
	for {
		select {
		case <-wake:
		case <-limit.C:
			return nil // a tooltip that stays: the press goes where the user's would
		case <-ctx.Done():
			return fmt.Errorf("%s: waiting for a tooltip to close: %w", g.what, ctx.Err())
		case <-c.dead:
			return c.alive(g.what)
		}
		if c.tooltipAt(ctx, p) == 0 {
			return nil
		}
	}
}

// tooltipAt returns the top-level window at root point p when it is a tooltip (an
// override-redirect window whose _NET_WM_WINDOW_TYPE lists TOOLTIP), else 0. The server finds
// that window as it would route a press there: by the windows' input regions.
func (c *Conn) tooltipAt(ctx context.Context, p platform.Point) xproto.Window {
	var tip xproto.Window
	_ = c.await(ctx, "looking for a tooltip", func() error {
		r, err := xproto.TranslateCoordinates(c.xc, c.scr.root, c.scr.root, int16(p.X), int16(p.Y)).Reply()
		if err != nil || r.Child == 0 {
			return err
		}
		ac := xproto.GetWindowAttributes(c.xc, r.Child)
		tc := xproto.GetProperty(c.xc, false, r.Child, c.atoms.netWMWindowType, xproto.AtomAtom, 0, maxTypeLong)
		a, err1 := ac.Reply()
		t, err2 := tc.Reply()
		if err1 != nil || err2 != nil || !a.OverrideRedirect {
			return nil // gone meanwhile, or a window manager's frame
		}
		for _, v := range prop32(t) {
			if xproto.Atom(v) == c.atoms.windowTypes[tooltipType] {
				tip = r.Child
			}
		}
		return nil
	})
	return tip
}

// tooltipType is the index of "tooltip" in windowTypeNames.
var tooltipType = func() int {
	for i, n := range windowTypeNames {
		if n == "tooltip" {
			return i
		}
	}
	panic("x11: no tooltip window type")
}()
