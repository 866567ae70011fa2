package wayland

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/procname"
	"github.com/mcec/mcec/internal/wayland/kwin"
	"github.com/mcec/mcec/internal/wayland/wlclient"
)

// kwinComp drives KWin (KDE Plasma): windows, window operations and their events through KWin
// scripts, pixels through ScreenShot2, displays through xdg-output. KWin names windows by UUID;
// their handles are small numbers given in the order mcec first saw them, never reused while
// the connection lives.
type kwinComp struct {
	k  *kwin.Conn
	wl *wlclient.Client

	mu      sync.Mutex
	handles map[string]uint32
	ids     map[uint32]string
	seen    map[uint32]kwin.Window // as last listed, for Origin
}

func dialKWin(ctx context.Context, bus string, wl *wlclient.Client) (*kwinComp, error) {
	k, err := kwin.Dial(ctx, bus)
	if err != nil {
		return nil, fmt.Errorf("%w: KWin: %w", platform.ErrDisplayUnavailable, err)
	}
	return &kwinComp{k: k, wl: wl, handles: map[string]uint32{}, ids: map[uint32]string{}, seen: map[uint32]kwin.Window{}}, nil
}

func (c *kwinComp) Close() error { return c.k.Close() }

// WindowManagerName names KWin and its version ("KWin 5.27.5").
func (c *kwinComp) WindowManagerName(ctx context.Context) (string, error) {
	v, err := c.k.Version(ctx)
	if err != nil {
		return "", kwinErr(err)
	}
	return "KWin " + v, nil
}

// handle is the window's handle, given on first sight.
func (c *kwinComp) handle(id string) uint32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.handles[id]
	if !ok {
		h = uint32(len(c.handles) + 1)
		c.handles[id], c.ids[h] = h, id
	}
	return h
}

// list reads KWin's windows, bottom to top, and remembers them.
func (c *kwinComp) list(ctx context.Context) ([]kwin.Window, error) {
	ws, err := c.k.Windows(ctx)
	if err != nil {
		return nil, kwinErr(err)
	}
	seen := make(map[uint32]kwin.Window, len(ws))
	for _, w := range ws {
		seen[c.handle(w.ID)] = w
	}
	c.mu.Lock()
	c.seen = seen
	c.mu.Unlock()
	return ws, nil
}

// Windows lists the application windows in stacking order, bottom to top.
func (c *kwinComp) Windows(ctx context.Context) ([]platform.Window, error) {
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

// Window re-describes one window; ErrWindowClosed when KWin no longer has it.
func (c *kwinComp) Window(ctx context.Context, handle uint32) (platform.Window, error) {
	w, err := c.find(ctx, handle)
	if err != nil {
		return platform.Window{}, err
	}
	return c.describe(w), nil
}

func (c *kwinComp) find(ctx context.Context, handle uint32) (kwin.Window, error) {
	ws, err := c.list(ctx)
	if err != nil {
		return kwin.Window{}, err
	}
	c.mu.Lock()
	id := c.ids[handle]
	c.mu.Unlock()
	for _, w := range ws {
		if w.ID == id {
			return w, nil
		}
	}
	return kwin.Window{}, fmt.Errorf("%w: window %d", platform.ErrWindowClosed, handle)
}

func (c *kwinComp) describe(w kwin.Window) platform.Window {
	p := platform.Window{
		Handle:     c.handle(w.ID),
		Title:      kwinTitle(w.Caption),
		ClassName:  w.ResourceClass,
		ProcessID:  w.PID,
		Bounds:     kwinClientArea(w),
		Minimized:  w.Minimized,
		Maximized:  w.Maximized,
		Fullscreen: w.FullScreen,
		Focused:    w.Active,
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

// kwinTitle is a window's title without the " <2>" KWin appends to the captions of windows
// whose titles an earlier window has already (KWin 5.27 offers scripts no caption without it).
// A title that really ends so loses its suffix too.
func kwinTitle(caption string) string {
	if base, n, ok := cutCaptionSuffix(caption); ok && n >= 2 {
		return base
	}
	return caption
}

// cutCaptionSuffix splits "title <N>" into title and N.
func cutCaptionSuffix(s string) (string, int, bool) {
	i := strings.LastIndex(s, " <")
	if i < 0 || !strings.HasSuffix(s, ">") {
		return s, 0, false
	}
	n, err := strconv.Atoi(s[i+2 : len(s)-1])
	if err != nil || n < 0 {
		return s, 0, false
	}
	return s[:i], n, true
}

// kwinClientArea is the window's client area: the surface when it lies inside the frame (KWin
// draws the decoration around it), else the frame, which for a window drawing its own
// decoration and shadow is its window geometry, inside the surface.
func kwinClientArea(w kwin.Window) platform.Rect {
	f, b := rect(w.Frame), rect(w.Buffer)
	if !b.Empty() && f.Contains(b) {
		return b
	}
	return f
}

func rect(r kwin.Rect) platform.Rect {
	return platform.Rect{X: r.X, Y: r.Y, Width: r.Width, Height: r.Height}
}

// Origin places a window's accessibility extents: at the surface's corner when the frame has
// the surface's size (GTK 3 with its shadow, Chromium, Firefox, Qt decorated by KWin), at the
// client area's when it has that size (GTK 4), else by sway's rules on the client area.
func (c *kwinComp) Origin(w platform.Window, frame platform.Rect, children []platform.Rect) (platform.Point, bool) {
	if w.Server == platform.ServerXWayland {
		return platform.Point{}, true // an X11 program's extents are X screen coordinates: the layout's
	}
	c.mu.Lock()
	kw, ok := c.seen[w.Handle]
	c.mu.Unlock()
	if ok && !frame.Empty() {
		if b := rect(kw.Buffer); frame.Width == b.Width && frame.Height == b.Height {
			return platform.Point{X: b.X - frame.X, Y: b.Y - frame.Y}, true
		}
	}
	return origin(w.Bounds, frame, children)
}

// WindowOp changes a window through a KWin script. Move and resize set the frame so that the
// client area lands where asked.
func (c *kwinComp) WindowOp(ctx context.Context, handle uint32, op platform.WindowOp) error {
	w, err := c.find(ctx, handle)
	if err != nil {
		return err
	}
	var kop kwin.Op
	switch op.Kind {
	case platform.OpMove, platform.OpResize:
		f, a := rect(w.Frame), kwinClientArea(w)
		g := kwin.Rect{X: f.X, Y: f.Y, Width: f.Width, Height: f.Height}
		if op.Kind == platform.OpMove {
			g.X, g.Y = op.X-(a.X-f.X), op.Y-(a.Y-f.Y)
		} else {
			g.Width, g.Height = op.Width+f.Width-a.Width, op.Height+f.Height-a.Height
		}
		kop = kwin.Op{Kind: "geometry", Frame: g}
	case platform.OpMinimize:
		kop.Kind = "minimize"
	case platform.OpMaximize:
		kop.Kind = "maximize"
	case platform.OpRestore:
		kop.Kind = "restore"
	case platform.OpActivate:
		kop.Kind = "activate"
	default:
		return fmt.Errorf("%w: window operation %q", platform.ErrUnsupported, op.Kind)
	}
	return kwinErr(c.k.Do(ctx, w.ID, kop))
}

// WatchWindows reports changes of KWin's windows, coalesced, until ctx ends.
func (c *kwinComp) WatchWindows(ctx context.Context) (<-chan struct{}, error) {
	ch, err := c.k.Watch(ctx)
	return ch, kwinErr(err)
}

// Displays lists the outputs as xdg-output describes them; the one at the layout's origin is
// the primary one.
func (c *kwinComp) Displays(ctx context.Context) (platform.Displays, error) {
	return outputDisplays(ctx, c.wl)
}

// CaptureRect grabs the on-screen pixels of r through ScreenShot2.
func (c *kwinComp) CaptureRect(ctx context.Context, r platform.Rect) (*image.RGBA, error) {
	img, err := c.k.CaptureArea(ctx, image.Rect(r.X, r.Y, r.X+r.Width, r.Y+r.Height))
	if err != nil {
		if err = kwinErr(err); ctx.Err() == nil {
			return nil, fmt.Errorf("%w: %w", platform.ErrCaptureFailed, err)
		}
		return nil, err
	}
	return img, nil
}

// CaptureWindow grabs the screen's pixels in the window's client area, restoring a minimized
// window first (Restored), as on X11; Fallback says another window lies over part of it.
func (c *kwinComp) CaptureWindow(ctx context.Context, handle uint32) (platform.WindowCapture, error) {
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

// kwinAuthorizeHint says how a Plasma user lets mcec capture and send input.
const kwinAuthorizeHint = "run `mcec setup kde` (it installs a desktop file naming mcec, docs/wayland.md), then restart mcec"

// kwinErr converts KWin's failures to the platform's.
func kwinErr(err error) error {
	var se *kwin.ScriptError
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, kwin.ErrNoWindow):
		return fmt.Errorf("%w: %w", platform.ErrWindowClosed, err)
	case errors.Is(err, kwin.ErrNotAuthorized):
		return fmt.Errorf("%w: %w; %s", platform.ErrCompositorUnsupported, err, kwinAuthorizeHint)
	case errors.As(err, &se):
		return fmt.Errorf("%w: %w", platform.ErrCompositorUnsupported, err)
	}
	return fmt.Errorf("%w: %w", platform.ErrDisplayUnavailable, err)
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
