package x11

import (
	"context"

	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/platform"
)

// WindowManagerName returns the name the EWMH window manager announces (_NET_SUPPORTING_WM_CHECK
// → _NET_WM_NAME), or "" when no EWMH window manager runs.
func (c *Conn) WindowManagerName(ctx context.Context) (string, error) {
	var name string
	err := c.await(ctx, "reading the window manager's name", func() error {
		check, err := xproto.InternAtom(c.xc, false, uint16(len("_NET_SUPPORTING_WM_CHECK")), "_NET_SUPPORTING_WM_CHECK").Reply()
		if err != nil {
			return err
		}
		r, err := xproto.GetProperty(c.xc, false, c.scr.root, check.Atom, xproto.AtomWindow, 0, 1).Reply()
		if err != nil {
			return err
		}
		ws := prop32(r)
		if len(ws) == 0 {
			return nil
		}
		n, err := xproto.GetProperty(c.xc, false, xproto.Window(ws[0]), c.atoms.netWMName, c.atoms.utf8String, 0, 256).Reply()
		if err != nil {
			return nil // the check window went away: no window manager to name
		}
		name = cleanText(n.Value, false)
		if name == "" {
			name = "unnamed"
		}
		return nil
	})
	return name, xerr(err, platform.ErrDisplayUnavailable, "reading the window manager's name")
}
