package atspi

import (
	"context"

	"github.com/mcec/mcec/internal/platform"
)

// GTK 4 draws a popover (a menu button's menu, a drop-down's list) in a surface of its own, an
// override-redirect X window placed beside the widget it belongs to. GTK 4.8 reports extents
// relative to the main window only, and computes a popover's from its allocation under its
// parent widget, not from where its surface is: in gnome-calculator the Primary menu's items
// were reported 120 px right of and 18 px above where they are drawn, so a click on "About
// Calculator" landed outside the popover and closed it. The popover's object has its surface's
// size, so the shallowest object of a popup's exact size is taken to be that popover, and it and
// everything below it are moved to where the surface is on screen.

// placePopups moves each popover subtree of a tree in screen coordinates onto its surface.
func placePopups(root *platform.Node, popups []platform.Rect) {
	if root == nil || len(popups) == 0 {
		return
	}
	left := append([]platform.Rect(nil), popups...)
	level := root.Children
	for len(level) > 0 && len(left) > 0 {
		var next []*platform.Node
		for _, n := range level {
			if i := popupOf(n.Bounds, left); i >= 0 {
				dx, dy := left[i].X-n.Bounds.X, left[i].Y-n.Bounds.Y
				left = append(left[:i], left[i+1:]...)
				moveTree(n, dx, dy)
			}
			// Below a placed popover too: a popover opened from one has a surface of its own.
			next = append(next, n.Children...)
		}
		level = next
	}
}

// popupOf is the index of the popup whose size r has, or -1.
func popupOf(r *platform.Rect, popups []platform.Rect) int {
	if r == nil || r.Width <= 1 || r.Height <= 1 {
		return -1
	}
	for i, p := range popups {
		if p.Width == r.Width && p.Height == r.Height {
			return i
		}
	}
	return -1
}

// moveTree moves n and its descendants by dx, dy.
func moveTree(n *platform.Node, dx, dy int) {
	if dx == 0 && dy == 0 {
		return
	}
	if n.Bounds != nil {
		b := *n.Bounds
		b.X += dx
		b.Y += dy
		n.Bounds = &b
	}
	for _, k := range n.Children {
		moveTree(k, dx, dy)
	}
}

// popupShift is what originOf adds for an element inside a popover: the offset that moves its
// ancestors' shallowest object of a popup's size onto that popup. ancestors run from the element
// up to (not including) its frame; origin is the main window's.
func (c *Client) popupShift(ctx context.Context, handle uint32, ancestors []objRef, origin platform.Point) (dx, dy int, err error) {
	if c.opts.Popups == nil || len(ancestors) == 0 {
		return 0, 0, nil
	}
	popups, err := c.opts.Popups(ctx, handle)
	if err != nil || len(popups) == 0 {
		return 0, 0, nil // nothing to place, or X cannot tell: the main window's origin
	}
	b := c.knownBridge(ancestors[0].Bus)
	for i := len(ancestors) - 1; i >= 0; i-- {
		r, ok, f, err := c.extents(ctx, ancestors[i], b.coordType())
		if err != nil {
			if f.fatal() {
				return 0, 0, err
			}
			return 0, 0, nil
		}
		if !ok {
			continue
		}
		rect := extentsRect(r)
		if j := popupOf(rect, popups); j >= 0 {
			return popups[j].X - (rect.X + origin.X), popups[j].Y - (rect.Y + origin.Y), nil
		}
	}
	return 0, 0, nil
}
