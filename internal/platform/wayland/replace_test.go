package wayland_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/testdesk"
)

// TestElementPlacedAfterMaximize: a GTK 3 window with a header bar reports its extents from its
// surface, shadow included, and GTK drops the shadow once the window is maximized. An element
// re-read by ref after the maximize, with no walk in between, is placed by the rule that holds
// now: it has the bounds a fresh walk gives, and a click at their centre presses it.
func TestElementPlacedAfterMaximize(t *testing.T) {
	d := open(t)
	app := testdesk.Start(t, "/usr/bin/python3", "testdata/headerbar3.py")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	handle := testdesk.WaitWindow(t, app.PID, 20*time.Second)
	testdesk.WaitAccessible(t, app.PID, 20*time.Second)
	nodes := func() (button, label *platform.Node) {
		t.Helper()
		win, err := d.Window(ctx, handle)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := d.Tree(ctx, win, platform.TreeLimits{MaxDepth: 64, MaxNodes: 1000})
		if err != nil {
			t.Fatal(err)
		}
		return findNode(tr.Root, "push button", "Press"), findNode(tr.Root, "label", "Pressed: 0")
	}
	var button, label *platform.Node
	testdesk.WaitFor(t, 10*time.Second, "no placed button", func() bool {
		button, label = nodes()
		return button != nil && button.Bounds != nil && label != nil
	})
	before := *button.Bounds
	if err := d.WindowOp(ctx, handle, platform.WindowOp{Kind: platform.OpMaximize}); err != nil {
		t.Fatal(err)
	}
	testdesk.WaitFor(t, 10*time.Second, "the window never maximized", func() bool {
		w, err := d.Window(ctx, handle)
		return err == nil && w.Maximized
	})
	// No walk from here on: the place read by ref must follow the window by itself. It settles
	// once GTK has answered the maximize (two reads in a row agree).
	var byRef, last platform.Rect
	testdesk.WaitFor(t, 10*time.Second, "the button's place by ref never settled after the maximize", func() bool {
		el, err := d.Element(ctx, button.Ref)
		if err != nil || el.Node.Bounds == nil {
			return false
		}
		last, byRef = byRef, *el.Node.Bounds
		return byRef == last && byRef != before
	})
	if err := d.WindowOp(ctx, handle, platform.WindowOp{Kind: platform.OpActivate}); err != nil {
		t.Fatal(err)
	}
	c := platform.Point{X: byRef.X + byRef.Width/2, Y: byRef.Y + byRef.Height/2}
	if err := d.Input().Click(ctx, c, platform.ButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	testdesk.WaitFor(t, 10*time.Second, "a click at the centre of the bounds read by ref missed the button", func() bool {
		el, err := d.Element(ctx, label.Ref)
		return err == nil && el.Node.Name == "Pressed: 1"
	})
	if walked, _ := nodes(); walked == nil || walked.Bounds == nil || *walked.Bounds != byRef {
		t.Errorf("by ref the button is at %+v, a walk places it at %+v", byRef, walked)
	}
}
