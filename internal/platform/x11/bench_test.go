//go:build linux

package x11_test

import (
	"testing"

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
