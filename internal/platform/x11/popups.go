package x11

import (
	"context"

	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/platform"
)

// Popups lists the screen rectangles of the mapped override-redirect top-level windows that
// the X client owning handle created: a GTK 4 application's popovers and drop-down lists, which
// live in surfaces of their own that the window manager never sees. Their accessible objects
// report positions relative to the main window (GTK 4.8), so the tree reader places them by
// these rectangles (internal/platform/atspi/popups.go).
func (c *Conn) Popups(ctx context.Context, handle uint32) ([]platform.Rect, error) {
	var out []platform.Rect
	err := c.await(ctx, "listing popups", func() error {
		tree, err := xproto.QueryTree(c.xc, c.scr.root).Reply()
		if err != nil {
			return err
		}
		base := handle &^ c.idMask
		type query struct {
			attrs xproto.GetWindowAttributesCookie
			geom  xproto.GetGeometryCookie
		}
		// Every request goes out before any reply is read: one round trip.
		var qs []query
		for _, w := range tree.Children {
			if uint32(w)&^c.idMask != base || uint32(w) == handle {
				continue
			}
			qs = append(qs, query{xproto.GetWindowAttributes(c.xc, w), xproto.GetGeometry(c.xc, xproto.Drawable(w))})
		}
		for _, q := range qs {
			a, aerr := q.attrs.Reply()
			g, gerr := q.geom.Reply()
			if aerr != nil || gerr != nil {
				continue // gone meanwhile
			}
			if !a.OverrideRedirect || a.MapState != xproto.MapStateViewable || g.Width <= 1 || g.Height <= 1 {
				continue
			}
			// Children of the root: their position is their screen position.
			out = append(out, platform.Rect{X: int(g.X), Y: int(g.Y), Width: int(g.Width), Height: int(g.Height)})
		}
		return nil
	})
	if err != nil {
		return nil, xerr(err, platform.ErrDisplayUnavailable, "listing popups of 0x%x", handle)
	}
	return out, nil
}
