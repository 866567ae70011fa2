package atspi

import (
	"context"

	"github.com/mcec/mcec/internal/platform"
)

// On Wayland a popup (an open menu, a combo box's list) is a surface of its own, whose place no
// client is told, and the toolkit's screen coordinates for its objects are a guess (GTK 3 put a
// combo box's list 6 px right and 74 px above where GNOME Shell showed it). A compositor that
// knows its popups (Options.PopupSurface: GNOME Shell, through mcec's extension) places them:
// the objects' window coordinates are relative to the popup's surface (measured: the list's menu
// at 6,5 in a 169x140 surface whose 157x128 frame sits 6,5 inside it), so an object's place is
// the surface's corner plus them. The popup is told by its root object's window extents:
// whichever of its frame or surface has that size, at that offset.

// placeSurfaces gives bounds to the objects of tr's popups: each highest object of a popup chain
// (inPopup's rule), and everything showing below it. pid owns the window.
func (c *Client) placeSurfaces(ctx context.Context, root *platform.Node, pid int) {
	if c.opts.PopupSurface == nil || root == nil {
		return
	}
	var visit func(n *platform.Node, roles []string)
	visit = func(n *platform.Node, roles []string) {
		chain := append([]string{n.Role}, roles...)
		if len(roles) > 0 && popupChain(chain) {
			c.placeSurface(ctx, n, pid)
			return
		}
		for _, k := range n.Children {
			visit(k, chain)
		}
	}
	visit(root, nil)
}

// placeSurface places the popup whose highest object is top.
func (c *Client) placeSurface(ctx context.Context, top *platform.Node, pid int) {
	ref, ok := c.objOf(top.Ref)
	if !ok {
		return
	}
	r, ok, _, err := c.extents(ctx, ref, coordWindow)
	if err != nil || !ok || r[2] <= 1 || r[3] <= 1 {
		return
	}
	corner, ok := c.opts.PopupSurface(ctx, pid, platform.Rect{X: int(r[0]), Y: int(r[1]), Width: int(r[2]), Height: int(r[3])})
	if !ok {
		return
	}
	var place func(n *platform.Node)
	place = func(n *platform.Node) {
		if !n.States["showing"] {
			return
		}
		if ref, ok := c.objOf(n.Ref); ok {
			if e, ok, _, err := c.extents(ctx, ref, coordWindow); err == nil && ok && e[2] > 0 && e[3] > 0 {
				n.Bounds = &platform.Rect{X: corner.X + int(e[0]), Y: corner.Y + int(e[1]), Width: int(e[2]), Height: int(e[3])}
			}
		}
		for _, k := range n.Children {
			place(k)
		}
	}
	place(top)
}

// surfaceRect is the bounds of one object of a popup whose highest object is top (the by-ref
// path: Element), or nil.
func (c *Client) surfaceRect(ctx context.Context, obj, top objRef, pid int) *platform.Rect {
	if c.opts.PopupSurface == nil {
		return nil
	}
	r, ok, _, err := c.extents(ctx, top, coordWindow)
	if err != nil || !ok || r[2] <= 1 || r[3] <= 1 {
		return nil
	}
	corner, ok := c.opts.PopupSurface(ctx, pid, platform.Rect{X: int(r[0]), Y: int(r[1]), Width: int(r[2]), Height: int(r[3])})
	if !ok {
		return nil
	}
	e, ok, _, err := c.extents(ctx, obj, coordWindow)
	if err != nil || !ok || e[2] <= 0 || e[3] <= 0 {
		return nil
	}
	return &platform.Rect{X: corner.X + int(e[0]), Y: corner.Y + int(e[1]), Width: int(e[2]), Height: int(e[3])}
}

// objOf parses a node's ref.
func (c *Client) objOf(ref string) (objRef, bool) {
	bus, path, err := c.parseRef(ref)
	return objRef{Bus: bus, Path: path}, err == nil
}

// popupTop finds the highest object of the popup chain r lies in (inPopup's rule), walking up
// its parents; false when r is not in a popup.
func (c *Client) popupTop(ctx context.Context, r objRef) (objRef, bool) {
	var refs []objRef
	var roles []string
	cur := r
	for range maxAncestors {
		role, _, err := c.kind(ctx, cur)
		if err != nil {
			return objRef{}, false
		}
		name, _ := roleName(role)
		refs, roles = append(refs, cur), append(roles, name)
		var parent objRef
		if _, err := c.property(ctx, cur.Bus, cur.Path, ifAccessible, "Parent", &parent); err != nil {
			return objRef{}, false
		}
		if parent.null() || parent.Path == appRoot {
			break
		}
		cur = parent
	}
	for i := len(roles) - 2; i >= 0; i-- { // the top-level object is never in a popup of its own
		if popupChain(roles[i:]) {
			return refs[i], true
		}
	}
	return objRef{}, false
}
