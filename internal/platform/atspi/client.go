package atspi

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/atspi/dbuswire"
	"github.com/mcec/mcec/internal/sysload"
)

// Options configures a Client. The zero value is usable.
type Options struct {
	// CallTimeout bounds every D-Bus call (min with the caller's deadline); default 2 s. Both
	// it and ModalGrace stretch with the machine's load (sysload.Scale): a loaded machine
	// slows a working application past them.
	CallTimeout time.Duration
	// ModalGrace is how long the call that performs an action and the probe right after it
	// wait before mcec asks whether the application is in a modal dialog's nested loop or only
	// busy (act.go, awaitCall); one in a nested loop is reported as showing a modal dialog
	// (ActResult.ModalPending). Default 750 ms.
	ModalGrace time.Duration
	// Logger receives debug notes (fallback walks, skipped nodes); default: discard.
	Logger *slog.Logger
	// WindowsOf lists the windows of a process, so that Tree can tell a process's frames apart
	// by the windows they belong to; nil: only the window asked for is considered.
	WindowsOf func(ctx context.Context, pid int) ([]platform.Window, error)
	// Window re-reads one window, for the origin of bridges that report window-relative
	// extents when an element is re-read by ref; nil: such elements have no bounds.
	Window func(ctx context.Context, handle uint32) (platform.Window, error)
	// Popups lists the screen rectangles of the mapped popup surfaces (override-redirect
	// windows) of the X client that owns a window, for bridges with window-relative extents
	// whose popovers report positions relative to the main window (popups.go); nil: not placed.
	Popups func(ctx context.Context, handle uint32) ([]platform.Rect, error)
	// PopupSurface finds, on Wayland, the screen corner of the popup surface of process pid
	// whose highest object has the window extents top (surfaces.go); false when the compositor
	// does not say. nil: popups have no bounds.
	PopupSurface func(ctx context.Context, pid int, top platform.Rect) (platform.Point, bool)
	// WindowLocal says that every application reports extents relative to its own window
	// whatever coordinate type is asked (Wayland: shared/spec/wayland-notes.md §3), so every
	// tree is placed by its window's origin.
	WindowLocal bool
	// Origin finds where on screen a window-relative frame's (0,0) lies, from the window, the
	// frame's extents as its toolkit reported them (a GTK 3 frame on Wayland includes its
	// client-side shadow) and, when the frame's size differs from the window's, those of the
	// objects right below it (a header bar spans the client area); ok false when no rule fits: the tree then
	// has no bounds rather than wrong ones. nil: the window's own origin.
	Origin func(w platform.Window, frame platform.Rect, children []platform.Rect) (origin platform.Point, ok bool)
	// NoMirror makes every Tree walk the application, never answering from the warm mirror
	// (mirror.go); for measuring walks, or an operator who distrusts an application's events.
	NoMirror bool
	// NoPeer keeps every call on the bus: applications' own sockets are not used (peer.go).
	NoPeer bool
}

// Client reads accessibility trees from the AT-SPI bus. It is safe for concurrent use; all
// calls share its two connections (see fastcall.go).
type Client struct {
	conn *dbus.Conn
	fast *dbuswire.Conn // the hot calls' connection (fastcall.go); nil: godbus only
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	pids    map[string]int          // unique bus name → process id; bus names are never reused
	bridges map[string]bridge       // unique bus name → what its accessibility bridge serves safely
	cached  map[string]int          // unique bus name → objects its last Cache.GetItems held (snapshotTimeout)
	frames  map[objRef]placedFrame  // frame → its window, for bridges with window-relative extents
	vcl     vclShifts               // LibreOffice frames' menu bar shifts
	owners  map[string]string       // well-known bus name of a plug → its unique name (embed.go)
	embeds  map[int]map[string]bool // process id → plug buses its trees crossed into (embed.go)

	calls atomic.Int64 // D-Bus calls made, for the debug log

	meta metaCache // per-object facts that never change, to skip their calls next time

	hub  *hub      // fans the connection's signals out to watchers
	regs eventRegs // event types registered for watchers, counted

	mirror mirror // trees kept while their applications send no event (mirror.go)

	aliases refAliases // short refs for GTK 4's long object paths (ref.go)

	peers peerConns // applications' own sockets for the fast path (peer.go)

	closeOnce sync.Once
	closeErr  error

	noCache      bool // tests: ignore Cache.GetItems to exercise the walk by calls
	unstretched  bool // tests: deadlines as given, whatever the load (stretch)
	noPeer       bool // tests and benchmarks: every fast call through the bus daemon
	readCellText bool // tests: read table cells' text even where it is their name (bridge.cellTextIsName)
	everyExtent  bool // tests: measure every cell of a table, in view or not (bridge.cellsInRows)
	noMirror     bool // tests and benchmarks: every Tree walks
	mirrorAll    bool // tests: mirror every toolkit, to measure which events one misses
}

// D-Bus names of the AT-SPI registry and interfaces.
const (
	registryName   = "org.a11y.atspi.Registry"
	registryPath   = dbus.ObjectPath("/org/a11y/atspi/registry")
	registryRoot   = dbus.ObjectPath("/org/a11y/atspi/accessible/root")
	nullPath       = dbus.ObjectPath("/org/a11y/atspi/null")
	cachePath      = dbus.ObjectPath("/org/a11y/atspi/cache")
	ifAccessible   = "org.a11y.atspi.Accessible"
	ifApplication  = "org.a11y.atspi.Application"
	ifComponent    = "org.a11y.atspi.Component"
	ifAction       = "org.a11y.atspi.Action"
	ifText         = "org.a11y.atspi.Text"
	ifValue        = "org.a11y.atspi.Value"
	ifTable        = "org.a11y.atspi.Table"
	ifCache        = "org.a11y.atspi.Cache"
	propGet        = "org.freedesktop.DBus.Properties.Get"
	propGetAll     = "org.freedesktop.DBus.Properties.GetAll"
	propSet        = "org.freedesktop.DBus.Properties.Set"
	defaultTimeout = 2 * time.Second
	defaultGrace   = 750 * time.Millisecond
)

// registeredEvent is the event Connect listens for. Registering any listener makes toolkit
// bridges publish Cache.GetItems; apps then emit signals only for registered event types, so a
// rare one keeps the bus quiet.
const registeredEvent = "window:create"

// Connect dials the session bus at sessionBusAddr ("" = $DBUS_SESSION_BUS_ADDRESS), asks
// org.a11y.Bus.GetAddress for the accessibility bus, dials it, and registers an event listener
// so applications serve Cache.GetItems. Failures wrap platform.ErrAtspiUnavailable.
func Connect(ctx context.Context, sessionBusAddr string, opts Options) (*Client, error) {
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = defaultTimeout
	}
	if opts.ModalGrace <= 0 {
		opts.ModalGrace = defaultGrace
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if sessionBusAddr == "" {
		sessionBusAddr = os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	}
	if sessionBusAddr == "" {
		return nil, fmt.Errorf("%w: no session bus address (DBUS_SESSION_BUS_ADDRESS is unset)", platform.ErrAtspiUnavailable)
	}
	session, err := dial(ctx, sessionBusAddr, opts.CallTimeout, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: session bus %s: %v", platform.ErrAtspiUnavailable, sessionBusAddr, err)
	}
	var addr string
	cctx, cancel := context.WithTimeout(ctx, opts.CallTimeout)
	err = session.Object("org.a11y.Bus", "/org/a11y/bus").CallWithContext(cctx, "org.a11y.Bus.GetAddress", 0).Store(&addr)
	cancel()
	_ = session.Close()
	if err != nil {
		return nil, fmt.Errorf("%w: org.a11y.Bus.GetAddress: %v (is at-spi2-core installed and the bus launcher running?)", platform.ErrAtspiUnavailable, err)
	}
	h := newHub()
	conn, err := dial(ctx, addr, opts.CallTimeout, h)
	if err != nil {
		return nil, fmt.Errorf("%w: accessibility bus %s: %v", platform.ErrAtspiUnavailable, addr, err)
	}
	c := &Client{conn: conn, opts: opts, log: log, pids: make(map[string]int), bridges: make(map[string]bridge), cached: make(map[string]int),
		frames: make(map[objRef]placedFrame), hub: h, noMirror: opts.NoMirror, noPeer: opts.NoPeer}
	if err := c.registerEvent(ctx, registeredEvent); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("%w: Registry.RegisterEvent: %v", platform.ErrAtspiUnavailable, err)
	}
	fctx, cancel := context.WithTimeout(ctx, opts.CallTimeout)
	c.fast, err = dbuswire.Dial(fctx, addr)
	cancel()
	if err != nil {
		log.Debug("atspi: no fast connection, all calls through godbus", "err", err)
	}
	return c, nil
}

// registerEvent uses the (event, properties, app) signature of at-spi2-core ≥ 2.46 and falls
// back to the original single-string one for older registries.
func (c *Client) registerEvent(ctx context.Context, event string) error {
	reg := c.conn.Object(registryName, registryPath)
	cctx, cancel := c.callContext(ctx)
	defer cancel()
	err := reg.CallWithContext(cctx, "org.a11y.atspi.Registry.RegisterEvent", 0, event, []string{}, "").Err
	if err != nil && classify(err) == failNoIface {
		err = reg.CallWithContext(cctx, "org.a11y.atspi.Registry.RegisterEvent", 0, event).Err
	}
	return err
}

// dial connects and authenticates within timeout: godbus's Auth and Hello take no context,
// so a bus that accepts the socket but never answers is cut off by closing the connection.
// Signals go to h (nil: godbus's default handler).
func dial(ctx context.Context, addr string, timeout time.Duration, h dbus.SignalHandler) (*dbus.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var opts []dbus.ConnOption
	if h != nil {
		opts = append(opts, dbus.WithSignalHandler(h))
	}
	conn, err := dbus.Dial(addr, opts...)
	if err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() {
		err := conn.Auth(nil)
		if err == nil {
			err = conn.Hello()
		}
		done <- err
	}()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = conn.Close()
		<-done
		err = ctx.Err()
	}
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	return conn, nil
}

// Close closes the accessibility bus connection; the registry drops our event listener when
// the connection goes. Calls in flight and later fail with platform.ErrAtspiUnavailable.
// Closing twice is harmless.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.closeErr = c.conn.Close()
		if c.fast != nil {
			_ = c.fast.Close()
		}
		c.closePeers()
	})
	return c.closeErr
}

// callTimeout is CallTimeout stretched by the machine's load.
func (c *Client) callTimeout() time.Duration { return c.stretch(c.opts.CallTimeout) }

// modalGrace is ModalGrace stretched by the machine's load.
func (c *Client) modalGrace() time.Duration { return c.stretch(c.opts.ModalGrace) }

// stretch scales a deadline by the machine's load (sysload.Scale); tests that measure the
// deadlines themselves turn it off.
func (c *Client) stretch(d time.Duration) time.Duration {
	if c.unstretched {
		return d
	}
	return sysload.Scale(d)
}

// callContext bounds one call by CallTimeout and the caller's own deadline.
func (c *Client) callContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.callTimeout())
}

// call makes one D-Bus call with a deadline and converts a fatal failure; the returned
// failure lets callers treat dead nodes and missing interfaces as data.
func (c *Client) call(ctx context.Context, dest string, path dbus.ObjectPath, method string, args ...any) (*dbus.Call, failure, error) {
	return c.callWithin(ctx, c.callTimeout(), dest, path, method, args...)
}

// callWithin is call with its own deadline instead of CallTimeout.
func (c *Client) callWithin(ctx context.Context, timeout time.Duration, dest string, path dbus.ObjectPath, method string, args ...any) (*dbus.Call, failure, error) {
	c.calls.Add(1)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	call := c.conn.Object(dest, path).CallWithContext(cctx, method, 0, args...)
	cancel()
	if call.Err == nil {
		return call, 0, nil
	}
	return call, classify(call.Err), c.callError(call.Err, timeout, dest, path, method)
}

// property reads one property into v.
func (c *Client) property(ctx context.Context, dest string, path dbus.ObjectPath, iface, name string, v any) (failure, error) {
	if handled, f, err := c.fastProperty(ctx, dest, path, iface, name, v); handled {
		return f, err
	}
	call, f, err := c.call(ctx, dest, path, propGet, iface, name)
	if err != nil {
		return f, err
	}
	var variant dbus.Variant
	if err := call.Store(&variant); err != nil {
		return failOther, err
	}
	if err := variant.Store(v); err != nil {
		return failOther, fmt.Errorf("atspi: %s.%s: %w", iface, name, err)
	}
	return 0, nil
}

// pid returns the process id behind a unique bus name, from the bus daemon (never blocked by
// an app), cached for the life of the connection.
func (c *Client) pid(ctx context.Context, bus string) (int, error) {
	c.mu.Lock()
	p, ok := c.pids[bus]
	c.mu.Unlock()
	if ok {
		return p, nil
	}
	call, _, err := c.call(ctx, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.GetConnectionUnixProcessID", bus)
	if err != nil {
		return 0, err
	}
	var u uint32
	if err := call.Store(&u); err != nil {
		return 0, fmt.Errorf("atspi: pid of %s: %w", bus, err)
	}
	c.mu.Lock()
	c.pids[bus] = int(u)
	c.mu.Unlock()
	return int(u), nil
}

// forget drops what is cached about bus names that are no longer registered apps, or plugs
// of a process that has none left (embed.go).
func (c *Client) forget(live map[string]bool) {
	c.mu.Lock()
	live = c.withEmbeds(live)
	for name := range c.pids {
		if !live[name] {
			delete(c.pids, name)
		}
	}
	for name := range c.bridges {
		if !live[name] {
			delete(c.bridges, name)
		}
	}
	maps.DeleteFunc(c.cached, func(name string, _ int) bool { return !live[name] })
	for r := range c.frames {
		if !live[r.Bus] {
			delete(c.frames, r)
		}
	}
	c.vcl.mu.Lock()
	for r := range c.vcl.m {
		if !live[r.Bus] {
			delete(c.vcl.m, r)
		}
	}
	c.vcl.mu.Unlock()
	c.mu.Unlock()
	c.meta.keep(live)
	c.forgetMirrored(live)
	c.aliases.forget(live)
	c.forgetPeers(live)
}
