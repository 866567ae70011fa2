package wayland

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"image"
	"slices"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/procname"
	"github.com/mcec/mcec/internal/sysload"
	"github.com/mcec/mcec/internal/wayland/wlclient"
)

// toplevels drives a wlroots compositor without sway's IPC (Hyprland, labwc, Wayfire, river …)
// through the protocols every one of them offers to any client: wlr-foreign-toplevel for the
// windows, their state and the requests to activate, minimize, maximize and restore them,
// wlr-screencopy for pixels. The protocol tells neither where a window is nor which process
// owns it, so:
//   - a window's Bounds are empty, except a fullscreen one on one output, which covers it, on
//     compositors that put a fullscreen window's geometry at its output's corner (not phoc:
//     misplacesFullscreen);
//   - move and resize fail ErrCompositorUnsupported: no protocol lets a client place another's
//     window;
//   - the pid is left to internal/platform/linux, which finds it among the accessibility bus's
//     applications by the window's title;
//   - elements of a window without Bounds get none (Origin), so pointer actions on them fail
//     clearly and invoke, keys and pixels remain;
//   - every window says it is served by Wayland: the protocol lists Xwayland's windows too and
//     does not tell them apart (their elements are placed, in fullscreen, by the same rules).
//
// A window's handle is its Toplevel.Seq: never reused while mcec is connected. The compositor
// may ignore any request: each is confirmed by the state it reports, or fails.
type toplevels struct {
	wl   *wlclient.Client
	name string // the compositor's program name, from the socket's peer
	// fullscreenUnplaced: the compositor does not put a fullscreen window at its output's
	// corner (misplacesFullscreen), so no window has a known place.
	fullscreenUnplaced bool
}

// misplacesFullscreen names the compositors known to draw a fullscreen window elsewhere than
// at its output's corner, where mcec would place it. phoc 0.24 (Phosh's, with a renderer of its
// own) keeps a GTK 3 window that entered fullscreen at the offset of the client-side shadow it
// had (26, 23): a click at a button's centre by the output's corner lands on the label above.
// Compositors built on wlroots' scene graph (labwc, river, Wayfire 0.8 …) place a surface by its
// window geometry, as sway does; those are not measured here.
var misplacesFullscreen = []string{"phoc"}

// PlacesFullscreen reports whether mcec places a fullscreen window, and its elements, at its
// output's corner on the compositor whose program is named so (misplacesFullscreen).
func PlacesFullscreen(program string) bool { return !slices.Contains(misplacesFullscreen, program) }

func dialToplevels(wl *wlclient.Client) (*toplevels, error) {
	if !wl.Has("zwlr_foreign_toplevel_manager_v1") {
		return nil, fmt.Errorf("%w: the compositor offers neither sway's IPC nor wlr-foreign-toplevel, so mcec cannot list its windows "+
			"(mcec drives sway, KWin, GNOME Shell with mcec's extension, and wlroots compositors); start mcec's own desktop with --headless, "+
			"or set DISPLAY to the session's XWayland display for its X11 programs", platform.ErrCompositorUnsupported)
	}
	t := &toplevels{wl: wl, name: "a wlroots compositor"}
	if pid, err := wl.CompositorPID(); err == nil {
		t.name = cmp.Or(procname.Of(pid), t.name)
	}
	t.fullscreenUnplaced = !PlacesFullscreen(t.name)
	return t, nil
}

func (t *toplevels) Close() error { return nil }

// WindowManagerName names the compositor's program and the protocol mcec drives it through.
func (t *toplevels) WindowManagerName(context.Context) (string, error) {
	return t.name + " (wlr-foreign-toplevel)", nil
}

// Windows lists the application windows: those on screen in the order they last became active
// (the protocol tells no stacking order; the active window is the last), then minimized ones.
func (t *toplevels) Windows(ctx context.Context) ([]platform.Window, error) {
	tops, err := t.wl.Toplevels(ctx)
	if err != nil {
		return nil, wlErr("list the windows", err)
	}
	outs, err := t.wl.Outputs(ctx)
	if err != nil {
		return nil, wlErr("read the outputs", err)
	}
	slices.SortStableFunc(tops, func(a, b wlclient.Toplevel) int {
		if a.Minimized != b.Minimized {
			if a.Minimized {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.Focus, b.Focus)
	})
	seqOf := make(map[uint32]uint32, len(tops))
	for _, tl := range tops {
		seqOf[tl.ID] = tl.Seq
	}
	if t.fullscreenUnplaced {
		outs = nil
	}
	out := make([]platform.Window, 0, len(tops))
	for _, tl := range tops {
		out = append(out, describeToplevel(tl, seqOf, outs))
	}
	return out, nil
}

// describeToplevel turns a foreign toplevel into a platform window; seqOf maps the handles'
// object ids to their Seq (for the parent). A fullscreen window covers its output among outs
// (none: its place is not trusted).
func describeToplevel(t wlclient.Toplevel, seqOf map[uint32]uint32, outs []wlclient.Output) platform.Window {
	w := platform.Window{
		Handle: t.Seq, Title: t.Title, ClassName: t.AppID,
		Minimized: t.Minimized, Maximized: t.Maximized, Fullscreen: t.Fullscreen, Focused: t.Activated,
		Type: "normal", Server: platform.ServerWayland,
	}
	if p := seqOf[t.Parent]; t.Parent != 0 && p != 0 {
		w.TransientFor, w.Type = p, "dialog"
	}
	// A fullscreen window covers its output: the one case where the place is known.
	if t.Fullscreen && !t.Minimized && len(t.Outputs) == 1 {
		for _, o := range outs {
			if o.Name == t.Outputs[0] {
				w.Bounds = platform.Rect{X: o.X, Y: o.Y, Width: o.Width, Height: o.Height}
			}
		}
	}
	return w
}

// Window re-describes one window; ErrWindowClosed when the compositor no longer has it.
func (t *toplevels) Window(ctx context.Context, handle uint32) (platform.Window, error) {
	ws, err := t.Windows(ctx)
	if err != nil {
		return platform.Window{}, err
	}
	return platform.FindWindow(ws, handle)
}

// Displays lists the outputs as xdg-output describes them.
func (t *toplevels) Displays(ctx context.Context) (platform.Displays, error) {
	return outputDisplays(ctx, t.wl)
}

// WatchWindows reports changes of the windows, coalesced, until ctx ends.
func (t *toplevels) WatchWindows(ctx context.Context) (<-chan struct{}, error) {
	ch, err := t.wl.WatchToplevels(ctx)
	return ch, wlErr("watch the windows", err)
}

// requestWait bounds the wait for the compositor to report the state a request asked for
// (stretched by the load): a maximize waits for the client's answer to its configure.
const requestWait = time.Second

// WindowOp asks the compositor through wlr-foreign-toplevel and waits for the state it asked
// for. A compositor may ignore a request (sway has no minimized or maximized state): when the
// state has not come within requestWait, the operation fails ErrCompositorUnsupported rather
// than passing for done.
func (t *toplevels) WindowOp(ctx context.Context, handle uint32, op platform.WindowOp) error {
	w, err := t.Window(ctx, handle)
	if err != nil {
		return err
	}
	var reqs []wlclient.ToplevelRequest
	var done func(platform.Window) bool
	switch op.Kind {
	case platform.OpMove, platform.OpResize:
		return fmt.Errorf("%w: %s lets no client %s another's window (wlr-foreign-toplevel has no such request, and no other protocol offers it); "+
			"maximize it, or arrange it by keys the compositor binds", platform.ErrCompositorUnsupported, t.name, op.Kind)
	case platform.OpMinimize:
		reqs, done = []wlclient.ToplevelRequest{wlclient.RequestMinimize}, func(w platform.Window) bool { return w.Minimized }
	case platform.OpMaximize:
		if w.Minimized {
			reqs = append(reqs, wlclient.RequestUnminimize)
		}
		if w.Fullscreen {
			reqs = append(reqs, wlclient.RequestUnfullscreen)
		}
		reqs, done = append(reqs, wlclient.RequestMaximize), func(w platform.Window) bool { return w.Maximized && !w.Minimized && !w.Fullscreen }
	case platform.OpRestore:
		if w.Minimized {
			reqs = append(reqs, wlclient.RequestUnminimize)
		}
		if w.Maximized {
			reqs = append(reqs, wlclient.RequestUnmaximize)
		}
		if w.Fullscreen {
			reqs = append(reqs, wlclient.RequestUnfullscreen)
		}
		done = func(w platform.Window) bool { return !w.Minimized && !w.Maximized && !w.Fullscreen }
	case platform.OpActivate:
		if w.Minimized {
			reqs = append(reqs, wlclient.RequestUnminimize)
		}
		reqs, done = append(reqs, wlclient.RequestActivate), func(w platform.Window) bool { return w.Focused && !w.Minimized }
	default:
		return fmt.Errorf("%w: window operation %q", platform.ErrUnsupported, op.Kind)
	}
	if done(w) {
		return nil
	}
	for _, r := range reqs {
		if err := t.wl.RequestToplevel(handle, r); err != nil {
			if errors.Is(err, wlclient.ErrToplevelGone) {
				return fmt.Errorf("%w: window %d", platform.ErrWindowClosed, handle)
			}
			return wlErr(string(op.Kind), err)
		}
	}
	return t.await(ctx, w, op.Kind, done)
}

// await waits for window w to be in the state done asks for, at most requestWait.
func (t *toplevels) await(ctx context.Context, w platform.Window, kind platform.WindowOpKind, done func(platform.Window) bool) error {
	wait := sysload.Scale(requestWait)
	waitCtx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	changed, err := t.wl.WatchToplevels(waitCtx)
	if err != nil {
		return wlErr(string(kind), err)
	}
	for {
		now, err := t.Window(waitCtx, w.Handle)
		switch {
		case err == nil && done(now):
			return nil
		case errors.Is(err, platform.ErrWindowClosed):
			return err
		}
		select {
		case <-changed:
		case <-waitCtx.Done():
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%w: %s did not %s window %d %q within %v: it ignores that wlr-foreign-toplevel request, or the application did not answer",
				platform.ErrCompositorUnsupported, t.name, kind, w.Handle, w.Title, wait)
		}
	}
}

// CaptureRect grabs the on-screen pixels of r through wlr-screencopy.
func (t *toplevels) CaptureRect(ctx context.Context, r platform.Rect) (*image.RGBA, error) {
	return screencopy(ctx, t.wl, r)
}

// CaptureWindow grabs a fullscreen window's output; any other window's place is unknown.
func (t *toplevels) CaptureWindow(ctx context.Context, handle uint32) (platform.WindowCapture, error) {
	w, err := t.Window(ctx, handle)
	if err != nil {
		return platform.WindowCapture{}, err
	}
	if w.Bounds.Empty() {
		return platform.WindowCapture{}, fmt.Errorf("%w: %s does not tell where window %d %q is (%s); "+
			"capture the screen or a region of it instead", platform.ErrCompositorUnsupported, t.name, handle, w.Title, t.unplacedWhy(w))
	}
	img, err := t.CaptureRect(ctx, w.Bounds)
	if err != nil {
		return platform.WindowCapture{}, err
	}
	return platform.WindowCapture{Image: img}, nil
}

// unplacedWhy says why window w has no place.
func (t *toplevels) unplacedWhy(w platform.Window) string {
	if w.Fullscreen && t.fullscreenUnplaced {
		return "it draws fullscreen windows off their output's corner"
	}
	return "wlr-foreign-toplevel has no geometry"
}

// Origin places a fullscreen window's extents, by the rules sway's windows follow (origin.go);
// a window whose place is unknown gets no bounds.
func (t *toplevels) Origin(w platform.Window, frame platform.Rect, children []platform.Rect) (platform.Point, bool) {
	return origin(w.Bounds, frame, children)
}
