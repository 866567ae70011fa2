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

// On Wayland no client is told where a popup surface is, and GTK 4 reports a popover's objects
// where its allocation under its parent widget would put them (gtk4-widget-factory's drop-down
// list: 32 px above and 12 px right of where sway showed it, over the drop-down's own button).
// GTK 4 answers Component.GetLayer with POPUP for a popover, so a popover is found by its layer,
// asked only of objects that stick out of their nearest placed ancestor (a popover never lies
// inside the widget it belongs to) and of the unplaced ancestors between, and its objects get
// no bounds: never wrong ones.

// layerPopup is AT-SPI's ATSPI_LAYER_POPUP.
const layerPopup = 5

// layer is the object's Component layer; 0 when it does not say. An object's layer never
// changes, so it is kept with its other metadata.
func (c *Client) layer(ctx context.Context, r objRef) (uint32, error) {
	if m := c.meta.get(r); m.has&metaLayer != 0 {
		return m.layer, nil
	}
	role, _, err := c.kind(ctx, r)
	if err != nil {
		return 0, nil // gone: not a popover anyone will act in
	}
	var l uint32
	call, f, err := c.call(ctx, r.Bus, r.Path, ifComponent+".GetLayer")
	if err != nil {
		if f.fatal() {
			return 0, err
		}
		return 0, nil
	}
	if call.Store(&l) != nil {
		l = 0
	}
	c.meta.merge(map[objRef]objMeta{r: {role: role, layer: l, has: metaLayer}})
	return l, nil
}

// markPopovers marks the walked objects that are GTK 4 popovers on a Wayland desktop, where
// their objects then get no bounds (inPopup). An object that sticks out of its nearest placed
// ancestor is asked its layer, and so are the ancestors between: while a popover opens under
// load its own object may report no extents yet while its list already does (a drop-down's
// popover, walked 1 time in 10 at load 6, had nil extents above a list reported below the
// drop-down).
func (w *walker) markPopovers(ctx context.Context) error {
	var chains [][]*node // each: an object sticking out, and its unplaced ancestors below the nearest placed one
	for _, n := range w.nodes {
		if n.dead.Load() || n.extents == nil || n.extents.Empty() {
			continue
		}
		var chain []*node
		p := n
		for ; p != nil && (p == n || p.extents == nil || p.extents.Empty()); p = p.parent {
			chain = append(chain, p)
		}
		if p != nil && n.extents.Intersect(*p.extents) != *n.extents {
			chains = append(chains, chain)
		}
	}
	// Chains may share ancestors: each job notes its popover, and they are marked once all ran.
	found := make([]*node, len(chains))
	jobs := make([]job, len(chains))
	for i, chain := range chains {
		jobs[i] = func(ctx context.Context) error {
			for _, c := range chain {
				l, err := w.c.layer(ctx, c.ref)
				if err != nil {
					return err
				}
				if l == layerPopup {
					found[i] = c
					return nil
				}
			}
			return nil
		}
	}
	if err := run(ctx, w.sem, jobs); err != nil {
		return err
	}
	for _, n := range found {
		if n != nil {
			n.popover = true
		}
	}
	return nil
}

// inPopover reports whether any of below (an object and its ancestors under the frame) is a GTK
// 4 popover (markPopovers' rule), for the by-ref path.
func (c *Client) inPopover(ctx context.Context, below []objRef) (bool, error) {
	if len(below) == 0 || !c.knownBridge(below[0].Bus).windowCoords {
		return false, nil
	}
	for _, r := range below {
		l, err := c.layer(ctx, r)
		if err != nil {
			return false, err
		}
		if l == layerPopup {
			return true, nil
		}
	}
	return false, nil
}
