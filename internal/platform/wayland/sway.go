package wayland

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/procname"
	"github.com/mcec/mcec/internal/sysload"
	"github.com/mcec/mcec/internal/wayland/swayipc"
	"github.com/mcec/mcec/internal/wayland/wlclient"
)

// sway drives sway and other compositors that speak its IPC: windows, window operations and
// their events through the IPC, pixels through wlr-screencopy. A window's handle is its sway
// container id: unique for the compositor's life, never reused.
type sway struct {
	socket string // the IPC socket
	ipc    *swayipc.Conn
	wl     *wlclient.Client
}

func dialSway(ctx context.Context, socket string, wl *wlclient.Client) (*sway, error) {
	ipc, err := swayipc.Dial(ctx, socket)
	if err != nil {
		return nil, fmt.Errorf("%w: sway IPC %s: %w", platform.ErrDisplayUnavailable, socket, err)
	}
	return &sway{socket: socket, ipc: ipc, wl: wl}, nil
}

func (s *sway) Close() error { return s.ipc.Close() }

// WindowManagerName names the compositor and its version ("sway 1.7").
func (s *sway) WindowManagerName(ctx context.Context) (string, error) {
	v, err := s.ipc.Version(ctx)
	if err != nil {
		return "", s.ipcErr(err)
	}
	return "sway " + v.HumanReadable, nil
}

// ipcErr converts a failure of sway's IPC: the compositor is gone or stuck.
func (s *sway) ipcErr(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var cmd *swayipc.CommandError
	if errors.As(err, &cmd) {
		return err
	}
	return fmt.Errorf("%w: sway IPC: %w", platform.ErrDisplayUnavailable, err)
}

// Windows lists the application windows in sway's tree: tiled ones first, then floating ones in
// stacking order (bottom to top), as platform.WindowReader promises; scratchpad (minimized)
// windows last.
func (s *sway) Windows(ctx context.Context) ([]platform.Window, error) {
	views, err := s.views(ctx)
	if err != nil {
		return nil, err
	}
	parents := s.parents(ctx, views)
	out := make([]platform.Window, 0, len(views))
	for _, v := range views {
		out = append(out, describe(v, parents))
	}
	return out, nil
}

// Window re-describes one window; ErrWindowClosed when sway no longer has it.
func (s *sway) Window(ctx context.Context, handle uint32) (platform.Window, error) {
	views, err := s.views(ctx)
	if err != nil {
		return platform.Window{}, err
	}
	for _, v := range views {
		if uint32(v.Node.ID) == handle {
			return describe(v, s.parents(ctx, views)), nil
		}
	}
	return platform.Window{}, fmt.Errorf("%w: window %d", platform.ErrWindowClosed, handle)
}

// view is one application window of sway's tree, with the rectangle of its workspace.
type view struct {
	swayipc.View
	workspace platform.Rect
}

// views reads sway's tree and returns its application windows in stacking order.
func (s *sway) views(ctx context.Context) ([]view, error) {
	tree, err := s.ipc.Tree(ctx)
	if err != nil {
		return nil, s.ipcErr(err)
	}
	workspaces := map[string]platform.Rect{}
	tree.Walk(func(n *swayipc.Node, _ []*swayipc.Node) bool {
		if n.Type == "workspace" {
			workspaces[n.Name] = rectOf(n.Rect)
			return false
		}
		return true
	})
	// Scratchpad windows are not on screen: after everything that is.
	var shown, hidden []view
	for _, v := range tree.Views() {
		if v.Scratchpad {
			hidden = append(hidden, view{View: v})
		} else {
			shown = append(shown, view{View: v, workspace: workspaces[v.Workspace]})
		}
	}
	return append(shown, hidden...), nil
}

// describe turns a sway view into a platform window; parents maps windows to the windows they
// are transient for.
func describe(v view, parents map[uint32]uint32) platform.Window {
	n := v.Node
	w := platform.Window{
		Handle:     uint32(n.ID),
		Title:      n.Name,
		ProcessID:  n.PID,
		Bounds:     clientArea(n),
		Minimized:  v.Scratchpad,
		Fullscreen: n.FullscreenMode != 0,
		Focused:    n.Focused,
		Type:       "normal",
		Server:     platform.ServerWayland,
	}
	if n.Shell == "xwayland" {
		w.Server = platform.ServerXWayland
	}
	switch {
	case n.AppID != nil:
		w.ClassName = *n.AppID
	case n.WindowProperties != nil:
		w.ClassName = n.WindowProperties.Class
	}
	if w.ProcessID > 0 {
		w.ProcessName = procname.Of(w.ProcessID)
	}
	// Maximized: mcec's desktop floats every window, so a tiled one was maximized (OpMaximize);
	// on a tiling session a tiled window counts only when it fills its workspace.
	w.Maximized = !v.Floating && !v.Scratchpad && w.Bounds == v.workspace
	if p := parents[w.Handle]; p != 0 {
		w.TransientFor, w.Type = p, "dialog"
	}
	return w
}

// clientArea is a view's client area in layout coordinates: the container's rectangle moved by
// the view's offset in it (its border and title bar; none on mcec's desktop).
func clientArea(n *swayipc.Node) platform.Rect {
	if n.WindowRect.Width <= 0 || n.WindowRect.Height <= 0 {
		return platform.Rect{X: n.Rect.X, Y: n.Rect.Y, Width: n.Rect.Width, Height: n.Rect.Height}
	}
	return platform.Rect{X: n.Rect.X + n.WindowRect.X, Y: n.Rect.Y + n.WindowRect.Y,
		Width: n.WindowRect.Width, Height: n.WindowRect.Height}
}

// Displays lists sway's active outputs. The output at the layout's origin is the primary one
// (Wayland has no primary output); its working area is its current workspace's rectangle, which
// leaves out bars and panels.
func (s *sway) Displays(ctx context.Context) (platform.Displays, error) {
	outs, err := s.ipc.Outputs(ctx)
	if err != nil {
		return platform.Displays{}, s.ipcErr(err)
	}
	areas := map[string]platform.Rect{}
	if tree, err := s.ipc.Tree(ctx); err == nil {
		tree.Walk(func(n *swayipc.Node, parents []*swayipc.Node) bool {
			if n.Type == "workspace" && len(parents) > 0 {
				if o := parents[len(parents)-1]; o.Type == "output" && n.Visible != nil && *n.Visible {
					areas[o.Name] = rectOf(n.Rect)
				}
			}
			return n.Type != "workspace"
		})
	}
	var ds platform.Displays
	var all platform.Rect
	primary := -1
	for _, o := range outs {
		if !o.Active {
			continue
		}
		b := rectOf(o.Rect)
		scale := o.Scale
		if scale <= 0 {
			scale = 1
		}
		m := platform.Monitor{Index: len(ds.Monitors), Name: o.Name, Bounds: b, WorkingArea: b,
			Scale: math.Round(scale*100) / 100, DPI: math.Round(96*scale*100) / 100}
		if a, ok := areas[o.Name]; ok && !a.Empty() && b.Contains(a) {
			m.WorkingArea = a
		}
		if primary < 0 || b.X == 0 && b.Y == 0 {
			primary = m.Index
		}
		ds.Monitors = append(ds.Monitors, m)
		all = union(all, b)
	}
	if len(ds.Monitors) == 0 {
		return platform.Displays{}, fmt.Errorf("%w: sway reports no active output", platform.ErrDisplayUnavailable)
	}
	ds.Monitors[primary].Primary = true
	ds.VirtualBounds = all
	return ds, nil
}

// parents maps each window that is transient for another (a dialog) to that window. sway's IPC
// names the parent of Xwayland windows only (WM_TRANSIENT_FOR); for Wayland windows it comes
// from wlr-foreign-toplevel, whose windows carry no id sway knows: they are matched by
// application id and title, and only where that pair names one window on both sides.
func (s *sway) parents(ctx context.Context, views []view) map[uint32]uint32 {
	out := map[uint32]uint32{}
	byKey := map[[2]string][]uint32{}
	for _, v := range views {
		n := v.Node
		if p := n.WindowProperties; p != nil && p.TransientFor != nil {
			for _, o := range views {
				if o.Node.Window != nil && *o.Node.Window == *p.TransientFor {
					out[uint32(n.ID)] = uint32(o.Node.ID)
				}
			}
		}
		if n.AppID != nil {
			k := [2]string{*n.AppID, n.Name}
			byKey[k] = append(byKey[k], uint32(n.ID))
		}
	}
	tops, err := s.wl.Toplevels(ctx)
	if err != nil {
		return out
	}
	topKey := map[uint32][2]string{}
	topsOf := map[[2]string]int{}
	for _, t := range tops {
		k := [2]string{t.AppID, t.Title}
		topKey[t.ID] = k
		topsOf[k]++
	}
	for _, t := range tops {
		k, pk := topKey[t.ID], topKey[t.Parent]
		if t.Parent == 0 || topsOf[k] != 1 || topsOf[pk] != 1 || len(byKey[k]) != 1 || len(byKey[pk]) != 1 {
			continue
		}
		out[byKey[k][0]] = byKey[pk][0]
	}
	return out
}

func rectOf(r swayipc.Rect) platform.Rect {
	return platform.Rect{X: r.X, Y: r.Y, Width: r.Width, Height: r.Height}
}

// union is the smallest rectangle holding a and b (a empty: b).
func union(a, b platform.Rect) platform.Rect {
	if a.Empty() {
		return b
	}
	x0, y0 := min(a.X, b.X), min(a.Y, b.Y)
	x1, y1 := max(a.X+a.Width, b.X+b.Width), max(a.Y+a.Height, b.Y+b.Height)
	return platform.Rect{X: x0, Y: y0, Width: x1 - x0, Height: y1 - y0}
}

// WatchWindows reports changes of sway's windows and workspaces, coalesced: one value per burst,
// never queued without bound, until ctx ends.
func (s *sway) WatchWindows(ctx context.Context) (<-chan struct{}, error) {
	events, err := swayipc.Subscribe(ctx, s.socket, "window", "workspace")
	if err != nil {
		return nil, s.ipcErr(err)
	}
	out := make(chan struct{}, 1)
	go func() {
		defer close(out)
		for range events {
			select {
			case out <- struct{}{}:
			default: // a wake-up is pending already
			}
		}
	}()
	return out, nil
}

// WindowOp changes a window through sway's commands. sway has no minimized or maximized state
// of its own: minimize moves the window to the scratchpad (hidden, as a minimized window is),
// maximize tiles it (mcec's desktop floats every other window, so it fills its workspace), and
// restore undoes either. Only floating windows can be moved or resized by position.
func (s *sway) WindowOp(ctx context.Context, handle uint32, op platform.WindowOp) error {
	views, err := s.views(ctx)
	if err != nil {
		return err
	}
	var v *view
	for i := range views {
		if uint32(views[i].Node.ID) == handle {
			v = &views[i]
		}
	}
	if v == nil {
		return fmt.Errorf("%w: window %d", platform.ErrWindowClosed, handle)
	}
	sel := fmt.Sprintf("[con_id=%d] ", v.Node.ID)
	area := clientArea(v.Node)
	var cmd string
	switch op.Kind {
	case platform.OpMove, platform.OpResize:
		if !v.Floating || v.Scratchpad {
			return fmt.Errorf("%w: sway places a tiled or hidden window itself; restore it first (window action restore), then %s it",
				platform.ErrCompositorUnsupported, op.Kind)
		}
		// The container's rectangle holds the client area plus its border: move and size that.
		if op.Kind == platform.OpMove {
			cmd = sel + fmt.Sprintf("move absolute position %d %d", op.X-(area.X-v.Node.Rect.X), op.Y-(area.Y-v.Node.Rect.Y))
		} else {
			// sway keeps a floating window's centre on a resize; mcec keeps its top-left corner,
			// as the X11 window managers and the other compositors do.
			cmd = sel + fmt.Sprintf("resize set width %d px height %d px, move absolute position %d %d",
				op.Width+v.Node.Rect.Width-area.Width, op.Height+v.Node.Rect.Height-area.Height, v.Node.Rect.X, v.Node.Rect.Y)
		}
	case platform.OpMinimize:
		if v.Scratchpad {
			return nil
		}
		cmd = sel + "move scratchpad"
	case platform.OpMaximize:
		cmd = sel + "fullscreen disable; " + sel + "floating disable"
		if v.Scratchpad {
			cmd = sel + "scratchpad show; " + cmd
		}
	case platform.OpRestore:
		switch {
		case v.Scratchpad:
			// scratchpad show brings it back floating, onto the focused workspace.
			cmd = sel + "scratchpad show"
		case v.Node.FullscreenMode != 0:
			cmd = sel + "fullscreen disable"
		case !v.Floating:
			cmd = sel + "floating enable"
		default:
			return nil
		}
	case platform.OpActivate:
		cmd = sel + "focus"
		if v.Scratchpad {
			cmd = sel + "scratchpad show; " + cmd
		}
	default:
		return fmt.Errorf("%w: window operation %q", platform.ErrUnsupported, op.Kind)
	}
	if err := s.ipc.Command(ctx, cmd); err != nil {
		var ce *swayipc.CommandError
		if errors.As(err, &ce) {
			return fmt.Errorf("%w: sway refused %q: %s", platform.ErrCompositorUnsupported, ce.Command, ce.Message)
		}
		return s.ipcErr(err)
	}
	if op.Kind == platform.OpResize {
		s.awaitResizeAnswer(ctx, handle, platform.Rect{Width: op.Width, Height: op.Height})
	}
	return nil
}

// resizeAnswer bounds the wait for a client's answer to a resize (stretched by the load).
const resizeAnswer = 300 * time.Millisecond

// awaitResizeAnswer waits, at most resizeAnswer, for the client to answer a resize of its window
// to want's size. sway gives the container the new size at once and the client's own size when
// it commits: gtk4-widget-factory, asked for 1000x700, was 1000x700 in sway's tree for some
// 50 ms and then 1391x757, its smallest, so a window read at once passed for resized. A client
// that takes the size changes nothing more, which cannot be told from one that has not
// answered yet: that costs the whole wait.
func (s *sway) awaitResizeAnswer(ctx context.Context, handle uint32, want platform.Rect) {
	ctx, cancel := context.WithTimeout(ctx, sysload.Scale(resizeAnswer))
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		views, err := s.views(ctx)
		if err != nil {
			return
		}
		for _, v := range views {
			if uint32(v.Node.ID) == handle {
				if a := clientArea(v.Node); a.Width != want.Width || a.Height != want.Height {
					return // the client chose another size: that is the answer
				}
			}
		}
	}
}

// CaptureRect grabs the on-screen pixels of r through wlr-screencopy.
func (s *sway) CaptureRect(ctx context.Context, r platform.Rect) (*image.RGBA, error) {
	return screencopy(ctx, s.wl, r)
}

// screencopy grabs the on-screen pixels of r through wlr-screencopy (every wlroots compositor).
func screencopy(ctx context.Context, wl *wlclient.Client, r platform.Rect) (*image.RGBA, error) {
	img, err := wl.Capture(ctx, image.Rect(r.X, r.Y, r.X+r.Width, r.Y+r.Height))
	if err != nil {
		if err = wlErr("capture", err); ctx.Err() == nil {
			return nil, fmt.Errorf("%w: %w", platform.ErrCaptureFailed, err)
		}
		return nil, err
	}
	return img, nil
}

// CaptureWindow grabs what is on screen in the window's client area. wlroots 0.15 offers no
// capture of one window's own surface, so the image is the screen's pixels there: Fallback
// says so when another window lies over part of it. A minimized (scratchpad) window is restored
// first (Restored), as on X11.
func (s *sway) CaptureWindow(ctx context.Context, handle uint32) (platform.WindowCapture, error) {
	w, err := s.Window(ctx, handle)
	if err != nil {
		return platform.WindowCapture{}, err
	}
	var wc platform.WindowCapture
	if w.Minimized {
		if err := s.WindowOp(ctx, handle, platform.WindowOp{Kind: platform.OpRestore}); err != nil {
			return wc, err
		}
		wc.Restored = true
		// Back from the scratchpad it has a place of its own; the screencopy that follows
		// waits for the compositor's next frame, which shows it.
		if w, err = s.Window(ctx, handle); err != nil {
			return wc, err
		}
	}
	views, err := s.views(ctx)
	if err != nil {
		return wc, err
	}
	wc.Fallback = covered(handle, w.Bounds, views)
	img, err := s.CaptureRect(ctx, w.Bounds)
	if err != nil {
		return wc, err
	}
	wc.Image = img
	return wc, nil
}

// covered reports whether a window above handle's (later in stacking order, on screen) overlaps
// its area.
func covered(handle uint32, area platform.Rect, views []view) bool {
	above := false
	for _, v := range views {
		if uint32(v.Node.ID) == handle {
			above = true
			continue
		}
		if above && !v.Scratchpad && !clientArea(v.Node).Intersect(area).Empty() {
			return true
		}
	}
	return false
}
