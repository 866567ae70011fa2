package wayland_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/platformtest"
	"github.com/mcec/mcec/internal/testdesk"
	"github.com/mcec/mcec/internal/wayland/wlclient"
)

// TestToplevelsFullscreenClick: through wlr-foreign-toplevel alone, a fullscreen window is the
// one whose place is known (its output): its elements get bounds, and a click at the button's
// centre presses it. Back out of fullscreen, the window and its elements have no place again.
func TestToplevelsFullscreenClick(t *testing.T) {
	d := openToplevels(t)
	app := testdesk.GTKScene(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	win := sceneWindow(ctx, t, d, app.PID())
	if !win.Bounds.Empty() {
		t.Fatalf("a window that is not fullscreen has bounds %+v", win.Bounds)
	}

	// Another client asks for fullscreen, as a user's keys would.
	wl, err := wlclient.Dial(ctx, testdesk.Desktop().WaylandSocket())
	if err != nil {
		t.Fatal(err)
	}
	defer wl.Close()
	request := func(req wlclient.ToplevelRequest) {
		t.Helper()
		tops, err := wl.Toplevels(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range tops {
			if tl.Title == platformtest.Title {
				if err := wl.RequestToplevel(tl.Seq, req); err != nil {
					t.Fatal(err)
				}
				return
			}
		}
		t.Fatalf("no toplevel titled %q in %+v", platformtest.Title, tops)
	}
	request(wlclient.RequestFullscreen)
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
