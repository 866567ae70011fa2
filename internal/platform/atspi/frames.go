package atspi

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mcec/mcec/internal/platform"
)

// Matching X windows to accessible frames. Toolkits make this hard in different ways
// (shared/spec/linux-desktop-notes.md): GTK 3 client-side-decorated frames are larger than the
// window and often nameless; GTK 4 reports every frame at 0,0; Swing reports no rectangles at
// all; a process often has a main window and a dialog. So a frame is scored against a window on
// every clue together — title, dialog-ness, geometry, focus — and the frames of a process are
// assigned to its windows as a whole, so a dialog claims the dialog frame and leaves the main
// frame to the main window. When the clues cannot tell two frames apart for the window asked
// for, the match fails (errFrameAmbiguous) rather than hand back another window's tree.

// frameCandidate is one top-level accessible object of the window's process.
type frameCandidate struct {
	node *node
	// relative: the bridge reports window-relative extents, so only the size says anything.
	relative bool
}

// frameScore rates how well frame f matches window w; higher is better. The parts, in the
// order they usually decide: the frame's name against the title (frames are named after their
// window by every toolkit but GTK 3 with client-side decorations, which leaves many nameless),
// the geometry (intersection over union; the size alone for window-relative bridges), the kind
// (a dialog window and a dialog frame), and the focus (the active frame belongs to the focused
// window), and at last a preference for frames that are showing.
func frameScore(f frameCandidate, w platform.Window) float64 {
	n := f.node
	s := 0.0
	name, title := strings.TrimSpace(n.info.name), strings.TrimSpace(w.Title)
	switch {
	case name == "" || title == "":
	case name == title:
		s += 4
	case strings.Contains(strings.ToLower(title), strings.ToLower(name)) ||
		strings.Contains(strings.ToLower(name), strings.ToLower(title)):
		s += 2
	default:
		s -= 2
	}
	if n.extents != nil && !w.Bounds.Empty() {
		if f.relative {
			s += 3 * sizeOverlap(*n.extents, w.Bounds)
		} else {
			s += 3 * overlap(*n.extents, w.Bounds)
		}
	}
	if dialogWindow(w) != dialogRole(n.role()) {
		s -= 1
	}
	switch active := n.info.states.has(stateActive); {
	case active && w.Focused:
		s += 0.5
	case active:
		s -= 0.5
	}
	if n.info.states.has(stateShowing) {
		s += 0.1
	}
	return s
}

// frameTie is how close two frames' scores may come before the clues are taken to be unable to
// tell them apart; every clue that counts is worth more.
const frameTie = 0.05

// errFrameAmbiguous is returned by matchFrame when the window's frame cannot be told apart from
// another frame of the same process.
type errFrameAmbiguous struct {
	window platform.Window
	frames []*node
}

func (e *errFrameAmbiguous) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v: the accessible frames of pid %d cannot be told apart for window %d %q (", platform.ErrFrameAmbiguous,
		e.window.ProcessID, e.window.Handle, e.window.Title)
	for i, n := range e.frames {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %q", n.role(), n.info.name)
	}
	b.WriteString("); bring the window to the foreground (window action foreground) and retry, or use capture and pixel input")
	return b.String()
}

func (e *errFrameAmbiguous) Unwrap() error { return platform.ErrFrameAmbiguous }

// matchFrame picks the frame of target among frames, given the other windows of the same
// process (which claim the frames that fit them better). It returns nil when no frame has
// anything in common with the window (a process with several frames none of which fits).
func matchFrame(frames []frameCandidate, target platform.Window, others []platform.Window) (*node, error) {
	if len(frames) == 1 && len(others) == 0 {
		return frames[0].node, nil
	}
	windows := append([]platform.Window{target}, others...)
	type pair struct {
		w, f  int
		score float64
	}
	var pairs []pair
	for wi, w := range windows {
		for fi, f := range frames {
			pairs = append(pairs, pair{wi, fi, frameScore(f, w)})
		}
	}
	// Greedy assignment, best pairs first: exact enough for the handful of windows a process
	// shows, and stable (ties keep the bottom-to-top window order and the application's frame
	// order).
	slices.SortStableFunc(pairs, func(a, b pair) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	frameOf := make([]int, len(windows))
	windowOf := make([]int, len(frames))
	for i := range frameOf {
		frameOf[i] = -1
	}
	for i := range windowOf {
		windowOf[i] = -1
	}
	for _, p := range pairs {
		if frameOf[p.w] == -1 && windowOf[p.f] == -1 {
			frameOf[p.w], windowOf[p.f] = p.f, p.w
		}
	}
	best := frameOf[0]
	if best == -1 {
		return nil, nil // more windows than frames, and the others fit every frame better
	}
	bestScore := frameScore(frames[best], target)
	if bestScore <= 0 && len(frames) > 1 {
		return nil, nil
	}
	// A frame that no other window claimed and that fits the target as well is a tie the clues
	// cannot break.
	ties := []*node{frames[best].node}
	for fi, f := range frames {
		if fi != best && windowOf[fi] == -1 && frameScore(f, target) > bestScore-frameTie {
			ties = append(ties, f.node)
		}
	}
	if len(ties) > 1 {
		return nil, &errFrameAmbiguous{window: target, frames: ties}
	}
	return frames[best].node, nil
}

// dialogWindow reports a window the window manager is told is a dialog: typed so, or transient
// for another window (toolkits that set no type still set WM_TRANSIENT_FOR on dialogs).
func dialogWindow(w platform.Window) bool {
	switch w.Type {
	case "dialog", "utility", "notification", "splash":
		return true
	case "normal":
		return false
	}
	return w.TransientFor != 0
}

// dialogRole reports frame roles that toolkits give dialogs.
func dialogRole(role string) bool {
	switch role {
	case "dialog", "alert", "file chooser", "color chooser", "font chooser":
		return true
	}
	return false
}

// overlap is the intersection of a and b over their union: 1 when they are the same rectangle,
// 0 when they do not meet or either is empty.
func overlap(a, b platform.Rect) float64 {
	if a.Empty() || b.Empty() {
		return 0
	}
	in := a.Intersect(b)
	if in.Empty() {
		return 0
	}
	inter := float64(in.Width) * float64(in.Height)
	union := float64(a.Width)*float64(a.Height) + float64(b.Width)*float64(b.Height) - inter
	return inter / union
}

// sizeOverlap compares sizes only, as if both rectangles stood at the origin.
func sizeOverlap(a, b platform.Rect) float64 {
	return overlap(platform.Rect{Width: a.Width, Height: a.Height}, platform.Rect{Width: b.Width, Height: b.Height})
}

// placedFrame is the window a frame was last matched to, and where the frame's (0,0) lies
// relative to the window's origin (placed false: no origin rule fits, so no bounds), found when
// the window had size w×h.
type placedFrame struct {
	handle uint32
	dx, dy int
	w, h   int
	placed bool
}

// rememberFrame notes which window a frame was matched to and where on it the frame's origin
// lies, so elements re-read by ref under it can be placed on screen by bridges that report
// window-relative extents.
func (c *Client) rememberFrame(frame objRef, win platform.Window, dx, dy int, placed bool) {
	pf := placedFrame{handle: win.Handle, dx: dx, dy: dy, placed: placed}
	if placed {
		// An unplaced frame keeps no size, so a read by ref looks again: no rule fits while a
		// window is between sizes (sway shows the new one before the toolkit has drawn it).
		pf.w, pf.h = win.Bounds.Width, win.Bounds.Height
	}
	c.mu.Lock()
	c.frames[frame] = pf
	c.mu.Unlock()
}

// windowOrigin is where on screen the (0,0) of the window-relative frame of window win lies:
// the window's origin, or what Options.Origin makes of it from the frame's extents (and those of
// the objects right below it when the frame is not the window's size); nil when no rule fits.
func (c *Client) windowOrigin(ctx context.Context, win platform.Window, frame *node, b bridge) (*platform.Point, error) {
	o := platform.Point{X: win.Bounds.X, Y: win.Bounds.Y}
	if c.opts.Origin == nil {
		return &o, nil
	}
	if frame.extents == nil {
		return nil, nil
	}
	var kids []platform.Rect
	if frame.extents.Width != win.Bounds.Width || frame.extents.Height != win.Bounds.Height {
		// Breadth first below the frame: Chromium's client area is its frame's great-grandchild.
		level := []objRef{frame.ref}
		for depth := 0; depth < originDepth && len(level) > 0 && len(kids) < originObjects; depth++ {
			var next []objRef
			for _, r := range level {
				refs, _, f, err := c.children(ctx, r)
				if err != nil && f.fatal() {
					return nil, err
				}
				for _, k := range refs[:min(len(refs), originObjects-len(kids))] {
					e, ok, f, err := c.extents(ctx, k, b.coordType())
					if err != nil && f.fatal() {
						return nil, err
					}
					if rect := extentsRect(e); ok && rect != nil {
						kids = append(kids, *rect)
					}
					next = append(next, k)
				}
			}
			level = next
		}
	}
	o, ok := c.opts.Origin(win, *frame.extents, kids)
	if !ok {
		return nil, nil
	}
	return &o, nil
}

// replaceFrame finds again where frame's origin lies on window w, as a walk would, and
// remembers it.
func (c *Client) replaceFrame(ctx context.Context, frame objRef, w platform.Window) (placedFrame, error) {
	b, err := c.bridgeOf(ctx, frame.Bus)
	if err != nil {
		return placedFrame{}, err
	}
	n := &node{ref: frame}
	e, ok, f, err := c.extents(ctx, frame, b.coordType())
	if err != nil && f.fatal() {
		return placedFrame{}, err
	}
	if ok {
		n.extents = extentsRect(e)
	}
	o, err := c.windowOrigin(ctx, w, n, b)
	if err != nil {
		return placedFrame{}, err
	}
	if o == nil {
		c.rememberFrame(frame, w, 0, 0, false)
	} else {
		c.rememberFrame(frame, w, o.X-w.Bounds.X, o.Y-w.Bounds.Y, true)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.frames[frame], nil
}

// How far below a frame, and how many objects, windowOrigin reads for the one that spans the
// client area (GTK 3's header bar is a child, Chromium's client view a great-grandchild).
const (
	originDepth   = 3
	originObjects = 24
)

// maxAncestors bounds the walk up from an element to its frame.
const maxAncestors = 64

// originOf finds the screen origin of the window that r lies in, for bridges with
// window-relative extents: up the parents to the top-level object, then the window that object
// was last matched to (its handle is returned too), moved onto the popover's surface when r lies
// in one (popups.go). nil when that is not known (no Tree has matched the frame yet, or the
// window is gone): the element then has no bounds rather than wrong ones.
func (c *Client) originOf(ctx context.Context, r objRef) (*platform.Point, uint32, error) {
	if c.opts.Window == nil {
		return nil, 0, nil
	}
	cur := r
	var below []objRef // r and its ancestors below the top-level object
	for range maxAncestors {
		var parent objRef
		f, err := c.property(ctx, cur.Bus, cur.Path, ifAccessible, "Parent", &parent)
		if err != nil {
			if f.fatal() {
				return nil, 0, err
			}
			return nil, 0, nil
		}
		if parent.null() || parent.Path == appRoot {
			break
		}
		below = append(below, cur)
		cur = parent
	}
	c.mu.Lock()
	pf, ok := c.frames[cur]
	c.mu.Unlock()
	if !ok && c.knownBridge(cur.Bus).vclShift {
		// LibreOffice: its VCL objects' parents lead to VCL's own frame of the window, which a
		// walk never reaches; GTK's frame of the same name is the one placed (vcl.go).
		if f, found := c.gtkFrameOf(ctx, cur); found {
			cur = f
			c.mu.Lock()
			pf, ok = c.frames[cur]
			c.mu.Unlock()
		}
	}
	if !ok {
		return nil, 0, nil
	}
	handle := pf.handle
	w, err := c.opts.Window(ctx, handle)
	if err != nil || w.Bounds.Empty() {
		return nil, 0, nil // gone, or its place is not known (any more)
	}
	if c.opts.WindowLocal && (w.Bounds.Width != pf.w || w.Bounds.Height != pf.h) {
		// Resized since the frame was placed, or not placed: the rule may differ now (GTK 3
		// drops its shadow when maximized or fullscreen), so it is found again.
		if pf, err = c.replaceFrame(ctx, cur, w); err != nil {
			return nil, 0, err
		}
	}
	if !pf.placed {
		return nil, 0, nil
	}
	if c.opts.WindowLocal {
		// On Wayland an object in a popup surface has no known place (inPopup).
		roles := make([]string, 0, len(below)+1)
		for _, b := range below {
			role, _, err := c.kind(ctx, b)
			if err != nil {
				return nil, 0, nil
			}
			name, _ := roleName(role)
			roles = append(roles, name)
		}
		role, _, err := c.kind(ctx, cur)
		if err != nil {
			return nil, 0, nil
		}
		name, _ := roleName(role)
		if popupChain(append(roles, name)) {
			return nil, 0, nil
		}
		if pop, err := c.inPopover(ctx, below); err != nil || pop {
			return nil, 0, err
		}
	}
	origin := platform.Point{X: w.Bounds.X + pf.dx, Y: w.Bounds.Y + pf.dy}
	dx, dy, err := c.popupShift(ctx, handle, below, origin)
	if err != nil {
		return nil, 0, err
	}
	return &platform.Point{X: origin.X + dx, Y: origin.Y + dy}, handle, nil
}
