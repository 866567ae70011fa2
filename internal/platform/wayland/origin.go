package wayland

import "github.com/mcec/mcec/internal/platform"

// Origin is where on screen the (0,0) of a window's accessibility extents lies. On Wayland every
// toolkit reports extents relative to its own surface or window geometry, each from another
// origin (shared/spec/wayland-notes.md §3, measured again on sway 1.7): GTK 4 from the window
// geometry (its frame is the client area's size); GTK 3 windows that sway decorates, and Qt,
// from the surface, which is the client area; GTK 3 windows that draw their own title bar
// (a header bar) from the surface including the client-side shadow around the client area
// (gtk3-widget-factory: frame 1467x784 for a 1415x732 window, shadow 26 at the sides, 23 above
// and 29 below; Chromium 156: 1050x780 for 1018x738, 16 at the sides, 10 above, 32 below).
//
// sway reports the client area (the xdg window geometry) but not the surface, so the rule is
// read from the frame's size against the area's:
//   - the same size: the origin is the client area's;
//   - larger: a shadow around the area. Its top and bottom differ, so the offset is taken from
//     the object below the frame that spans the client area's width (GTK 3's header bar,
//     Chromium's client view) and sits where a shadow of equal sides would put it;
//   - anything else: no rule fits, and the tree has no bounds rather than wrong ones.
func (s *sway) Origin(w platform.Window, frame platform.Rect, children []platform.Rect) (platform.Point, bool) {
	if w.Server == platform.ServerXWayland {
		// An X11 program's extents are X screen coordinates, the layout's, where its frame says
		// where its window is: a Swing dialog under sway's Xwayland reports its frame at its own
		// place plus its parent window's (939,625 for a dialog at 509,355 over a window at
		// 430,270), and then its objects are not trusted either.
		return platform.Point{}, frame == w.Bounds
	}
	return origin(w.Bounds, frame, children)
}

// origin applies Origin's rules to the client area a, the frame's extents f and those of the
// objects below it.
func origin(a, f platform.Rect, children []platform.Rect) (platform.Point, bool) {
	if a.Empty() || f.Empty() {
		return platform.Point{}, false
	}
	// The extents' (0,0) is the surface's corner: the frame's own position in it says where.
	if f.Width == a.Width && f.Height == a.Height {
		return platform.Point{X: a.X - f.X, Y: a.Y - f.Y}, true
	}
	extraW, extraH := f.Width-a.Width, f.Height-a.Height
	if extraW < 0 || extraH < 0 || extraW%2 != 0 {
		return platform.Point{}, false
	}
	side := extraW / 2
	for _, k := range children {
		if k.Width == a.Width && k.X-f.X == side && k.Y-f.Y >= 0 && k.Y-f.Y <= extraH {
			return platform.Point{X: a.X - k.X, Y: a.Y - k.Y}, true
		}
	}
	return platform.Point{}, false
}
