// Package x11 is the Linux backend for windows, displays, pixels, synthetic input (XTEST) and the
// clipboard, spoken directly over the X11 protocol with github.com/jezek/xgb (no cgo).
//
// One Conn is one X connection shared by concurrent callers. xgb's Reply blocks with no deadline,
// so every operation issues its requests first and then reads all replies on a helper goroutine
// that the caller abandons when ctx ends (see await). X errors are converted into platform
// sentinels in this package and nowhere else.
package x11

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/composite"
	"github.com/jezek/xgb/damage"
	"github.com/jezek/xgb/randr"
	"github.com/jezek/xgb/res"
	"github.com/jezek/xgb/shm"
	"github.com/jezek/xgb/xfixes"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/xgbext"
)

// Extensions records which X extensions this connection found and uses.
type Extensions struct {
	Composite bool // Composite >= 0.2: occlusion-proof window capture
	Damage    bool // DAMAGE: wait for an app to repaint a freshly redirected window
	XFixes    bool // XFixes >= 2: regions, used to see which part of a window is exposed
	SHM       bool // MIT-SHM present and usable from this client (local, probed)
	RandR     bool // RandR >= 1.5: GetMonitors
	XTest     bool // XTEST: synthetic input
	XRes      bool // X-Resource >= 1.2 that knows our own pid: the pid behind windows without _NET_WM_PID
}

// Conn is a connection to one X display. It is safe for concurrent use.
type Conn struct {
	xc      *xgb.Conn
	display string
	scr     screen
	atoms   atoms
	ext     Extensions
	idMask  uint32   // the setup's resource-id mask: a window id &^ idMask is its client's base
	shm     *shmPool // nil when MIT-SHM is unusable

	stripBytes int // maxStripBytes; smaller in tests

	noMoveResizeMessage bool // tests: move and resize through ConfigureWindow only

	bounds atomic.Pointer[platform.Rect] // root geometry; see ScreenBounds
	// lastClients is the client list of the last Windows, whose windows the next one asks
	// about along with the list itself (one round trip while no window was added).
	lastClients atomic.Pointer[[]xproto.Window]

	ready    atomic.Bool   // setup is done: the event loop may read atoms
	dead     chan struct{} // closed when the X connection is gone
	deadOnce sync.Once
	closed   atomic.Bool
	loopDone chan struct{}

	mu         sync.Mutex
	wins       map[xproto.Window]*winState                 // windows this connection redirected or is capturing
	damages    map[damage.Damage]chan<- damage.NotifyEvent // DamageNotify routing
	atomNames  map[xproto.Atom]string
	mapWaiters map[xproto.Window]chan<- struct{}            // MapNotify routing (restore)
	wakes      map[xproto.Window]map[chan struct{}]struct{} // see subscribe
	pongs      map[uint32]chan struct{}                     // _NET_WM_PING replies by token
	selNotify  chan xproto.SelectionNotifyEvent             // the running ClipboardGet, if any

	in     inputState  // XTEST gestures and the keyboard mapping
	sel    selState    // clipboard
	helper helperState // an unmapped window of our own
}

// Dial connects to display ("" means $DISPLAY), initializes the extensions it finds and selects
// the few events it needs. Failures wrap platform.ErrDisplayUnavailable.
func Dial(ctx context.Context, display string) (*Conn, error) {
	if display == "" {
		display = os.Getenv("DISPLAY")
	}
	if display == "" {
		return nil, fmt.Errorf("%w: DISPLAY is not set", platform.ErrDisplayUnavailable)
	}
	xc, err := xgbext.Dial(ctx, display)
	if ctx.Err() != nil && err != nil {
		return nil, fmt.Errorf("%w: connecting to X display %q: %w", platform.ErrDisplayUnavailable, display, ctx.Err())
	}
	if err != nil {
		return nil, fmt.Errorf("%w: cannot connect to X display %q: %v", platform.ErrDisplayUnavailable, display, err)
	}

	c := &Conn{
		xc:         xc,
		display:    display,
		stripBytes: maxStripBytes,
		dead:       make(chan struct{}),
		loopDone:   make(chan struct{}),
		wins:       make(map[xproto.Window]*winState),
		damages:    make(map[damage.Damage]chan<- damage.NotifyEvent),
		atomNames:  make(map[xproto.Atom]string),
		mapWaiters: make(map[xproto.Window]chan<- struct{}),
		wakes:      make(map[xproto.Window]map[chan struct{}]struct{}),
		pongs:      make(map[uint32]chan struct{}),
	}
	c.in.init()
	c.sel.init()
	if err := c.scr.load(xc); err != nil {
		xc.Close()
		return nil, fmt.Errorf("%w: X display %q: %v", platform.ErrDisplayUnavailable, display, err)
	}
	c.idMask = xproto.Setup(xc).ResourceIdMask
	root := platform.Rect{Width: int(c.scr.widthPx), Height: int(c.scr.heightPx)}
	c.bounds.Store(&root)
	go c.eventLoop()
	if err := c.setup(ctx); err != nil {
		c.Close()
		if !errors.Is(err, platform.ErrDisplayUnavailable) {
			err = fmt.Errorf("%w: %w", platform.ErrDisplayUnavailable, err)
		}
		return nil, err
	}
	c.ready.Store(true)
	return c, nil
}

// setup interns atoms, initializes extensions and listens for root resizes, pipelined.
func (c *Conn) setup(ctx context.Context) error {
	err := c.await(ctx, "connection setup", func() error {
		ac := c.atoms.intern(c.xc)
		exts := xgbext.StartQuery(c.xc)
		// X-Resource defines no events or errors, so registering it touches none of xgb's
		// process-wide decoder maps and it needs no place in xgbext's list.
		xresQ := xproto.QueryExtension(c.xc, uint16(len(xresName)), xresName)
		if err := ac.read(&c.atoms); err != nil {
			return err
		}
		present, err := exts.Register()
		if err != nil {
			return err
		}
		if r, err := xresQ.Reply(); err != nil {
			return err
		} else if r.Present {
			xgbext.Register(c.xc, xresName, r.MajorOpcode, r.FirstEvent, r.FirstError)
			present[xresName] = true
		}
		// One mask for the root, as a later ChangeWindowAttributes would replace it: ConfigureNotify
		// tells when RandR resizes the screen (ScreenBounds); property changes (client list, active
		// window) and the mapping of top-level windows wake WatchWindows and window operations,
		// and the substructure mask also brings the _NET_WM_PING replies clients send to the root.
		// Selected only now: the first connection of a process may have just written xgb's
		// decoder maps (xgbext.Register), which the reader reads for every event.
		xproto.ChangeWindowAttributes(c.xc, c.scr.root, xproto.CwEventMask,
			[]uint32{rootEventMask})
		// Version negotiation is mandatory for Composite, DAMAGE, XFixes and RandR: the server
		// refuses their requests from a client that has not announced a version.
		var (
			compV  composite.QueryVersionCookie
			damV   damage.QueryVersionCookie
			fixV   xfixes.QueryVersionCookie
			shmV   shm.QueryVersionCookie
			randrV randr.QueryVersionCookie
			xresV  res.QueryVersionCookie
			xresMe clientPIDs
		)
		if present["Composite"] {
			compV = composite.QueryVersion(c.xc, 0, 4)
		}
		if present["DAMAGE"] {
			damV = damage.QueryVersion(c.xc, 1, 1)
		}
		if present["XFIXES"] {
			fixV = xfixes.QueryVersion(c.xc, 5, 0)
		}
		if present["MIT-SHM"] {
			shmV = shm.QueryVersion(c.xc)
		}
		if present["RANDR"] {
			randrV = randr.QueryVersion(c.xc, 1, 6)
		}
		if present[xresName] {
			xresV = res.QueryVersion(c.xc, 1, 2)
			xresMe = c.queryOwnPID()
		}
		if present["Composite"] {
			r, err := compV.Reply()
			c.ext.Composite = err == nil && (r.MajorVersion > 0 || r.MinorVersion >= 2)
		}
		if present["DAMAGE"] {
			_, err := damV.Reply()
			c.ext.Damage = err == nil
		}
		if present["XFIXES"] {
			r, err := fixV.Reply()
			c.ext.XFixes = err == nil && r.MajorVersion >= 2
		}
		if present["MIT-SHM"] {
			_, err := shmV.Reply()
			c.ext.SHM = err == nil
		}
		if present["RANDR"] {
			r, err := randrV.Reply()
			c.ext.RandR = err == nil && (r.MajorVersion > 1 || r.MinorVersion >= 5)
		}
		if present[xresName] {
			// QueryClientIds is new in 1.2; older servers answer it BadRequest.
			r, err := xresV.Reply()
			v12 := err == nil && (r.ServerMajor > 1 || r.ServerMinor >= 2)
			c.ext.XRes = xresMe.isOwn() && v12
		}
		if present["XTEST"] {
			r, err := xtest.GetVersion(c.xc, 2, 2).Reply()
			c.ext.XTest = err == nil && r.MajorVersion >= 2
		}
		return nil
	})
	if err != nil {
		return xerr(err, platform.ErrDisplayUnavailable, "X display %q setup", c.display)
	}
	if c.ext.SHM {
		c.ext.SHM = isLocalDisplay(c.display) && c.probeSHM(ctx)
	}
	return nil
}

// Extensions reports which X extensions the connection uses.
func (c *Conn) Extensions() Extensions { return c.ext }

// ScreenBounds is the root window's rectangle (the virtual screen). It never blocks: it is kept
// current from ConfigureNotify events on the root and from Displays.
func (c *Conn) ScreenBounds() platform.Rect { return *c.bounds.Load() }

// Close undoes this connection's window redirections, frees its shared memory and closes the
// connection. It is safe to call more than once.
func (c *Conn) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return nil
	}
	c.mu.Lock()
	var redirected []xproto.Window
	for w, s := range c.wins {
		if s.redirected.Load() {
			redirected = append(redirected, w)
		}
	}
	c.wins = map[xproto.Window]*winState{}
	c.mu.Unlock()
	c.sel.close() // the clipboard owner has its own connection
	// Requests go out on a helper goroutine: sending blocks on a server that stopped reading,
	// and Close must not hang. A round trip at the end makes sure the server has read them.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, w := range redirected {
			// Unchecked: a window that died meanwhile answers BadWindow, which nobody reads.
			composite.UnredirectWindow(c.xc, w, composite.RedirectAutomatic)
		}
		if c.shm != nil {
			c.shm.close(c.xc)
		}
		_, _ = xproto.GetInputFocus(c.xc).Reply()
	}()
	select {
	case <-done:
	case <-c.dead:
	case <-time.After(time.Second):
	}
	go c.xc.Close() // xgb's Close can block on a hung server; the event loop ends either way
	select {
	case <-c.loopDone:
	case <-time.After(time.Second):
	}
	c.markDead()
	return nil
}

func (c *Conn) markDead() { c.deadOnce.Do(func() { close(c.dead) }) }

// eventLoop drains xgb's event queue for the life of the connection. It must never stop reading:
// xgb's reader blocks once 5000 events are queued, which would stall every reply.
func (c *Conn) eventLoop() {
	defer close(c.loopDone)
	defer c.markDead()
	for {
		ev, xe := c.xc.WaitForEvent()
		if ev == nil && xe == nil {
			return // connection closed or broken
		}
		if xe != nil {
			continue // errors of unchecked requests; nobody waits for them
		}
		switch e := ev.(type) {
		case damage.NotifyEvent:
			c.mu.Lock()
			ch := c.damages[e.Damage]
			c.mu.Unlock()
			if ch != nil {
				select {
				case ch <- e:
				default: // a waiter that fell behind only waits longer
				}
			}
		case xproto.MapNotifyEvent:
			c.mu.Lock()
			ch := c.mapWaiters[e.Window]
			c.mu.Unlock()
			if ch != nil {
				select {
				case ch <- struct{}{}:
				default:
				}
			}
			c.wakeStructure(e.Event, e.Window)
		case xproto.UnmapNotifyEvent:
			c.wakeStructure(e.Event, e.Window)
		case xproto.DestroyNotifyEvent:
			c.mu.Lock()
			delete(c.wins, e.Window)
			c.mu.Unlock()
			c.wakeStructure(e.Event, e.Window)
		case xproto.ConfigureNotifyEvent:
			switch {
			case e.Window == c.scr.root:
				r := platform.Rect{Width: int(e.Width), Height: int(e.Height)}
				c.bounds.Store(&r)
			case e.Event == e.Window:
				// A client's own (or the window manager's synthetic) ConfigureNotify. Frames
				// moving under the root are not worth a wake-up: they stream during drags.
				c.wake(e.Window)
			}
		case xproto.PropertyNotifyEvent:
			if !c.ready.Load() {
				break // nobody can be waiting yet, and the atoms are being interned
			}
			if e.Window != c.scr.root {
				if uint32(e.Window) == c.helper.win.Load() {
					c.helper.noteProperty(c, e)
				}
				c.wake(e.Window)
			} else if e.Atom == c.atoms.netClientList || e.Atom == c.atoms.netActiveWindow {
				c.wake(e.Window)
			}
		case xproto.ClientMessageEvent:
			if c.ready.Load() {
				c.routePong(e)
			}
		case xproto.SelectionNotifyEvent:
			c.mu.Lock()
			ch := c.selNotify
			c.mu.Unlock()
			if ch != nil {
				select {
				case ch <- e:
				default:
				}
			}
		case xproto.MappingNotifyEvent:
			// Someone (often ourselves, while typing) changed the keyboard or modifier mapping.
			c.in.kmGen.Add(1)
		}
	}
}

// await runs f, which issues X requests and reads their replies, on its own goroutine and waits
// for it under ctx. xgb's Reply has no deadline, so this is where a call gives up on a server that
// does not answer. An abandoned f finishes when its replies arrive or the connection closes, so it
// must own every resource it touches.
func (c *Conn) await(ctx context.Context, what string, f func() error) error {
	if err := c.alive(what); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		if err != nil && c.alive(what) != nil {
			return c.alive(what)
		}
		return err
	case <-ctx.Done():
		return fmt.Errorf("%s: the X server did not answer in time: %w", what, ctx.Err())
	case <-c.dead:
		return c.alive(what)
	}
}

// broken reports whether the connection is closed or lost.
func (c *Conn) broken() bool { return c.alive("") != nil }

// alive fails with ErrDisplayUnavailable once the connection is closed or broken.
func (c *Conn) alive(what string) error {
	if c.closed.Load() {
		return fmt.Errorf("%w: %s: connection to %q is closed", platform.ErrDisplayUnavailable, what, c.display)
	}
	select {
	case <-c.dead:
		return fmt.Errorf("%w: %s: lost the connection to X display %q", platform.ErrDisplayUnavailable, what, c.display)
	default:
		return nil
	}
}

// xerr converts an error met while talking to X into a platform sentinel, exactly once: errors
// that already carry a sentinel, and context errors, pass through. A missing window or drawable
// becomes ErrWindowClosed, any other X protocol error becomes onX, and anything else from xgb
// (io.EOF once the server has gone) becomes ErrDisplayUnavailable.
func xerr(err error, onX error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return err
		}
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	detail := fmt.Sprintf(format, args...)
	var xe xgb.Error
	if errors.As(err, &xe) {
		switch xe.(type) {
		case xproto.WindowError, xproto.DrawableError:
			return fmt.Errorf("%w: %s: %s", platform.ErrWindowClosed, detail, xe.Error())
		}
		return fmt.Errorf("%w: %s: %s", onX, detail, xe.Error())
	}
	return fmt.Errorf("%w: %s: %v", platform.ErrDisplayUnavailable, detail, err)
}

var sentinels = []error{
	platform.ErrWindowNotFound, platform.ErrWindowClosed, platform.ErrDisplayUnavailable,
	platform.ErrCaptureFailed, platform.ErrElementStale, platform.ErrNoAccessibleTree,
	platform.ErrAppNotResponding, platform.ErrElevated, platform.ErrAtspiUnavailable,
}

// isGone reports whether err says a window or drawable no longer exists.
func isGone(err error) bool {
	var xe xgb.Error
	if errors.As(err, &xe) {
		switch xe.(type) {
		case xproto.WindowError, xproto.DrawableError:
			return true
		}
	}
	return false
}
