package atspi

import (
	"context"
	"sync"
	"time"

	"github.com/mcec/mcec/internal/platform"
)

// LibreOffice's gtk3 plugin draws its windows' content (toolbars, the sheet, the document) with
// VCL below a native GTK menu bar, and VCL forgets the menu bar when it reports where its
// objects are on screen (measured with LibreOffice 7.4 under a 25-pixel menu bar):
//
//   - Calc's cells are placed from their grid window's absolute position, which omits the menu
//     bar in every state seen: cell C3 reported at y 191 is drawn at 216, or at 231 drawn at
//     257; a click at its reported centre landed a row higher.
//   - Everything else follows VCL's root pane, which is sometimes right (it starts at the menu
//     bar's bottom) and sometimes lies over the menu bar (toolbars reported at the menu bar's
//     top, one bar higher than drawn), depending on how the window came up.
//
// So within a LibreOffice frame with a showing native menu bar, cells move down by the menu
// bar's height and other VCL objects by the distance from the root pane's top to the menu bar's
// bottom; the frame, the native menus and the other GTK widgets outside the root pane (the
// menu bar's "Close Document" button, the containers around the root pane), which report their
// true place, stay.
//
// On Wayland (measured with LibreOffice 7.4 on sway) cells follow the root pane like everything
// else: a window whose root pane was reported at the menu bar's bottom had its cell C3 reported
// where it was drawn (window y 201), and one whose root pane lay over the menu bar reported C3 a
// menu bar's height (26) above where it was drawn. So there cells move by the root pane's error.

// vclShiftTTL bounds how long a frame's measured shift is reused: LibreOffice moves its root
// pane (and with it every VCL object's report) when it lays the window out again (the first
// seconds after start, an info bar), so only the reads of one moment share a measurement.
const vclShiftTTL = 250 * time.Millisecond

// measureWithin bounds one measurement (a busy application answers slowly; a dozen calls).
const measureWithin = 500 * time.Millisecond

// maxMenuBarSearch bounds the containers opened below a frame in the search for its menu bar
// (Calc: frame, panel, panel, scroll pane, viewport, menu bar; the sidebar's panels are many).
const (
	maxMenuBarSearch = 120
	maxMenuBarDepth  = 5
)

// menuBarPath are the containers a menu bar may sit in below its frame.
var menuBarPath = map[string]bool{"panel": true, "filler": true, "scroll pane": true, "viewport": true, "root pane": true, "layered pane": true}

// nativeMenuRoles are drawn by GTK in a LibreOffice window: their extents are right.
var nativeMenuRoles = map[string]bool{"frame": true, "menu bar": true, "menu": true, "menu item": true,
	"check menu item": true, "radio menu item": true, "tearoff menu item": true, "popup menu": true}

// vclShifts caches each frame's shift.
type vclShifts struct {
	mu sync.Mutex
	m  map[objRef]vclShiftEntry
}

type vclShiftEntry struct {
	vclShift
	at time.Time
}

// vclShift is how far down a frame's VCL objects are drawn from where they are reported.
type vclShift struct {
	cell, rest int
}

// of returns the shift for an object of role.
func (s vclShift) of(role string) int {
	switch {
	case nativeMenuRoles[role]:
		return 0
	case role == "table cell":
		return s.cell
	}
	return s.rest
}

// isVCL reports whether the application's name is LibreOffice's (its gtk3 plugin names its
// toolkit "gtk").
func isVCL(appName string) bool {
	switch appName {
	case "soffice", "soffice.bin", "libreoffice":
		return true
	}
	return false
}

// frameShift returns the shift of frame's VCL objects (zero without a showing menu bar).
func (c *Client) frameShift(ctx context.Context, frame objRef) (vclShift, error) {
	c.vcl.mu.Lock()
	e, ok := c.vcl.m[frame]
	c.vcl.mu.Unlock()
	if ok && time.Since(e.at) < vclShiftTTL {
		return e.vclShift, nil
	}
	mctx, cancel := context.WithTimeout(ctx, measureWithin)
	s, err := c.measureShift(mctx, frame)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return vclShift{}, ctx.Err()
		}
		// A busy application: the bounds stay as reported rather than the read failing or
		// waiting on it.
		return vclShift{}, nil
	}
	c.vcl.mu.Lock()
	if c.vcl.m == nil {
		c.vcl.m = make(map[objRef]vclShiftEntry)
	}
	c.vcl.m[frame] = vclShiftEntry{vclShift: s, at: time.Now()}
	c.vcl.mu.Unlock()
	return s, nil
}

// measureShift looks breadth-first below the frame for its showing native menu bar (LibreOffice
// keeps a hidden, empty VCL one too) and VCL's root pane.
func (c *Client) measureShift(ctx context.Context, frame objRef) (vclShift, error) {
	var bar, root *platform.Rect
	level := []objRef{frame}
	seen := 0
	for range maxMenuBarDepth {
		var next []objRef
		for _, r := range level {
			if seen++; seen > maxMenuBarSearch || bar != nil && root != nil {
				break
			}
			call, _, err := c.call(ctx, r.Bus, r.Path, ifAccessible+".GetChildren")
			if err != nil {
				return vclShift{}, err
			}
			var kids []objRef
			_ = call.Store(&kids)
			for _, k := range kids {
				role, _, err := c.kind(ctx, k)
				if err != nil {
					continue
				}
				name, _ := roleName(role)
				if (name == "menu bar" && bar == nil) || (name == "root pane" && root == nil) {
					rect, err := c.shownRect(ctx, k)
					if err != nil {
						return vclShift{}, err
					}
					if rect != nil && name == "menu bar" && rect.Height > 0 {
						bar = rect
					} else if rect != nil && name == "root pane" {
						root = rect
					}
				}
				if menuBarPath[name] {
					next = append(next, k)
				}
			}
		}
		level = next
	}
	if bar == nil {
		return vclShift{}, nil
	}
	s := vclShift{cell: bar.Height}
	if root != nil {
		s.rest = max(0, bar.Y+bar.Height-root.Y)
	}
	if c.opts.WindowLocal {
		s.cell = s.rest
	}
	return s, nil
}

// shownRect is the screen rectangle of a showing object, nil for a hidden one.
func (c *Client) shownRect(ctx context.Context, r objRef) (*platform.Rect, error) {
	words, f, err := c.states(ctx, r)
	if err != nil {
		if f.fatal() {
			return nil, err
		}
		return nil, nil
	}
	if !words.has(stateShowing) {
		return nil, nil
	}
	e, ok, f, err := c.extents(ctx, r, coordScreen)
	if err != nil {
		if f.fatal() {
			return nil, err
		}
		return nil, nil
	}
	if !ok {
		return nil, nil
	}
	return extentsRect(e), nil
}

// vclShiftOf returns the shift for the object r of a LibreOffice application: up its parents to
// its frame (none when it lies in a native menu, or outside the root pane: a GTK widget).
func (c *Client) vclShiftOf(ctx context.Context, r objRef) (vclShift, error) {
	cur := r
	inRoot := false
	for range maxAncestors {
		role, _, err := c.kind(ctx, cur)
		if err != nil {
			return vclShift{}, nil
		}
		name, _ := roleName(role)
		if nativeMenuRoles[name] && name != "frame" {
			return vclShift{}, nil
		}
		inRoot = inRoot || name == "root pane"
		var parent objRef
		f, err := c.property(ctx, cur.Bus, cur.Path, ifAccessible, "Parent", &parent)
		if err != nil {
			if f.fatal() {
				return vclShift{}, err
			}
			return vclShift{}, nil
		}
		if parent.null() || parent.Path == appRoot {
			if cur == r || !inRoot {
				return vclShift{}, nil // the frame itself, or a GTK widget beside the root pane
			}
			return c.topShift(ctx, cur)
		}
		cur = parent
	}
	return vclShift{}, nil
}

// topShift returns the shift of a top-level object. VCL's own frame of a window (where its
// objects' parents lead, reporting no parent itself) holds the root pane but not the native menu
// bar, which lies under GTK's frame of the same name, a child of the application: that frame is
// measured instead.
func (c *Client) topShift(ctx context.Context, top objRef) (vclShift, error) {
	s, err := c.frameShift(ctx, top)
	if err != nil || s != (vclShift{}) {
		return s, err
	}
	if f, ok := c.gtkFrameOf(ctx, top); ok {
		return c.frameShift(ctx, f)
	}
	return s, nil
}

// gtkFrameOf finds the application's frame named as VCL's own frame top (which reports no
// parent and is not among the application's children): GTK's frame of the same window, the one
// a walk places and that holds the native menu bar.
func (c *Client) gtkFrameOf(ctx context.Context, top objRef) (objRef, bool) {
	var name string
	if _, err := c.property(ctx, top.Bus, top.Path, ifAccessible, "Name", &name); err != nil || name == "" {
		return objRef{}, false
	}
	call, _, err := c.call(ctx, top.Bus, appRoot, ifAccessible+".GetChildren")
	if err != nil {
		return objRef{}, false
	}
	var frames []objRef
	_ = call.Store(&frames)
	for _, f := range frames {
		if f == top {
			continue
		}
		var fname string
		if _, err := c.property(ctx, f.Bus, f.Path, ifAccessible, "Name", &fname); err == nil && fname == name {
			return f, true
		}
	}
	return objRef{}, false
}

// treeShift returns the shift for a walk rooted at r: its frame's when r is a frame, and
// whether r lies in the root pane (vclShiftOf: shifted only there).
func (c *Client) treeShift(ctx context.Context, r objRef) (vclShift, bool, error) {
	var parent objRef
	f, err := c.property(ctx, r.Bus, r.Path, ifAccessible, "Parent", &parent)
	if err != nil {
		if f.fatal() {
			return vclShift{}, false, err
		}
		return vclShift{}, false, nil
	}
	if parent.null() || parent.Path == appRoot {
		s, err := c.topShift(ctx, r)
		return s, false, err
	}
	s, err := c.vclShiftOf(ctx, r)
	return s, true, err
}

// shiftTree moves the bounds of VCL's objects in n down by their shift: the root pane and what
// lies in it (inRoot: n does). The frame, native menus (and everything below them) and GTK's
// widgets outside the root pane keep theirs.
func shiftTree(n *platform.Node, s vclShift, inRoot bool) {
	if n == nil || s == (vclShift{}) || nativeMenuRoles[n.Role] && n.Role != "frame" {
		return
	}
	inRoot = inRoot || n.Role == "root pane"
	if dy := s.of(n.Role); inRoot && n.Bounds != nil && dy != 0 {
		b := *n.Bounds
		b.Y += dy
		n.Bounds = &b
	}
	for _, k := range n.Children {
		shiftTree(k, s, inRoot)
	}
}
