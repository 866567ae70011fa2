//go:build linux

package x11_test

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/x11"
	"github.com/mcec/mcec/internal/sysload"
	"github.com/mcec/mcec/internal/testdesk"
)

// waitLimit bounds a wait for the desktop's answer: 10 s, stretched with the load. Beside a
// second make test, openbox's replay of a grabbed second press (a double click) took longer.
func waitLimit() time.Duration { return sysload.Scale(10 * time.Second) }

// dial connects to the test desktop and closes the connection at cleanup.
func dial(t testing.TB) *x11.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := x11.Dial(ctx, "")
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// xapp is a tiny X client played by the test: it creates windows and, like a real app, paints
// the ones without a background only when the server sends Expose.
type xapp struct {
	c    *xgb.Conn
	root xproto.Window
	gc   xproto.Gcontext

	mu         sync.Mutex
	painted    map[xproto.Window]bool
	recorders  map[xproto.Window]*recorder
	selections map[xproto.Window]*recorder // SelectionNotify by requestor
}

var (
	appOnce sync.Once
	theApp  *xapp
	appErr  error
)

// newXApp returns the test app. It is one connection for the whole package on purpose: the X
// server hands a new connection the id range of one that just closed, and a window manager that
// has not yet forgotten a destroyed window then mistakes a new window with the same id for it.
func newXApp(t testing.TB) *xapp {
	t.Helper()
	appOnce.Do(func() { theApp, appErr = dialXApp() })
	if appErr != nil {
		t.Fatalf("test X connection: %v", appErr)
	}
	return theApp
}

func dialXApp() (*xapp, error) {
	c, err := xgb.NewConn()
	if err != nil {
		return nil, err
	}
	a := &xapp{c: c, root: xproto.Setup(c).DefaultScreen(c).Root, painted: map[xproto.Window]bool{},
		recorders: map[xproto.Window]*recorder{}, selections: map[xproto.Window]*recorder{}}
	gc, err := xproto.NewGcontextId(c)
	if err != nil {
		return nil, err
	}
	if err := xproto.CreateGCChecked(c, gc, xproto.Drawable(a.root), 0, nil).Check(); err != nil {
		return nil, err
	}
	a.gc = gc
	go a.loop() // ends when the desktop, and with it the connection, goes away
	return a, nil
}

func (a *xapp) loop() {
	for {
		ev, err := a.c.WaitForEvent()
		if ev == nil && err == nil {
			return
		}
		if e, ok := ev.(xproto.ExposeEvent); ok && e.Count == 0 {
			a.mu.Lock()
			p := a.painted[e.Window]
			a.mu.Unlock()
			if p {
				a.paint(e.Window)
			}
		}
		if e, ok := ev.(xproto.SelectionNotifyEvent); ok {
			a.mu.Lock()
			r := a.selections[e.Requestor]
			a.mu.Unlock()
			if r != nil {
				r.add(ev)
			}
		}
		if w := eventWindow(ev); w != 0 {
			a.mu.Lock()
			r := a.recorders[w]
			a.mu.Unlock()
			if r != nil {
				r.add(ev)
			}
		}
	}
}

// stripe is the colour the test app paints at window-relative x: 8-pixel vertical stripes.
func stripe(x int) uint32 {
	return [...]uint32{0xd03020, 0x20a040, 0x2040c0, 0xe0c020}[(x/8)%4]
}

func (a *xapp) paint(w xproto.Window) {
	g, err := xproto.GetGeometry(a.c, xproto.Drawable(w)).Reply()
	if err != nil {
		return // gone
	}
	for x := 0; x < int(g.Width); x += 8 {
		xproto.ChangeGC(a.c, a.gc, xproto.GcForeground, []uint32{stripe(x)})
		xproto.PolyFillRectangle(a.c, xproto.Drawable(w), a.gc,
			[]xproto.Rectangle{{X: int16(x), Y: 0, Width: 8, Height: g.Height}})
	}
	xproto.GetInputFocus(a.c) // flush without waiting
}

type winOpts struct {
	x, y, w, h int
	managed    bool    // false: override-redirect, placed exactly, not in the client list
	bg         *uint32 // background pixel; nil: none, the app paints stripes on Expose
	title      string
	record     bool // select and record pointer and keyboard events (see recorder)

	noPID        bool          // managed, but without _NET_WM_PID (as Tk windows are)
	transientFor xproto.Window // WM_TRANSIENT_FOR, when set
	types        []string      // _NET_WM_WINDOW_TYPE atom names, when set
}

// window creates and maps a top-level window and waits until it is viewable.
func (a *xapp) window(t testing.TB, o winOpts) xproto.Window {
	t.Helper()
	w, err := xproto.NewWindowId(a.c)
	if err != nil {
		t.Fatal(err)
	}
	mask := uint32(xproto.CwBackPixmap)
	vals := []uint32{xproto.BackPixmapNone}
	if o.bg != nil {
		mask, vals = xproto.CwBackPixel, []uint32{*o.bg}
	}
	mask |= xproto.CwOverrideRedirect | xproto.CwEventMask
	events := uint32(xproto.EventMaskExposure)
	if o.record {
		events |= xproto.EventMaskButtonPress | xproto.EventMaskButtonRelease | xproto.EventMaskPointerMotion |
			xproto.EventMaskKeyPress | xproto.EventMaskKeyRelease
		a.mu.Lock()
		a.recorders[w] = &recorder{changed: make(chan struct{}, 1)}
		a.mu.Unlock()
	}
	vals = append(vals, boolVal(!o.managed), events)
	if err := xproto.CreateWindowChecked(a.c, 0, w, a.root, int16(o.x), int16(o.y), uint16(o.w), uint16(o.h), 0,
		xproto.WindowClassInputOutput, 0, mask, vals).Check(); err != nil {
		t.Fatalf("CreateWindow: %v", err)
	}
	a.mu.Lock()
	a.painted[w] = o.bg == nil
	a.mu.Unlock()
	if o.managed {
		// Input hint: openbox gives keyboard focus only to windows that ask for it.
		hints := make([]byte, 9*4)
		xgb.Put32(hints, 1)     // InputHint
		xgb.Put32(hints[4:], 1) // input: true
		a.prop(t, w, "WM_HINTS", "WM_HINTS", 32, hints)
		a.prop(t, w, "WM_NAME", "STRING", 8, []byte(o.title))
		a.prop(t, w, "_NET_WM_NAME", "UTF8_STRING", 8, []byte(o.title))
		a.prop(t, w, "WM_CLASS", "STRING", 8, []byte("mcectest\x00McecTest\x00"))
		if !o.noPID {
			pid := make([]byte, 4)
			xgb.Put32(pid, uint32(os.Getpid()))
			a.prop(t, w, "_NET_WM_PID", "CARDINAL", 32, pid)
		}
	}
	if o.transientFor != 0 {
		v := make([]byte, 4)
		xgb.Put32(v, uint32(o.transientFor))
		a.prop(t, w, "WM_TRANSIENT_FOR", "WINDOW", 32, v)
	}
	if len(o.types) > 0 {
		v := make([]byte, 4*len(o.types))
		for i, n := range o.types {
			xgb.Put32(v[4*i:], uint32(a.atom(t, n)))
		}
		a.prop(t, w, "_NET_WM_WINDOW_TYPE", "ATOM", 32, v)
	}
	t.Cleanup(func() { xproto.DestroyWindow(a.c, w); xproto.GetInputFocus(a.c).Reply() })
	if err := xproto.MapWindowChecked(a.c, w).Check(); err != nil {
		t.Fatalf("MapWindow: %v", err)
	}
	a.waitViewable(t, w)
	return w
}

func (a *xapp) waitViewable(t testing.TB, w xproto.Window) {
	t.Helper()
	testdesk.WaitFor(t, waitLimit(), "test window viewable", func() bool {
		r, err := xproto.GetWindowAttributes(a.c, w).Reply()
		return err == nil && r.MapState == xproto.MapStateViewable
	})
}

func (a *xapp) atom(t testing.TB, name string) xproto.Atom {
	t.Helper()
	r, err := xproto.InternAtom(a.c, false, uint16(len(name)), name).Reply()
	if err != nil {
		t.Fatal(err)
	}
	return r.Atom
}

func (a *xapp) prop(t testing.TB, w xproto.Window, name, typ string, format byte, data []byte) {
	t.Helper()
	n := uint32(len(data)) / uint32(format/8)
	if err := xproto.ChangePropertyChecked(a.c, xproto.PropModeReplace, w, a.atom(t, name), a.atom(t, typ), format, n, data).Check(); err != nil {
		t.Fatalf("ChangeProperty %s: %v", name, err)
	}
}

// iconify asks the window manager to minimize w (ICCCM WM_CHANGE_STATE, IconicState).
func (a *xapp) iconify(t testing.TB, w uint32) {
	t.Helper()
	ev := xproto.ClientMessageEvent{Format: 32, Window: xproto.Window(w), Type: a.atom(t, "WM_CHANGE_STATE"),
		Data: xproto.ClientMessageDataUnionData32New([]uint32{3, 0, 0, 0, 0})}
	if err := xproto.SendEventChecked(a.c, false, a.root,
		xproto.EventMaskSubstructureRedirect|xproto.EventMaskSubstructureNotify, string(ev.Bytes())).Check(); err != nil {
		t.Fatalf("WM_CHANGE_STATE: %v", err)
	}
}

// viewable reports whether w and all its ancestors are mapped.
func (a *xapp) viewable(t testing.TB, w uint32) bool {
	t.Helper()
	attrs, err := xproto.GetWindowAttributes(a.c, xproto.Window(w)).Reply()
	if err != nil {
		t.Fatalf("GetWindowAttributes: %v", err)
	}
	return attrs.MapState == xproto.MapStateViewable
}

// activate asks the window manager to activate w, without waiting.
func (a *xapp) activate(t testing.TB, w uint32) {
	t.Helper()
	ev := xproto.ClientMessageEvent{Format: 32, Window: xproto.Window(w), Type: a.atom(t, "_NET_ACTIVE_WINDOW"),
		Data: xproto.ClientMessageDataUnionData32New([]uint32{2, 0, 0, 0, 0})}
	xproto.SendEvent(a.c, false, a.root, xproto.EventMaskSubstructureRedirect|xproto.EventMaskSubstructureNotify, string(ev.Bytes()))
}

func (a *xapp) unmap(t testing.TB, w xproto.Window) {
	t.Helper()
	if err := xproto.UnmapWindowChecked(a.c, w).Check(); err != nil {
		t.Fatalf("UnmapWindow: %v", err)
	}
}

func (a *xapp) destroy(t testing.TB, w xproto.Window) {
	t.Helper()
	if err := xproto.DestroyWindowChecked(a.c, w).Check(); err != nil {
		t.Fatalf("DestroyWindow: %v", err)
	}
}

func boolVal(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

func u32(v uint32) *uint32 { return &v }

func rgb(v uint32) color.RGBA {
	return color.RGBA{R: byte(v >> 16), G: byte(v >> 8), B: byte(v), A: 0xff}
}

// waitManaged waits until the window manager lists w, and returns its description.
func waitManaged(t testing.TB, c *x11.Conn, w uint32) platform.Window {
	t.Helper()
	var got platform.Window
	testdesk.WaitFor(t, waitLimit(), "window in _NET_CLIENT_LIST", func() bool {
		var err error
		got, err = c.Window(ctxT(t), w)
		return err == nil
	})
	return got
}

// settledWindow is w once its bounds have held for 500 ms: gtk3-widget-factory may resize
// itself after it maps (seen beside a second make test: 1277, then 1366 wide).
func settledWindow(t testing.TB, c *x11.Conn, w uint32) platform.Window {
	t.Helper()
	var (
		got   platform.Window
		since time.Time
	)
	testdesk.WaitFor(t, waitLimit(), "the window's bounds to hold for 500 ms", func() bool {
		cur, err := c.Window(ctxT(t), w)
		if err != nil {
			return false
		}
		if cur.Bounds != got.Bounds || since.IsZero() {
			got, since = cur, time.Now()
			return false
		}
		got = cur
		return time.Since(since) >= 500*time.Millisecond
	})
	return got
}

// startGTK launches gtk3-widget-factory and returns its pid and window.
func startGTK(t testing.TB) (int, uint32) {
	t.Helper()
	newXApp(t) // the window manager is ready and lets clicks through
	p := testdesk.Start(t, "gtk3-widget-factory")
	return p.PID, testdesk.WaitWindow(t, p.PID, waitLimit())
}

// matchFraction is the share of pixels of r equal in a and b.
func matchFraction(a, b *image.RGBA, r image.Rectangle) float64 {
	same, all := 0, 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			all++
			if a.RGBAAt(x, y) == b.RGBAAt(x, y) {
				same++
			}
		}
	}
	if all == 0 {
		return 0
	}
	return float64(same) / float64(all)
}

// colourFraction is the share of pixels of r that are exactly c.
func colourFraction(img *image.RGBA, r image.Rectangle, c color.RGBA) float64 {
	n, all := 0, 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			all++
			if img.RGBAAt(x, y) == c {
				n++
			}
		}
	}
	if all == 0 {
		return 0
	}
	return float64(n) / float64(all)
}

// eventWindow is the window an input event was reported on (0 for other events).
func eventWindow(ev xgb.Event) xproto.Window {
	switch e := ev.(type) {
	case xproto.ButtonPressEvent:
		return e.Event
	case xproto.ButtonReleaseEvent:
		return e.Event
	case xproto.MotionNotifyEvent:
		return e.Event
	case xproto.KeyPressEvent:
		return e.Event
	case xproto.KeyReleaseEvent:
		return e.Event
	}
	return 0
}

// recorder keeps the input events a test window received.
type recorder struct {
	mu      sync.Mutex
	events  []xgb.Event
	changed chan struct{} // a value after each new event (coalesced)
	onEvent func(xgb.Event)
}

func (r *recorder) add(ev xgb.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	f := r.onEvent
	r.mu.Unlock()
	if f != nil {
		f(ev)
	}
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// snapshot returns the events so far.
func (r *recorder) snapshot() []xgb.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]xgb.Event(nil), r.events...)
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.events = nil
	r.mu.Unlock()
}

// waitFor waits until cond holds for the recorded events.
func (r *recorder) waitFor(t testing.TB, what string, cond func([]xgb.Event) bool) []xgb.Event {
	t.Helper()
	d := waitLimit()
	limit := time.NewTimer(d)
	defer limit.Stop()
	for {
		evs := r.snapshot()
		if cond(evs) {
			return evs
		}
		select {
		case <-r.changed:
		case <-limit.C:
			t.Fatalf("after %v: %s; recorded %d events: %s", d, what, len(evs), describeEvents(evs))
		}
	}
}

func (a *xapp) recorder(w xproto.Window) *recorder {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.recorders[w]
}

func describeEvents(evs []xgb.Event) string {
	var parts []string
	for _, ev := range evs {
		switch e := ev.(type) {
		case xproto.ButtonPressEvent:
			parts = append(parts, fmt.Sprintf("press%d@%d,%d", e.Detail, e.RootX, e.RootY))
		case xproto.ButtonReleaseEvent:
			parts = append(parts, fmt.Sprintf("release%d@%d,%d", e.Detail, e.RootX, e.RootY))
		case xproto.MotionNotifyEvent:
			parts = append(parts, fmt.Sprintf("motion@%d,%d", e.RootX, e.RootY))
		case xproto.KeyPressEvent:
			parts = append(parts, fmt.Sprintf("key%d(state %#x)", e.Detail, e.State))
		case xproto.KeyReleaseEvent:
			parts = append(parts, fmt.Sprintf("keyup%d", e.Detail))
		}
	}
	return strings.Join(parts, " ")
}
