//go:build linux

package x11_test

import (
	"errors"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/x11"
)

func near(a, b int) bool { return abs(a-b) <= 1 }

// TestWindowOp runs every operation on a window of ours and on two GTK apps, and checks the
// result through Window().
func TestWindowOp(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	targets := []struct {
		name   string
		handle func(t *testing.T) uint32
		// resizable: the application accepts the size asked for (the widget factory's minimum
		// size is its natural size, wider than the screen).
		resizable bool
	}{
		{"own window", func(t *testing.T) uint32 {
			return uint32(app.window(t, winOpts{x: 10, y: 10, w: 200, h: 150, managed: true, bg: u32(0x2060a0), title: "winop"}))
		}, true},
		{"gtk app", func(t *testing.T) uint32 { return startGTKApp(t).xid }, true},
		{"gtk3-widget-factory", func(t *testing.T) uint32 { _, w := startGTK(t); return w }, false},
	}
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			h := tg.handle(t)
			waitManaged(t, c, h)
			orig := settledWindow(t, c, h)
			ops := []struct {
				op    platform.WindowOp
				check func(w platform.Window) bool
			}{
				{platform.WindowOp{Kind: platform.OpMove, X: 120, Y: 90},
					func(w platform.Window) bool { return near(w.Bounds.X, 120) && near(w.Bounds.Y, 90) }},
				{platform.WindowOp{Kind: platform.OpMove, X: -40, Y: 300}, // partly off screen
					func(w platform.Window) bool { return near(w.Bounds.X, -40) && near(w.Bounds.Y, 300) }},
				{platform.WindowOp{Kind: platform.OpResize, Width: 420, Height: 310},
					func(w platform.Window) bool {
						if !tg.resizable {
							return w.Bounds.Width == orig.Bounds.Width && w.Bounds.Height == orig.Bounds.Height
						}
						return near(w.Bounds.Width, 420) && near(w.Bounds.Height, 310)
					}},
				{platform.WindowOp{Kind: platform.OpMaximize},
					func(w platform.Window) bool { return w.Maximized && w.Bounds.X <= 0 }},
				{platform.WindowOp{Kind: platform.OpRestore},
					func(w platform.Window) bool { return !w.Maximized && near(w.Bounds.X, -40) && near(w.Bounds.Y, 300) }},
				{platform.WindowOp{Kind: platform.OpMinimize},
					func(w platform.Window) bool { return w.Minimized }},
				{platform.WindowOp{Kind: platform.OpRestore},
					func(w platform.Window) bool { return !w.Minimized }},
				{platform.WindowOp{Kind: platform.OpMinimize},
					func(w platform.Window) bool { return w.Minimized }},
				{platform.WindowOp{Kind: platform.OpMaximize}, // from minimized
					func(w platform.Window) bool { return !w.Minimized && w.Maximized }},
				{platform.WindowOp{Kind: platform.OpMove, X: 30, Y: 40}, // unmaximizes first
					func(w platform.Window) bool { return !w.Maximized && near(w.Bounds.X, 30) && near(w.Bounds.Y, 40) }},
				{platform.WindowOp{Kind: platform.OpActivate},
					func(w platform.Window) bool { return w.Focused && !w.Minimized }},
			}
			for _, o := range ops {
				start := time.Now()
				if err := c.WindowOp(ctxT(t), h, o.op); err != nil {
					t.Fatalf("%s: %v", o.op.Kind, err)
				}
				took := time.Since(start)
				w, err := c.Window(ctxT(t), h)
				if err != nil {
					t.Fatal(err)
				}
				if !o.check(w) {
					t.Errorf("after %+v: %+v", o.op, w)
				}
				t.Logf("%-10s %6.1f ms -> %+v", o.op.Kind, float64(took.Microseconds())/1000, w.Bounds)
			}
		})
	}
}

// TestWindowOpConfigureFallback moves and resizes through ConfigureWindow, the path for window
// managers without _NET_MOVERESIZE_WINDOW.
func TestWindowOpConfigureFallback(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	x11.SetMoveResizeMessage(c, false)
	defer x11.SetMoveResizeMessage(c, true)
	for _, h := range []uint32{
		uint32(app.window(t, winOpts{x: 10, y: 10, w: 200, h: 150, managed: true, bg: u32(0x2060a0), title: "fallback"})),
		startGTKApp(t).xid,
	} {
		waitManaged(t, c, h)
		for _, op := range []platform.WindowOp{
			{Kind: platform.OpMove, X: 210, Y: 170},
			{Kind: platform.OpResize, Width: 333, Height: 222},
			{Kind: platform.OpMove, X: 5, Y: 400},
		} {
			if err := c.WindowOp(ctxT(t), h, op); err != nil {
				t.Fatalf("%+v: %v", op, err)
			}
			w, err := c.Window(ctxT(t), h)
			if err != nil {
				t.Fatal(err)
			}
			if (op.Kind == platform.OpMove && !(near(w.Bounds.X, op.X) && near(w.Bounds.Y, op.Y))) ||
				(op.Kind == platform.OpResize && !(near(w.Bounds.Width, op.Width) && near(w.Bounds.Height, op.Height))) {
				t.Errorf("after %+v: %+v", op, w.Bounds)
			}
		}
	}
}

// TestWindowOpForeground activates a window that another covers and has focus.
func TestWindowOpForeground(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	back := uint32(app.window(t, winOpts{x: 100, y: 100, w: 300, h: 200, managed: true, bg: u32(0x404080), title: "back"}))
	waitManaged(t, c, back)
	front := uint32(app.window(t, winOpts{x: 100, y: 100, w: 300, h: 200, managed: true, bg: u32(0x804040), title: "front"}))
	waitManaged(t, c, front)
	activate(t, c, app, front)
	b, _ := c.Window(ctxT(t), back)
	if err := c.WindowOp(ctxT(t), front, platform.WindowOp{Kind: platform.OpMove, X: b.Bounds.X, Y: b.Bounds.Y}); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	if err := c.WindowOp(ctxT(t), back, platform.WindowOp{Kind: platform.OpActivate}); err != nil {
		t.Fatalf("foreground: %v", err)
	}
	t.Logf("foreground of a covered window: %v", time.Since(start))
	list, err := c.Windows(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range list {
		if w.Focused != (w.Handle == back) {
			t.Errorf("window 0x%x (%s) Focused %v", w.Handle, w.Title, w.Focused)
		}
	}
	// The back window is now on top: its pixels show where the front one was.
	img, err := c.CaptureRect(ctxT(t), platform.Rect{X: b.Bounds.X + 10, Y: b.Bounds.Y + 10, Width: 20, Height: 20})
	if err != nil {
		t.Fatal(err)
	}
	if f := colourFraction(img, img.Bounds(), rgb(0x404080)); f != 1 {
		t.Errorf("%.2f of the area shows the activated window", f)
	}

	start = time.Now()
	if err := c.WindowOp(ctxT(t), back, platform.WindowOp{Kind: platform.OpActivate}); err != nil {
		t.Fatal(err)
	}
	t.Logf("foreground of the active window: %v", time.Since(start))
}

func TestWindowOpErrors(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	w := uint32(app.window(t, winOpts{x: 10, y: 10, w: 50, h: 50, managed: true, bg: u32(0x808080), title: "errors"}))
	waitManaged(t, c, w)
	tests := []struct {
		name   string
		handle uint32
		op     platform.WindowOp
		want   error
	}{
		{"unknown handle", 0x3fffff7, platform.WindowOp{Kind: platform.OpMinimize}, platform.ErrWindowClosed},
		{"root", uint32(app.root), platform.WindowOp{Kind: platform.OpMove}, platform.ErrWindowClosed},
		{"unknown handle foreground", 0x3fffff7, platform.WindowOp{Kind: platform.OpActivate}, platform.ErrWindowClosed},
		{"unknown operation", w, platform.WindowOp{Kind: "shake"}, platform.ErrUnsupported},
		{"zero size", w, platform.WindowOp{Kind: platform.OpResize, Width: 0, Height: 10}, platform.ErrUnsupported},
		{"huge position", w, platform.WindowOp{Kind: platform.OpMove, X: 1 << 20}, platform.ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := c.WindowOp(ctxT(t), tt.handle, tt.op); !errors.Is(err, tt.want) {
				t.Errorf("WindowOp = %v, want %v", err, tt.want)
			}
		})
	}
	// The failed calls left the root's event mask alone: the mapping of an unmanaged window,
	// which only the substructure mask reports, still wakes a watcher.
	ch, err := c.WatchWindows(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	app.window(t, winOpts{x: 5, y: 5, w: 10, h: 10, bg: u32(0)})
	select {
	case <-ch:
	case <-time.After(waitLimit()):
		t.Fatal("WatchWindows deaf after the failed operations")
	}
}
