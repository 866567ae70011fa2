// Package wlrtest holds the checks of mcec's path for wlroots compositors without sway's IPC
// (windows through wlr-foreign-toplevel, wlr.go) that the conformance suite does not make,
// shared by the tests on sway driven that way and on phoc (phoctest).
package wlrtest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/platformtest"
	"github.com/mcec/mcec/internal/testdesk"
	"github.com/mcec/mcec/internal/wayland/wlclient"
)

// FullscreenClick: through wlr-foreign-toplevel alone, a fullscreen window is the one whose
// place is known (its output): its elements get bounds, and a click at the button's centre
// presses it. Back out of fullscreen, the window and its elements have no place again. d is
// attached to the test desktop's compositor through its protocols alone.
func FullscreenClick(t *testing.T, d platform.Desktop) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	win := fullscreenScene(ctx, t, d)
	ds, err := d.Displays(ctx)
	if err != nil {
		t.Fatal(err)
	}
	testdesk.WaitFor(t, 10*time.Second, "the window never became fullscreen over its output", func() bool {
		win, err = d.Window(ctx, win.Handle)
		return err == nil && win.Fullscreen && win.Bounds == ds.Monitors[0].Bounds
	})
	var button, label *platform.Node
	testdesk.WaitFor(t, 10*time.Second, "the button never got bounds inside the fullscreen window", func() bool {
		tr, err := d.Tree(ctx, win, platform.TreeLimits{MaxDepth: 64, MaxNodes: 1000})
		if err != nil {
			return false
		}
		button, label = findNode(tr.Root, "push button", platformtest.Button), findNode(tr.Root, "label", platformtest.LabelIdle)
		return button != nil && label != nil && button.Bounds != nil && win.Bounds.Contains(*button.Bounds) &&
			tr.Root.Bounds != nil && *tr.Root.Bounds == win.Bounds
	})
	if err := d.WindowOp(ctx, win.Handle, platform.WindowOp{Kind: platform.OpActivate}); err != nil {
		t.Fatal(err)
	}
	c := platform.Point{X: button.Bounds.X + button.Bounds.Width/2, Y: button.Bounds.Y + button.Bounds.Height/2}
	if err := d.Input().Click(ctx, c, platform.ButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	testdesk.WaitFor(t, 10*time.Second, "the click at the button's centre did not press it", func() bool {
		el, err := d.Element(ctx, label.Ref)
		return err == nil && el.Node.Name == platformtest.LabelClicked(1)
	})

	// Restore through mcec: the place is unknown again, and so are the elements'.
	if err := d.WindowOp(ctx, win.Handle, platform.WindowOp{Kind: platform.OpRestore}); err != nil {
		t.Fatal(err)
	}
	if win, err = d.Window(ctx, win.Handle); err != nil || win.Fullscreen || !win.Bounds.Empty() {
		t.Fatalf("after restore: %+v, %v; want a window without fullscreen or bounds", win, err)
	}
	testdesk.WaitFor(t, 10*time.Second, "the button kept bounds out of fullscreen", func() bool {
		el, err := d.Element(ctx, button.Ref)
		return err == nil && el.Node.Bounds == nil
	})
}

// FullscreenUnplaced: on a compositor that draws fullscreen windows off their output's corner,
// a fullscreen window has no place either: no bounds for it or its elements, and a capture of
// it fails ErrCompositorUnsupported saying why.
func FullscreenUnplaced(t *testing.T, d platform.Desktop) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	win := fullscreenScene(ctx, t, d)
	testdesk.WaitFor(t, 10*time.Second, "the window never became fullscreen", func() bool {
		var err error
		win, err = d.Window(ctx, win.Handle)
		return err == nil && win.Fullscreen
	})
	if !win.Bounds.Empty() {
		t.Fatalf("a fullscreen window here has bounds %+v; want none", win.Bounds)
	}
	tr, err := d.Tree(ctx, win, platform.TreeLimits{MaxDepth: 64, MaxNodes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	button := findNode(tr.Root, "push button", platformtest.Button)
	if button == nil || button.Bounds != nil || tr.Root.Bounds != nil {
		t.Fatalf("button %+v, frame bounds %v: want the button, and no bounds", button, tr.Root.Bounds)
	}
	_, err = d.CaptureWindow(ctx, win.Handle)
	if !errors.Is(err, platform.ErrCompositorUnsupported) || !strings.Contains(err.Error(), "fullscreen") {
		t.Errorf("CaptureWindow of the fullscreen window = %v; want ErrCompositorUnsupported naming fullscreen", err)
	}
}

// fullscreenScene starts the scene, checks that its window has no place, and has another
// client ask for it to be fullscreen, as a user's keys would.
func fullscreenScene(ctx context.Context, t *testing.T, d platform.Desktop) platform.Window {
	t.Helper()
	app := testdesk.GTKScene(t)
	win := SceneWindow(ctx, t, d, app.PID())
	if !win.Bounds.Empty() {
		t.Fatalf("a window that is not fullscreen has bounds %+v", win.Bounds)
	}
	wl, err := wlclient.Dial(ctx, testdesk.Desktop().WaylandSocket())
	if err != nil {
		t.Fatal(err)
	}
	defer wl.Close()
	tops, err := wl.Toplevels(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tops {
		if tl.Title == platformtest.Title {
			if err := wl.RequestToplevel(tl.Seq, wlclient.RequestFullscreen); err != nil {
				t.Fatal(err)
			}
			// Handled before the client leaves: the compositor drops a gone client's requests.
			if err := wl.Roundtrip(ctx); err != nil {
				t.Fatal(err)
			}
			return win
		}
	}
	t.Fatalf("no toplevel titled %q in %+v", platformtest.Title, tops)
	return win
}

// SceneWindow waits until d lists the scene's window with its owner, pid.
func SceneWindow(ctx context.Context, t *testing.T, d platform.Desktop, pid int) platform.Window {
	t.Helper()
	var win platform.Window
	testdesk.WaitFor(t, 10*time.Second, "no scene window with its owner", func() bool {
		ws, err := d.Windows(ctx)
		for _, w := range ws {
			if err == nil && w.ProcessID == pid && w.Title == platformtest.Title {
				win = w
				return true
			}
		}
		return false
	})
	return win
}

func findNode(n *platform.Node, role, name string) *platform.Node {
	if n == nil {
		return nil
	}
	if n.Role == role && n.Name == name {
		return n
	}
	for _, k := range n.Children {
		if f := findNode(k, role, name); f != nil {
			return f
		}
	}
	return nil
}
