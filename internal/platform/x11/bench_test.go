//go:build linux

package x11_test

import (
	"testing"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/x11"
)

func BenchmarkCaptureRectFull(b *testing.B) {
	c := dial(b)
	for _, mode := range []struct {
		name string
		shm  bool
	}{{"shm", true}, {"plain", false}} {
		b.Run(mode.name, func(b *testing.B) {
			x11.SetSHM(c, mode.shm)
			defer x11.SetSHM(c, true)
			ctx := ctxT(b)
			for b.Loop() {
				if _, err := c.CaptureRect(ctx, c.ScreenBounds()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkWindows(b *testing.B) {
	c := dial(b)
	app := newXApp(b)
	for i := range 9 {
		w := app.window(b, winOpts{x: 20 * i, y: 20 * i, w: 100, h: 80, managed: true, bg: u32(0x404040), title: "bench"})
		waitManaged(b, c, uint32(w))
	}
	ctx := ctxT(b)
	list, err := c.Windows(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(list)), "windows")
	for b.Loop() {
		if _, err := c.Windows(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCaptureWindow is a capture after the first: the window is already redirected.
func BenchmarkCaptureWindow(b *testing.B) {
	c := dial(b)
	app := newXApp(b)
	w := uint32(app.window(b, winOpts{x: 100, y: 100, w: 640, h: 400, managed: true, title: "bench"}))
	waitManaged(b, c, w)
	ctx := ctxT(b)
	if _, err := c.CaptureWindow(ctx, w); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := c.CaptureWindow(ctx, w); err != nil {
			b.Fatal(err)
		}
	}
}

// benchWindow is a raised window for input benchmarks (it ignores the input).
func benchWindow(b *testing.B, c *x11.Conn) platform.Rect {
	app := newXApp(b)
	w := uint32(app.window(b, winOpts{x: 100, y: 100, w: 300, h: 200, managed: true, bg: u32(0x404040), title: "bench input"}))
	info := waitManaged(b, c, w)
	if err := c.Raise(ctxT(b), w); err != nil {
		b.Fatal(err)
	}
	return info.Bounds
}

// BenchmarkClick is one left click, returned once the window manager let it through.
func BenchmarkClick(b *testing.B) {
	c := dial(b)
	r := benchWindow(b, c)
	ctx := ctxT(b)
	p := platform.Point{X: r.X + 50, Y: r.Y + 50}
	for b.Loop() {
		if err := c.Input().Click(ctx, p, platform.ButtonLeft, 1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkType40 types 40 ASCII characters (a quarter of them shifted).
func BenchmarkType40(b *testing.B) {
	c := dial(b)
	benchWindow(b, c)
	ctx := ctxT(b)
	const text = "The Quick Brown Fox Jumps Over 13 Dogs!?"
	for b.Loop() {
		if err := c.Input().Type(ctx, text); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTypeRemapped types 4 characters missing from the keymap, which costs keymap
// changes and a ping of the focused application before restoring.
func BenchmarkTypeRemapped(b *testing.B) {
	c := dial(b)
	g := startGTKApp(b)
	waitManaged(b, c, g.xid)
	if err := c.Raise(ctxT(b), g.xid); err != nil {
		b.Fatal(err)
	}
	go func() {
		for range g.lines { // the entry reports every change
		}
	}()
	ctx := ctxT(b)
	for b.Loop() {
		if err := c.Input().Type(ctx, "é€ж😀"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRaiseActive(b *testing.B) {
	c := dial(b)
	app := newXApp(b)
	w := uint32(app.window(b, winOpts{x: 100, y: 100, w: 300, h: 200, managed: true, bg: u32(0x404040), title: "bench raise"}))
	waitManaged(b, c, w)
	ctx := ctxT(b)
	for b.Loop() {
		if err := c.Raise(ctx, w); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkClipboardGet(b *testing.B) {
	owner, reader := dial(b), dial(b)
	ctx := ctxT(b)
	if err := owner.ClipboardSet(ctx, "benchmark text"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := reader.ClipboardGet(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
