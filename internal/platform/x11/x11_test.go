//go:build linux

package x11_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/x11"
	"github.com/mcec/mcec/internal/testdesk"
)

func TestMain(m *testing.M) { os.Exit(testdesk.Main(m)) }

func TestDialErrors(t *testing.T) {
	tests := []struct {
		name    string
		display string
		env     string
	}{
		{"no server", ":987", ""},
		{"malformed", "not-a-display", ""},
		{"unset", "", "unset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env == "unset" {
				t.Setenv("DISPLAY", "")
			}
			c, err := x11.Dial(ctxT(t), tt.display)
			if err == nil {
				c.Close()
				t.Fatal("Dial succeeded")
			}
			if !errors.Is(err, platform.ErrDisplayUnavailable) {
				t.Fatalf("err = %v, want ErrDisplayUnavailable", err)
			}
		})
	}
}

func TestExtensions(t *testing.T) {
	// Xvfb has all of them; the capture paths below depend on it.
	got := dial(t).Extensions()
	want := x11.Extensions{Composite: true, Damage: true, XFixes: true, SHM: true, RandR: true, XTest: true, XRes: true}
	if got != want {
		t.Fatalf("Extensions() = %+v, want %+v", got, want)
	}
}

func TestWindows(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	pid, gtk := startGTK(t)
	own := app.window(t, winOpts{x: 40, y: 60, w: 160, h: 90, managed: true, bg: u32(0x336699), title: "Grüße mcec"})
	screen := c.ScreenBounds()

	tests := []struct {
		name    string
		handle  uint32
		pid     int
		process string
		class   string
		title   string
		size    image.Point // 0: any
	}{
		// comm is cut to 15 bytes by the kernel; the name is made whole from argv[0].
		{"gtk3-widget-factory", gtk, pid, "gtk3-widget-factory", "Gtk3-widget-factory", "gtk3-widget-factory", image.Point{}},
		{"own window", uint32(own), os.Getpid(), processComm(t, os.Getpid()), "McecTest", "Grüße mcec", image.Pt(160, 90)},
	}
	waitManaged(t, c, uint32(own))
	list, err := c.Windows(ctxT(t))
	if err != nil {
		t.Fatalf("Windows: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w *platform.Window
			for i := range list {
				if list[i].Handle == tt.handle {
					w = &list[i]
				}
			}
			if w == nil {
				t.Fatalf("window 0x%x not listed in %+v", tt.handle, list)
			}
			if w.ProcessID != tt.pid || w.ProcessName != tt.process || w.ClassName != tt.class || w.Title != tt.title {
				t.Errorf("got pid %d process %q class %q title %q, want %d %q %q %q",
					w.ProcessID, w.ProcessName, w.ClassName, w.Title, tt.pid, tt.process, tt.class, tt.title)
			}
			// Client-side decorated GTK windows can be wider than the screen: the client area
			// must start on screen, not fit in it.
			if w.Bounds.Empty() || !screen.Contains(platform.Rect{X: w.Bounds.X, Y: w.Bounds.Y, Width: 1, Height: 1}) {
				t.Errorf("bounds %+v do not start inside the screen %+v", w.Bounds, screen)
			}
			if tt.size != (image.Point{}) && (w.Bounds.Width != tt.size.X || w.Bounds.Height != tt.size.Y) {
				t.Errorf("size %dx%d, want %v", w.Bounds.Width, w.Bounds.Height, tt.size)
			}
			if w.Minimized || w.Fullscreen {
				t.Errorf("state: %+v", w)
			}
			one, err := c.Window(ctxT(t), tt.handle)
			if err != nil {
				t.Fatalf("Window: %v", err)
			}
			one.Focused, w.Focused = false, false // focus may move between the calls
			if one != *w {
				t.Errorf("Window() = %+v, Windows() had %+v", one, *w)
			}
		})
	}

	t.Run("focused", func(t *testing.T) {
		// A window of the desktop still being mapped may take the focus after the activation
		// (openbox focuses new windows): activate again until the list settles on gtk alone.
		testdesk.WaitFor(t, waitLimit(), "only the activated window focused", func() bool {
			activate(t, c, app, gtk)
			list, err := c.Windows(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			settled := true
			for _, w := range list {
				if w.Focused != (w.Handle == gtk) {
					t.Logf("window 0x%x Focused %v", w.Handle, w.Focused)
					settled = false
				}
			}
			return settled
		})
	})
}

func processComm(t *testing.T, pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// TestWindowsSkipsVanished lists while a window in _NET_CLIENT_LIST no longer exists: the window
// manager has not caught up yet, which is what a window closing mid-listing looks like.
func TestWindowsSkipsVanished(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	keep := app.window(t, winOpts{x: 10, y: 10, w: 50, h: 50, managed: true, bg: u32(0x808080), title: "keep"})
	waitManaged(t, c, uint32(keep))
	gone := app.window(t, winOpts{x: 80, y: 10, w: 50, h: 50, bg: u32(0x808080)})
	app.destroy(t, gone)

	// Insert the dead handle into the window manager's list, in the middle.
	listAtom := app.atom(t, "_NET_CLIENT_LIST")
	r, err := xproto.GetProperty(app.c, false, app.root, listAtom, xproto.AtomWindow, 0, 4096).Reply()
	if err != nil {
		t.Fatal(err)
	}
	dead := make([]byte, 4)
	xgb.Put32(dead, uint32(gone))
	mid := len(r.Value) / 8 * 4
	val := append(append(append([]byte{}, r.Value[:mid]...), dead...), r.Value[mid:]...)
	app.prop(t, app.root, "_NET_CLIENT_LIST", "WINDOW", 32, val)
	t.Cleanup(func() {
		// Put back what the window manager had, unless it rewrote the list meanwhile.
		now, err := xproto.GetProperty(app.c, false, app.root, listAtom, xproto.AtomWindow, 0, 4096).Reply()
		if err == nil && string(now.Value) == string(val) {
			app.prop(t, app.root, "_NET_CLIENT_LIST", "WINDOW", 32, r.Value)
		}
	})

	list, err := c.Windows(ctxT(t))
	if err != nil {
		t.Fatalf("Windows with a vanished window: %v", err)
	}
	found := false
	for _, w := range list {
		if w.Handle == uint32(gone) {
			t.Errorf("vanished window 0x%x listed", gone)
		}
		found = found || w.Handle == uint32(keep)
	}
	if !found {
		t.Errorf("live window 0x%x missing from %+v", keep, list)
	}
	if _, err := c.Window(ctxT(t), uint32(gone)); !errors.Is(err, platform.ErrWindowClosed) {
		t.Errorf("Window(vanished) err = %v, want ErrWindowClosed", err)
	}
}

// TestWindowsChurn lists continuously while windows come and go.
func TestWindowsChurn(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			w, _ := xproto.NewWindowId(app.c)
			xproto.CreateWindow(app.c, 0, w, app.root, 0, 0, 30, 30, 0, xproto.WindowClassInputOutput, 0, 0, nil)
			xproto.MapWindow(app.c, w)
			xproto.GetInputFocus(app.c).Reply()
			xproto.DestroyWindow(app.c, w)
		}
	}()
	lists := 0
	for ctx.Err() == nil {
		if _, err := c.Windows(context.Background()); err != nil {
			t.Fatalf("Windows during churn: %v", err)
		}
		lists++
	}
	wg.Wait()
	t.Logf("%d listings", lists)
}

func TestWindowClosed(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	closed := app.window(t, winOpts{x: 10, y: 10, w: 40, h: 40, managed: true, bg: u32(0x808080), title: "closing"})
	waitManaged(t, c, uint32(closed))
	app.destroy(t, closed)
	unmanaged := app.window(t, winOpts{x: 10, y: 10, w: 40, h: 40, bg: u32(0x808080)})

	tests := []struct {
		name   string
		handle uint32
	}{
		{"destroyed", uint32(closed)},
		{"never existed", 0x3fffff7},
		{"not managed", uint32(unmanaged)},
		{"root", uint32(app.root)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := c.Window(ctxT(t), tt.handle); !errors.Is(err, platform.ErrWindowClosed) {
				t.Errorf("Window err = %v, want ErrWindowClosed", err)
			}
			if _, err := c.CaptureWindow(ctxT(t), tt.handle); !errors.Is(err, platform.ErrWindowClosed) {
				t.Errorf("CaptureWindow err = %v, want ErrWindowClosed", err)
			}
		})
	}
}

func TestDisplays(t *testing.T) {
	c := dial(t)
	d, err := c.Displays(ctxT(t))
	if err != nil {
		t.Fatalf("Displays: %v", err)
	}
	full := platform.Rect{Width: 1280, Height: 800}
	if d.VirtualBounds != full || c.ScreenBounds() != full {
		t.Errorf("VirtualBounds %+v, ScreenBounds %+v, want %+v", d.VirtualBounds, c.ScreenBounds(), full)
	}
	if len(d.Monitors) != 1 {
		t.Fatalf("%d monitors: %+v", len(d.Monitors), d.Monitors)
	}
	m := d.Monitors[0]
	if !m.Primary || m.Index != 0 || m.Bounds != full || m.Name == "" {
		t.Errorf("monitor %+v", m)
	}
	if m.DPI <= 0 || m.Scale <= 0 {
		t.Errorf("DPI %v scale %v", m.DPI, m.Scale)
	}
	if m.WorkingArea.Empty() || !m.Bounds.Contains(m.WorkingArea) {
		t.Errorf("working area %+v outside %+v", m.WorkingArea, m.Bounds)
	}
	t.Logf("%+v", m)
}

func TestCaptureRect(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	const colour = 0x3366cc
	app.window(t, winOpts{x: 200, y: 150, w: 120, h: 90, bg: u32(colour)})
	screen := c.ScreenBounds()

	modes := []struct {
		name  string
		shm   bool
		strip int // bytes; 0 = default
	}{
		{"shm", true, 0},
		{"plain", false, 0},
		{"shm strips", true, 4 * 1280 * 7},
		{"plain strips", false, 4 * 1280 * 7},
	}
	regions := []struct {
		name  string
		r     platform.Rect
		solid bool // inside the test window
	}{
		{"inside window", platform.Rect{X: 210, Y: 160, Width: 100, Height: 70}, true},
		{"one pixel", platform.Rect{X: 319, Y: 239, Width: 1, Height: 1}, true},
		{"odd size", platform.Rect{X: 201, Y: 151, Width: 33, Height: 17}, true},
		{"full screen", screen, false},
		{"bottom right corner", platform.Rect{X: screen.Width - 7, Y: screen.Height - 5, Width: 7, Height: 5}, false},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			x11.SetSHM(c, m.shm)
			x11.SetStripBytes(c, 32<<20)
			if m.strip > 0 {
				x11.SetStripBytes(c, m.strip)
			}
			defer x11.SetSHM(c, true)
			defer x11.SetStripBytes(c, 32<<20)
			for _, rg := range regions {
				t.Run(rg.name, func(t *testing.T) {
					img, err := c.CaptureRect(ctxT(t), rg.r)
					if err != nil {
						t.Fatalf("CaptureRect: %v", err)
					}
					if img.Bounds() != image.Rect(0, 0, rg.r.Width, rg.r.Height) {
						t.Fatalf("bounds %v, want %dx%d", img.Bounds(), rg.r.Width, rg.r.Height)
					}
					for i := 3; i < len(img.Pix); i += 4 {
						if img.Pix[i] != 0xff {
							t.Fatalf("alpha %d at byte %d", img.Pix[i], i)
						}
					}
					if rg.solid {
						if f := colourFraction(img, img.Bounds(), rgb(colour)); f != 1 {
							t.Errorf("%.3f of pixels are #%06x; first is %v", f, colour, img.RGBAAt(0, 0))
						}
					}
				})
			}
			// The test window seen inside a full-screen grab is at its root position.
			full, err := c.CaptureRect(ctxT(t), screen)
			if err != nil {
				t.Fatal(err)
			}
			if f := colourFraction(full, image.Rect(200, 150, 320, 240), rgb(colour)); f != 1 {
				t.Errorf("full screen: %.3f of the window's pixels are #%06x", f, colour)
			}
		})
	}

	t.Run("errors", func(t *testing.T) {
		for _, r := range []platform.Rect{{Width: 0, Height: 10}, {X: screen.Width - 5, Width: 10, Height: 10}, {X: 40000, Width: 1, Height: 1}} {
			if _, err := c.CaptureRect(ctxT(t), r); !errors.Is(err, platform.ErrCaptureFailed) {
				t.Errorf("CaptureRect(%+v) err = %v, want ErrCaptureFailed", r, err)
			}
		}
	})
}

// TestCaptureWindowCovered captures a window half covered by another one: the covered half must
// hold the window's own pixels. A first connection takes the reference while nothing covers the
// window and closes (undoing its redirection); a second one redirects the covered window afresh,
// so the app has to repaint the covered half into the new pixmap.
func TestCaptureWindowCovered(t *testing.T) {
	app := newXApp(t)
	const cover = 0xff00ff
	tests := []struct {
		name    string
		target  func(t *testing.T) uint32
		minSame float64 // share of covered pixels equal to the reference
	}{
		{"own window", func(t *testing.T) uint32 {
			return uint32(app.window(t, winOpts{x: 300, y: 200, w: 240, h: 160, managed: true, title: "stripes"}))
		}, 1},
		// The widget factory animates a spinner and progress bars.
		{"gtk3-widget-factory", func(t *testing.T) uint32 {
			// It may still resize itself after it maps: minimized then, the capture's size is
			// the one before (1243 wide, the window 1366 by the time the test looked).
			_, w := startGTK(t)
			settledWindow(t, dial(t), w)
			return w
		}, 0.9},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := dial(t)
			handle := tt.target(t)
			win := waitManaged(t, first, handle)
			activate(t, first, app, handle)

			ref, err := first.CaptureWindow(ctxT(t), handle)
			if err != nil {
				t.Fatalf("reference capture: %v", err)
			}
			if ref.Fallback || ref.Restored {
				t.Fatalf("reference capture %+v", ref)
			}
			first.Close()

			b := win.Bounds
			on := b.Intersect(first.ScreenBounds()) // first still knows the screen
			coverRect := platform.Rect{X: on.X + on.Width/2, Y: on.Y, Width: on.Width - on.Width/2, Height: on.Height}
			app.window(t, winOpts{x: coverRect.X, y: coverRect.Y, w: coverRect.Width, h: coverRect.Height, bg: u32(cover)})

			second := dial(t)
			screen, err := second.CaptureRect(ctxT(t), coverRect)
			if err != nil {
				t.Fatal(err)
			}
			if f := colourFraction(screen, screen.Bounds(), rgb(cover)); f != 1 {
				t.Fatalf("the cover is not on screen (%.3f)", f)
			}
			start := time.Now()
			got, err := second.CaptureWindow(ctxT(t), handle)
			if err != nil {
				t.Fatalf("covered capture: %v", err)
			}
			t.Logf("first capture of the covered window: %v", time.Since(start))
			if got.Fallback || got.Restored || got.Image.Bounds() != ref.Image.Bounds() {
				t.Fatalf("covered capture %+v bounds %v, reference %v", got, got.Image.Bounds(), ref.Image.Bounds())
			}
			covered := image.Rect(coverRect.X-b.X, coverRect.Y-b.Y, coverRect.X-b.X+coverRect.Width, coverRect.Y-b.Y+coverRect.Height)
			if f := colourFraction(got.Image, covered, rgb(cover)); f > 0.01 {
				t.Errorf("%.3f of the covered half shows the cover", f)
			}
			if f := matchFraction(got.Image, ref.Image, covered); f < tt.minSame {
				t.Errorf("covered half matches the reference at %.3f, want >= %.2f", f, tt.minSame)
			}
			start = time.Now()
			if _, err := second.CaptureWindow(ctxT(t), handle); err != nil {
				t.Fatal(err)
			}
			t.Logf("next capture: %v", time.Since(start))
		})
	}
}

// activate raises w and waits until it is the active window.
func activate(t *testing.T, c *x11.Conn, app *xapp, w uint32) {
	t.Helper()
	ev := xproto.ClientMessageEvent{Format: 32, Window: xproto.Window(w), Type: app.atom(t, "_NET_ACTIVE_WINDOW"),
		Data: xproto.ClientMessageDataUnionData32New([]uint32{2, 0, 0, 0, 0})}
	xproto.SendEvent(app.c, false, app.root, xproto.EventMaskSubstructureRedirect|xproto.EventMaskSubstructureNotify, string(ev.Bytes()))
	testdesk.WaitFor(t, waitLimit(), "window active", func() bool {
		got, err := c.Window(ctxT(t), w)
		return err == nil && got.Focused
	})
}

func TestCaptureWindowOwnPixels(t *testing.T) {
	app := newXApp(t)
	c := dial(t)
	screen := c.ScreenBounds()
	tests := []struct {
		name      string
		composite bool
		x, y      int // requested position; the window manager may adjust it
	}{
		{"composite", true, 100, 100},
		{"fallback", false, 100, 100},
		{"partly off screen", true, screen.Width - 60, 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x11.SetComposite(c, tt.composite)
			defer x11.SetComposite(c, true)
			w := uint32(app.window(t, winOpts{x: tt.x, y: tt.y, w: 200, h: 120, managed: true, title: tt.name}))
			info := waitManaged(t, c, w)
			if tt.x+200 > screen.Width {
				// Window managers place new windows on screen; move it half off, as a user would.
				xproto.ConfigureWindow(app.c, xproto.Window(w), xproto.ConfigWindowX|xproto.ConfigWindowY,
					[]uint32{uint32(tt.x), uint32(tt.y)})
				testdesk.WaitFor(t, waitLimit(), "window moved", func() bool {
					info, _ = c.Window(ctxT(t), w)
					return info.Bounds.X+info.Bounds.Width > screen.Width
				})
			}
			activate(t, c, app, w)
			got, err := c.CaptureWindow(ctxT(t), w)
			if err != nil {
				t.Fatalf("CaptureWindow: %v", err)
			}
			if got.Fallback == tt.composite || got.Restored {
				t.Errorf("Fallback %v Restored %v", got.Fallback, got.Restored)
			}
			if got.Image.Bounds() != image.Rect(0, 0, 200, 120) {
				t.Fatalf("bounds %v", got.Image.Bounds())
			}
			visible := image.Rect(0, 0, min(200, screen.Width-info.Bounds.X), 120)
			checkStripes(t, got.Image, visible)
			if tt.composite && visible.Dx() < 200 {
				checkStripes(t, got.Image, image.Rect(visible.Dx(), 0, 200, 120))
			}
		})
	}
}

// checkStripes checks that r of img shows the test app's stripes.
func checkStripes(t *testing.T, img *image.RGBA, r image.Rectangle) {
	t.Helper()
	bad := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if img.RGBAAt(x, y) != rgb(stripe(x)) {
				if bad == 0 {
					t.Errorf("pixel %d,%d is %v, want %v", x, y, img.RGBAAt(x, y), rgb(stripe(x)))
				}
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d pixels in %v are not the stripes", bad, r.Dx()*r.Dy(), r)
	}
}

func TestCaptureWindowMinimized(t *testing.T) {
	app := newXApp(t)
	tests := []struct {
		name   string
		target func(t *testing.T) uint32
		check  func(t *testing.T, img *image.RGBA)
	}{
		{"own window", func(t *testing.T) uint32 {
			return uint32(app.window(t, winOpts{x: 100, y: 100, w: 180, h: 100, managed: true, title: "minimize me"}))
		}, func(t *testing.T, img *image.RGBA) { checkStripes(t, img, img.Bounds()) }},
		{"gtk3-widget-factory", func(t *testing.T) uint32 {
			// It may still resize itself after it maps: minimized then, the capture's size is
			// the one before (1243 wide, the window 1366 by the time the test looked).
			_, w := startGTK(t)
			settledWindow(t, dial(t), w)
			return w
		},
			func(t *testing.T, img *image.RGBA) {
				if colours := distinctColours(img, 64); colours < 16 {
					t.Errorf("only %d colours: looks blank", colours)
				}
			}},
	}
	for _, redirectedFirst := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/redirected first %v", tt.name, redirectedFirst), func(t *testing.T) {
				c := dial(t)
				w := tt.target(t)
				waitManaged(t, c, w)
				if redirectedFirst {
					if _, err := c.CaptureWindow(ctxT(t), w); err != nil {
						t.Fatal(err)
					}
				}
				app.iconify(t, w)
				// Minimized, and unmapped: openbox sets the state before it unmaps the frame, and
				// a capture in between raced its unmap and the remap that restores it (the new
				// pixmap read before the app painted it: all black, once in three loaded runs).
				testdesk.WaitFor(t, waitLimit(), "window minimized", func() bool {
					got, err := c.Window(ctxT(t), w)
					return err == nil && got.Minimized && !app.viewable(t, w)
				})
				start := time.Now()
				got, err := c.CaptureWindow(ctxT(t), w)
				if err != nil {
					t.Fatalf("CaptureWindow: %v", err)
				}
				t.Logf("capture with restore: %v", time.Since(start))
				if !got.Restored || got.Fallback {
					t.Errorf("Restored %v Fallback %v", got.Restored, got.Fallback)
				}
				info, err := c.Window(ctxT(t), w)
				if err != nil {
					t.Fatal(err)
				}
				if info.Minimized {
					t.Error("still minimized")
				}
				if got.Image.Bounds() != image.Rect(0, 0, info.Bounds.Width, info.Bounds.Height) {
					t.Errorf("image %v, window %+v", got.Image.Bounds(), info.Bounds)
				}
				tt.check(t, got.Image)
			})
		}
	}
}

// distinctColours counts distinct colours, stopping at limit.
func distinctColours(img *image.RGBA, limit int) int {
	seen := map[[4]byte]bool{}
	for i := 0; i+4 <= len(img.Pix) && len(seen) < limit; i += 4 {
		seen[[4]byte(img.Pix[i:i+4])] = true
	}
	return len(seen)
}

// TestConcurrent runs every call from many goroutines at once (meaningful under -race).
func TestConcurrent(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	var handles []uint32
	for i := range 3 {
		w := uint32(app.window(t, winOpts{x: 50 + 220*i, y: 400, w: 200, h: 100, managed: true, title: fmt.Sprint("w", i)}))
		waitManaged(t, c, w)
		handles = append(handles, w)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				ctx := ctxT(t)
				var err error
				switch (g + i) % 4 {
				case 0:
					_, err = c.Windows(ctx)
				case 1:
					_, err = c.Displays(ctx)
				case 2:
					_, err = c.CaptureRect(ctx, platform.Rect{X: 10, Y: 10, Width: 300, Height: 200})
				case 3:
					var wc platform.WindowCapture
					wc, err = c.CaptureWindow(ctx, handles[(g+i)%len(handles)])
					if err == nil {
						checkStripes(t, wc.Image, wc.Image.Bounds())
					}
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestDeadline(t *testing.T) {
	c := dial(t)
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	if _, err := c.Windows(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Windows with an expired deadline: %v", err)
	}
	if _, err := c.CaptureRect(ctx, platform.Rect{Width: 10, Height: 10}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("CaptureRect with an expired deadline: %v", err)
	}
}

// TestServerGone kills a private X server under a live connection.
func TestServerGone(t *testing.T) {
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Skip("no Xvfb")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "320x200x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	// Xvfb writes the display number and a newline, in two writes, once it listens; it dies if
	// the pipe is closed before the second.
	line, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if err != nil {
		t.Fatalf("Xvfb -displayfd: %q, %v", line, err)
	}
	display := ":" + strings.TrimSpace(line)

	c, err := x11.Dial(ctxT(t), display)
	if err != nil {
		t.Fatalf("Dial %s: %v", display, err)
	}
	defer c.Close()
	if _, err := c.Windows(ctxT(t)); err != nil {
		t.Fatalf("Windows on a bare server: %v", err)
	}
	// SIGTERM lets Xvfb remove its socket and lock file; clients just see the connection close.
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	stopped = true
	testdesk.WaitFor(t, waitLimit(), "calls to fail with ErrDisplayUnavailable", func() bool {
		_, err := c.Windows(ctxT(t))
		return errors.Is(err, platform.ErrDisplayUnavailable)
	})
	for name, call := range map[string]func() error{
		"Displays":      func() error { _, err := c.Displays(ctxT(t)); return err },
		"CaptureRect":   func() error { _, err := c.CaptureRect(ctxT(t), platform.Rect{Width: 5, Height: 5}); return err },
		"CaptureWindow": func() error { _, err := c.CaptureWindow(ctxT(t), 0x200001); return err },
	} {
		if err := call(); !errors.Is(err, platform.ErrDisplayUnavailable) {
			t.Errorf("%s on a dead connection: %v", name, err)
		}
	}
}

// TestWindowsFollowTheList: Windows asks about the last listing's windows along with the client
// list; what it reports must still follow the list and the windows as they are now: a window
// added since is described, a changed title is the new one, a destroyed window is gone, and
// the order is the list's.
func TestWindowsFollowTheList(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	first := app.window(t, winOpts{x: 10, y: 10, w: 60, h: 40, managed: true, bg: u32(0x808080), title: "first"})
	waitManaged(t, c, uint32(first))
	byHandle := func(list []platform.Window, h xproto.Window) *platform.Window {
		for i := range list {
			if list[i].Handle == uint32(h) {
				return &list[i]
			}
		}
		return nil
	}
	if _, err := c.Windows(ctxT(t)); err != nil { // remembers first
		t.Fatal(err)
	}
	second := app.window(t, winOpts{x: 90, y: 10, w: 60, h: 40, managed: true, bg: u32(0x808080), title: "second"})
	waitManaged(t, c, uint32(second))
	app.prop(t, first, "_NET_WM_NAME", "UTF8_STRING", 8, []byte("first, renamed"))
	testdesk.WaitFor(t, waitLimit(), "the new window and the new title", func() bool {
		list, err := c.Windows(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		f, s := byHandle(list, first), byHandle(list, second)
		return f != nil && s != nil && f.Title == "first, renamed" && s.Title == "second"
	})
	list, err := c.Windows(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	listAtom := app.atom(t, "_NET_CLIENT_LIST")
	r, err := xproto.GetProperty(app.c, false, app.root, listAtom, xproto.AtomWindow, 0, 4096).Reply()
	if err != nil {
		t.Fatal(err)
	}
	var order []uint32
	for i := 0; i+4 <= len(r.Value); i += 4 {
		order = append(order, xgb.Get32(r.Value[i:]))
	}
	var got []uint32
	for _, w := range list {
		got = append(got, w.Handle)
	}
	at := 0
	for _, h := range got {
		for at < len(order) && order[at] != h {
			at++
		}
		if at == len(order) {
			t.Fatalf("Windows order %x is not the client list's %x", got, order)
		}
	}
	app.destroy(t, second)
	testdesk.WaitFor(t, waitLimit(), "the destroyed window to leave the listing", func() bool {
		list, err := c.Windows(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		return byHandle(list, second) == nil && byHandle(list, first) != nil
	})
}
