//go:build linux

package x11_test

import (
	"context"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/platform/x11"
	"github.com/mcec/mcec/internal/testdesk"
)

// wakeLimit is how fast WatchWindows must report a change.
const wakeLimit = 100 * time.Millisecond

// drain empties a watch channel.
func drain(ch <-chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// woken waits for a value on ch and returns how long it took (fails after wakeLimit).
func woken(t *testing.T, ch <-chan struct{}, what string) time.Duration {
	t.Helper()
	start := time.Now()
	limit := time.NewTimer(wakeLimit)
	defer limit.Stop()
	select {
	case <-ch:
		return time.Since(start)
	case <-limit.C:
		t.Fatalf("no wake-up within %v after %s", wakeLimit, what)
		return 0
	}
}

func TestWatchWindows(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	ctx, cancel := context.WithCancel(ctxT(t))
	defer cancel()
	ch, err := c.WatchWindows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other := app.window(t, winOpts{x: 10, y: 10, w: 80, h: 60, managed: true, bg: u32(0x808080), title: "other"})
	waitManaged(t, c, uint32(other))
	// The window to map is prepared with its properties; each step then sends one request
	// without waiting, so the wake-up time is the event path's alone.
	win := app.window(t, winOpts{x: 50, y: 50, w: 100, h: 80, managed: true, bg: u32(0x404040), title: "watched"})
	waitManaged(t, c, uint32(win))
	app.unmap(t, win)
	testdesk.WaitFor(t, waitLimit(), "window unmanaged", func() bool { _, err := c.Window(ctxT(t), uint32(win)); return err != nil })

	steps := []struct {
		name  string
		do    func(t *testing.T)
		after func(t *testing.T) // waits for the change to complete
	}{
		{"a window maps", func(t *testing.T) { xproto.MapWindow(app.c, win) },
			func(t *testing.T) { waitManaged(t, c, uint32(win)) }},
		{"the active window changes", func(t *testing.T) { app.activate(t, uint32(other)) },
			func(t *testing.T) {
				testdesk.WaitFor(t, waitLimit(), "other active", func() bool { w, _ := c.Window(ctxT(t), uint32(other)); return w.Focused })
			}},
		{"a window closes", func(t *testing.T) { xproto.DestroyWindow(app.c, win) },
			func(t *testing.T) {
				testdesk.WaitFor(t, waitLimit(), "window gone", func() bool { _, err := c.Window(ctxT(t), uint32(win)); return err != nil })
			}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			drain(ch)
			st.do(t)
			xproto.GetInputFocus(app.c) // flush
			t.Logf("woken after %v", woken(t, ch, st.name))
			st.after(t)
		})
	}

	t.Run("bursts coalesce and fan out", func(t *testing.T) {
		var chans []<-chan struct{}
		for range 5 {
			w, err := c.WatchWindows(ctx)
			if err != nil {
				t.Fatal(err)
			}
			chans = append(chans, w)
		}
		var last xproto.Window
		for i := range 10 {
			last = app.window(t, winOpts{x: 20 * i, y: 300, w: 60, h: 40, managed: true, bg: u32(0x606060), title: "burst"})
		}
		waitManaged(t, c, uint32(last))
		for i, w := range chans {
			if len(w) != 1 {
				t.Errorf("watcher %d holds %d values after a burst of 10 windows, want 1", i, len(w))
			}
			<-w
		}
	})

	t.Run("stops when ctx ends", func(t *testing.T) {
		base := x11.Watchers(c)
		wctx, wcancel := context.WithCancel(ctx)
		if _, err := c.WatchWindows(wctx); err != nil {
			t.Fatal(err)
		}
		if n := x11.Watchers(c); n != base+1 {
			t.Fatalf("%d watchers, want %d", n, base+1)
		}
		wcancel()
		testdesk.WaitFor(t, waitLimit(), "the watcher to go", func() bool { return x11.Watchers(c) == base })
	})
}
