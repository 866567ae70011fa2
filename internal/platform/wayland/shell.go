package wayland

import (
	"context"
	"fmt"
	"image"
	"math"
	"sync"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/procname"
	"github.com/mcec/mcec/internal/wayland/wlclient"
)

// shellComp drives a compositor through a shell: a component inside it that lists windows with
// their frame and surface rectangles, changes them, reports their changes and reads pixels
// (KWin's scripts and ScreenShot2, kwin.go; mcec's GNOME Shell extension, gnome.go). Displays
// come from xdg-output. Shells name windows by strings; their handles are small numbers given
// in the order mcec first saw them, never reused while the connection lives.
type shellComp struct {
	sh shell
	wl *wlclient.Client

	mu      sync.Mutex
	handles map[string]uint32
	ids     map[uint32]string
	seen    map[uint32]shellWindow // as last listed, for Origin
	popups  []shellWindow          // as last listed, for PopupSurface
}

// shell is one compositor's way in. Its errors are the platform's already.
type shell interface {
	name(ctx context.Context) (string, error)
	windows(ctx context.Context) ([]shellWindow, error) // bottom to top
	// do applies "activate", "minimize", "maximize", "restore" or "geometry" (which sets the
	// window's frame to frame).
	do(ctx context.Context, id, op string, frame platform.Rect) error
	watch(ctx context.Context) (<-chan struct{}, error)
	capture(ctx context.Context, r image.Rectangle) (*image.RGBA, error)
	// input makes the pointer and keyboard mcec drives (keys are evdev codes read through the
	// session's keymap).
	input(ctx context.Context, wl *wlclient.Client) (pointerDevice, keyDevice, error)
	// layout is the XKB layout ("us", "de(nodeadkeys)") the session reads keys through.
	layout(ctx context.Context) (string, error)
	close() error
}

// shellClipboard is a shell that serves the clipboard itself (GNOME Shell: mutter offers no
// data-control).
type shellClipboard interface {
	clipboardGet(ctx context.Context) (string, error)
	clipboardSet(ctx context.Context, text string) error
}

// shellWindow is a window as a shell describes it: Frame is its frame (the decoration included
// where the compositor draws one), Buffer its surface (a client-side shadow included).
type shellWindow struct {
	ID, Title, Class                                         string
	PID                                                      int
	Frame, Buffer                                            platform.Rect
	Minimized, Maximized, Fullscreen, Focused, Modal, Dialog bool
	TransientFor                                             string // the parent's ID
	X11                                                      bool   // an X11 program under Xwayland
	Popup                                                    bool   // a popup surface (a menu, a list): not a window of its own
}

func newShellComp(sh shell, wl *wlclient.Client) *shellComp {
	return &shellComp{sh: sh, wl: wl, handles: map[string]uint32{}, ids: map[uint32]string{}, seen: map[uint32]shellWindow{}}
}

func (c *shellComp) Close() error { return c.sh.close() }

// WindowManagerName names the compositor and its version ("KWin 5.27.5").
func (c *shellComp) WindowManagerName(ctx context.Context) (string, error) { return c.sh.name(ctx) }

// handle is the window's handle, given on first sight.
func (c *shellComp) handle(id string) uint32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.handles[id]
	if !ok {
		h = uint32(len(c.handles) + 1)
		c.handles[id], c.ids[h] = h, id
	}
	return h
}

// list reads the windows, bottom to top, and remembers them.
func (c *shellComp) list(ctx context.Context) ([]shellWindow, error) {
	all, err := c.sh.windows(ctx)
	if err != nil {
		return nil, err
	}
	ws := make([]shellWindow, 0, len(all))
	var popups []shellWindow
	seen := make(map[uint32]shellWindow, len(all))
	for _, w := range all {
		if w.Popup {
			popups = append(popups, w)
			continue
		}
		ws = append(ws, w)
		seen[c.handle(w.ID)] = w
	}
	c.mu.Lock()
	c.seen, c.popups = seen, popups
	c.mu.Unlock()
	return ws, nil
}

// Windows lists the application windows in stacking order, bottom to top.
func (c *shellComp) Windows(ctx context.Context) ([]platform.Window, error) {
	ws, err := c.list(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]platform.Window, 0, len(ws))
	for _, w := range ws {
		out = append(out, c.describe(w))
	}
	return out, nil
}

// Window re-describes one window; ErrWindowClosed when the compositor no longer has it.
func (c *shellComp) Window(ctx context.Context, handle uint32) (platform.Window, error) {
	w, err := c.find(ctx, handle)
	if err != nil {
		return platform.Window{}, err
	}
	return c.describe(w), nil
}

func (c *shellComp) find(ctx context.Context, handle uint32) (shellWindow, error) {
	ws, err := c.list(ctx)
	if err != nil {
		return shellWindow{}, err
	}
	c.mu.Lock()
	id := c.ids[handle]
	c.mu.Unlock()
	for _, w := range ws {
		if w.ID == id {
			return w, nil
		}
	}
	return shellWindow{}, fmt.Errorf("%w: window %d", platform.ErrWindowClosed, handle)
}

func (c *shellComp) describe(w shellWindow) platform.Window {
	p := platform.Window{
		Handle:     c.handle(w.ID),
		Title:      w.Title,
		ClassName:  w.Class,
		ProcessID:  w.PID,
		Bounds:     clientAreaOf(w),
		Minimized:  w.Minimized,
		Maximized:  w.Maximized,
		Fullscreen: w.Fullscreen,
		Focused:    w.Focused,
		Modal:      w.Modal,
		Type:       "normal",
		Server:     platform.ServerWayland,
	}
	if w.X11 {
		p.Server = platform.ServerXWayland
	}
	if w.Dialog {
		p.Type = "dialog"
	}
	if w.TransientFor != "" {
		p.TransientFor = c.handle(w.TransientFor)
	}
	if p.ProcessID > 0 {
		p.ProcessName = procname.Of(p.ProcessID)
	}
	return p
}

// clientAreaOf is the window's client area: the surface when it lies inside the frame (the
// compositor draws the decoration around it), else the frame, which for a window drawing its
// own decoration and shadow is its window geometry, inside the surface.
func clientAreaOf(w shellWindow) platform.Rect {
	if !w.Buffer.Empty() && w.Frame.Contains(w.Buffer) {
		return w.Buffer
	}
	return w.Frame
}

// Origin places a window's accessibility extents: at the surface's corner when the frame has
// the surface's size (GTK 3 with its shadow, Chromium, Firefox, Qt decorated by the compositor),
// at the client area's when it has that size (GTK 4), by the child that spans the client area
// when a shadow surrounds it (origin); and a frame smaller than a surface whose margin is even
// at the sides and the bottom sits below a title bar of the surface's own (Qt drawing its
// decorations, on GNOME: 700x500 in a 706x533 surface, at 3,30).
func (c *shellComp) Origin(w platform.Window, frame platform.Rect, children []platform.Rect) (platform.Point, bool) {
	if w.Server == platform.ServerXWayland {
		return platform.Point{}, true // an X11 program's extents are X screen coordinates: the layout's
	}
	c.mu.Lock()
	sw, ok := c.seen[w.Handle]
	c.mu.Unlock()
	if !ok || frame.Empty() {
		return origin(w.Bounds, frame, children)
	}
	b := sw.Buffer
	if frame.Width == b.Width && frame.Height == b.Height {
		return platform.Point{X: b.X - frame.X, Y: b.Y - frame.Y}, true
	}
	if p, ok := origin(w.Bounds, frame, children); ok {
		return p, true
	}
	side := (b.Width - frame.Width) / 2
	if top := b.Height - frame.Height - side; side >= 0 && (b.Width-frame.Width)%2 == 0 && top > side && frame.Width < b.Width {
		return platform.Point{X: b.X + side - frame.X, Y: b.Y + top - frame.Y}, true
	}
	return platform.Point{}, false
}

// PopupSurface finds the popup of process pid whose frame or surface has the size of the
// popup's highest object (top, in the surface's coordinates) and answers the surface's corner;
// the topmost such popup when several do. Shells that list no popups (KWin 5.27) never find one.
func (c *shellComp) PopupSurface(ctx context.Context, pid int, top platform.Rect) (platform.Point, bool) {
	if _, err := c.list(ctx); err != nil {
		return platform.Point{}, false
	}
	c.mu.Lock()
	popups := c.popups
	c.mu.Unlock()
	for i := len(popups) - 1; i >= 0; i-- {
		p := popups[i]
		if p.PID != pid {
			continue
		}
		f, b := p.Frame, p.Buffer
		frameFits := f.Width == top.Width && f.Height == top.Height && f.X-b.X == top.X && f.Y-b.Y == top.Y
		surfaceFits := b.Width == top.Width && b.Height == top.Height && top.X == 0 && top.Y == 0
		if frameFits || surfaceFits {
			return platform.Point{X: b.X, Y: b.Y}, true
		}
	}
	return platform.Point{}, false
}

// WindowOp changes a window through the shell. Move and resize set the frame so that the client
// area lands where asked.
func (c *shellComp) WindowOp(ctx context.Context, handle uint32, op platform.WindowOp) error {
	w, err := c.find(ctx, handle)
	if err != nil {
		return err
	}
	var name string
	g := w.Frame
	switch op.Kind {
	case platform.OpMove, platform.OpResize:
		a := clientAreaOf(w)
		if op.Kind == platform.OpMove {
			g.X, g.Y = op.X-(a.X-w.Frame.X), op.Y-(a.Y-w.Frame.Y)
		} else {
			g.Width, g.Height = op.Width+w.Frame.Width-a.Width, op.Height+w.Frame.Height-a.Height
		}
		name = "geometry"
	case platform.OpMinimize:
		name = "minimize"
	case platform.OpMaximize:
		name = "maximize"
	case platform.OpRestore:
		name = "restore"
	case platform.OpActivate:
		name = "activate"
	default:
		return fmt.Errorf("%w: window operation %q", platform.ErrUnsupported, op.Kind)
	}
	return c.sh.do(ctx, w.ID, name, g)
}

// WatchWindows reports changes of the windows, coalesced, until ctx ends.
func (c *shellComp) WatchWindows(ctx context.Context) (<-chan struct{}, error) {
	return c.sh.watch(ctx)
}

// Displays lists the outputs as xdg-output describes them; the one at the layout's origin is
// the primary one.
func (c *shellComp) Displays(ctx context.Context) (platform.Displays, error) {
	return outputDisplays(ctx, c.wl)
}

// CaptureRect grabs the on-screen pixels of r.
func (c *shellComp) CaptureRect(ctx context.Context, r platform.Rect) (*image.RGBA, error) {
	img, err := c.sh.capture(ctx, image.Rect(r.X, r.Y, r.X+r.Width, r.Y+r.Height))
	if err != nil {
		if ctx.Err() == nil {
			return nil, fmt.Errorf("%w: %w", platform.ErrCaptureFailed, err)
		}
		return nil, err
	}
	return img, nil
}

// CaptureWindow grabs the screen's pixels in the window's client area, restoring a minimized
// window first (Restored), as on X11; Fallback says another window lies over part of it.
func (c *shellComp) CaptureWindow(ctx context.Context, handle uint32) (platform.WindowCapture, error) {
	var wc platform.WindowCapture
	w, err := c.Window(ctx, handle)
	if err != nil {
		return wc, err
	}
	if w.Minimized {
		if err := c.WindowOp(ctx, handle, platform.WindowOp{Kind: platform.OpRestore}); err != nil {
			return wc, err
		}
		wc.Restored = true
		if w, err = c.Window(ctx, handle); err != nil {
			return wc, err
		}
	}
	ws, err := c.Windows(ctx)
	if err != nil {
		return wc, err
	}
	above := false
	for _, o := range ws {
		if o.Handle == handle {
			above = true
		} else if above && !o.Minimized && !o.Bounds.Intersect(w.Bounds).Empty() {
			wc.Fallback = true
		}
	}
	img, err := c.CaptureRect(ctx, w.Bounds)
	if err != nil {
		return wc, err
	}
	wc.Image = img
	return wc, nil
}

// outputDisplays describes the outputs the Wayland connection knows.
func outputDisplays(ctx context.Context, wl *wlclient.Client) (platform.Displays, error) {
	outs, err := wl.Outputs(ctx)
	if err != nil {
		return platform.Displays{}, wlErr("read the outputs", err)
	}
	var ds platform.Displays
	primary := -1
	for _, o := range outs {
		b := platform.Rect{X: o.X, Y: o.Y, Width: o.Width, Height: o.Height}
		if b.Empty() {
			continue
		}
		scale := 1.0
		if o.Scale > 0 {
			scale = float64(o.Scale)
		}
		m := platform.Monitor{Index: len(ds.Monitors), Name: o.Name, Bounds: b, WorkingArea: b,
			Scale: math.Round(scale*100) / 100, DPI: math.Round(96*scale*100) / 100}
		if primary < 0 || b.X == 0 && b.Y == 0 {
			primary = m.Index
		}
		ds.Monitors = append(ds.Monitors, m)
		ds.VirtualBounds = union(ds.VirtualBounds, b)
	}
	if len(ds.Monitors) == 0 {
		return platform.Displays{}, fmt.Errorf("%w: the compositor reports no output", platform.ErrDisplayUnavailable)
	}
	ds.Monitors[primary].Primary = true
	return ds, nil
}
