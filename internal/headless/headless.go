// Package headless starts and stops a private desktop: either X11 (Xvfb on a
// free display and openbox) or Wayland (headless sway, sway.go; KDE's KWin,
// kwin.go; GNOME Shell with mcec's extension, gnome.go; Phosh's phoc, phoc.go), each with a private
// D-Bus session bus and the AT-SPI bus launcher.
// Everything runs under a private XDG_RUNTIME_DIR, so desktops started
// concurrently (tests in parallel packages, provisioned sessions) never
// share a socket, and Stop ends every process by its process group.
package headless

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/mcec/mcec/internal/paths"
)

// DefaultStartTimeout bounds Start when ctx has no deadline.
const DefaultStartTimeout = 10 * time.Second

// Kind is the display server of a private desktop.
type Kind string

// The kinds of private desktop.
const (
	X11     Kind = "x11"     // Xvfb and openbox
	Wayland Kind = "wayland" // headless sway
	KWin    Kind = "kwin"    // KDE's kwin_wayland on its virtual backend (kwin.go)
	GNOME   Kind = "gnome"   // gnome-shell, headless, with mcec's extension (gnome.go)
	Phoc    Kind = "phoc"    // Phosh's wlroots compositor, without sway's IPC (phoc.go)
)

// IsWayland reports whether the desktop is a Wayland compositor.
func (k Kind) IsWayland() bool { return k == Wayland || k == KWin || k == GNOME || k == Phoc }

// ParseKind reads a --desktop value ("" is X11, the default).
func ParseKind(s string) (Kind, error) {
	switch Kind(strings.ToLower(s)) {
	case "", X11:
		return X11, nil
	case Wayland:
		return Wayland, nil
	case KWin:
		return KWin, nil
	case GNOME:
		return GNOME, nil
	case Phoc:
		return Phoc, nil
	}
	return "", fmt.Errorf("unknown desktop %q: want x11, wayland, kwin, gnome or phoc", s)
}

// Options configure Start. The zero value is a 1280x800x24 X11 desktop with a
// window manager and no logging.
type Options struct {
	// Kind picks the display server (default X11).
	Kind                 Kind
	Width, Height, Depth int  // default 1280, 800, 24
	NoWindowManager      bool // skip openbox
	// XWayland starts Xwayland on a Wayland (sway or GNOME) desktop: programs that speak only
	// X11 run there (DISPLAY is set in the desktop's environment), while toolkits still pick
	// Wayland.
	XWayland bool
	// NoShellExtension starts a GNOME desktop without mcec's extension, as a user's session is
	// before `mcec setup gnome`: the compositor lists no windows to any program.
	NoShellExtension bool
	// ShellExtensionFor, for tests, installs the extension's variant for that GNOME version
	// rather than the running Shell's (as a user whose GNOME was upgraded under it has it), and
	// waits for the Shell only, not for the extension.
	ShellExtensionFor int
	// KWinChecks keeps KWin's permission checks on a KWin desktop, as in a user's Plasma
	// session: ScreenShot2 and fake input only for clients a desktop file allows.
	KWinChecks bool
	// NoGLX starts Xvfb without its GLX extension: it then maps no Mesa/LLVM software renderer,
	// which is most of its memory (docs/scale.md). GTK 3, Qt and pixel-only apps do not notice;
	// apps that insist on GLX (some GL games, old Electron) fail to open their windows.
	NoGLX  bool
	Logger *slog.Logger // nil = discard; child output is logged at Debug

	// stepHook, for tests, runs at the start of each step of Start.
	stepHook func(d *Desktop, step string)
}

// Steps of Start, as named in StartError.
const (
	StepSetup         = "setup"
	StepXvfb          = "xvfb"
	StepSessionBus    = "session-bus"
	StepA11yBus       = "a11y-bus"
	StepWindowManager = "window-manager"
	StepCompositor    = "compositor" // the Wayland desktop's sway
)

// StartError says which step of Start failed and what the failing process
// printed last.
type StartError struct {
	Step    string   // one of the Step constants
	Program string   // the process of that step, if one was running
	Err     error    // wraps ctx's error on cancellation or deadline
	Stderr  []string // its last output lines, oldest first
}

func (e *StartError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "headless: start %s: %v", e.Step, e.Err)
	if len(e.Stderr) > 0 {
		last := e.Stderr[max(0, len(e.Stderr)-5):]
		fmt.Fprintf(&b, " (%s said: %s)", e.Program, strings.Join(last, " | "))
	}
	return b.String()
}

func (e *StartError) Unwrap() error { return e.Err }

// Desktop is a running private desktop. Its methods are safe for concurrent use.
type Desktop struct {
	log        *slog.Logger
	dir        string // private XDG_RUNTIME_DIR, removed by Stop
	displayNum int
	display    string
	busAddr    string
	a11yAddr   string
	env        []string
	lockPID    int       // the pid in our /tmp/.X<n>-lock
	began      time.Time // when Start began: pipes made since are its programs' (officepipes.go)
	procs      []*child  // in start order: Xvfb, dbus-daemon, launcher, openbox
	guard      *watchdog // ends the desktop if this process dies without Stop (leftovers.go)
	xvfb       *child
	x          *xconn // nil on a Wayland desktop

	kind            Kind
	compositor      *child // sway, on a Wayland desktop
	waylandSocket   string // absolute path of the Wayland display socket
	xwaylandDisplay string // ":N" of the compositor's Xwayland, when Options.XWayland
	swaySocket      string // absolute path of sway's IPC socket

	stopOnce sync.Once
	stopErr  error
}

// Start starts a desktop and returns when it is usable: X accepts clients,
// the session bus and the AT-SPI bus answer, the registry is up and, unless
// disabled, the window manager manages the screen. Without a deadline on ctx
// it allows DefaultStartTimeout. On failure, or if ctx ends, everything
// started so far is stopped and the error is a *StartError.
func Start(ctx context.Context, opts Options) (*Desktop, error) {
	if opts.Width <= 0 {
		opts.Width = 1280
	}
	if opts.Height <= 0 {
		opts.Height = 800
	}
	if opts.Depth <= 0 {
		opts.Depth = 24
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultStartTimeout)
		defer cancel()
	}
	if opts.Kind == "" {
		opts.Kind = X11
	}
	began := time.Now()
	d := &Desktop{log: opts.Logger, displayNum: -1, kind: opts.Kind, began: began}
	if err := d.start(ctx, opts); err != nil {
		if serr := d.Stop(); serr != nil {
			d.log.Warn("cleanup after failed start", "err", serr)
		}
		return nil, err
	}
	d.log.Info("headless desktop ready", "kind", d.kind, "display", d.display, "wayland", d.waylandSocket, "dir", d.dir,
		"elapsed", time.Since(began).Round(time.Millisecond))
	return d, nil
}

func (d *Desktop) start(ctx context.Context, opts Options) error {
	step := func(name string) {
		if opts.stepHook != nil {
			opts.stepHook(d, name)
		}
	}
	step(StepSetup)
	// Desktops of owners that died with their watchdog: cleared before ours is made.
	sweepLeftovers(sweepRoots(), d.log)
	dir, err := makeRuntimeDir()
	if err != nil {
		return &StartError{Step: StepSetup, Err: err}
	}
	d.dir = dir
	if err := writeOwner(dir); err != nil {
		return &StartError{Step: StepSetup, Err: err}
	}
	if d.guard, err = startWatchdog(dir); err != nil {
		// Stop still cleans up; only a kill -9 of this process would leave the desktop behind.
		d.log.Warn("no watchdog for the private desktop: if mcec is killed outright, its processes stay until the next start", "err", err)
	}

	switch d.kind {
	case Wayland:
		return d.startWayland(ctx, opts, step, "sway", d.startSway)
	case Phoc:
		return d.startWayland(ctx, opts, step, phocDesktopNames, d.startPhoc)
	case KWin:
		return d.startKWinDesktop(ctx, opts, step)
	case GNOME:
		return d.startGNOMEDesktop(ctx, opts, step)
	}
	step(StepXvfb)
	if err := d.startXvfb(ctx, opts); err != nil {
		return err
	}
	// Known before dbus-daemon runs, so its own environment (which services
	// it activates inherit) already points at the desktop.
	d.env = desktopEnv(os.Environ(), d.display, d.sessionBusSocket(), d.dir)

	step(StepSessionBus)
	if err := d.startSessionBus(ctx); err != nil {
		return err
	}
	d.env = desktopEnv(os.Environ(), d.display, d.busAddr, d.dir)

	// The window manager needs only X: it starts alongside the a11y steps.
	wmCtx, cancelWM := context.WithCancel(ctx)
	defer cancelWM()
	wmErr := make(chan error, 1)
	if opts.NoWindowManager {
		wmErr <- nil
	} else {
		step(StepWindowManager)
		wm, err := d.spawnWM()
		if err != nil {
			return err
		}
		go func() { wmErr <- d.waitWM(wmCtx, wm) }()
	}

	step(StepA11yBus)
	if err := d.startA11y(ctx); err != nil {
		cancelWM()
		<-wmErr
		return err
	}
	return <-wmErr
}

// startWayland runs Start's steps for a wlroots desktop (sway, phoc): the compositor, then the
// buses. The compositor is its own window manager; desktop is what XDG_CURRENT_DESKTOP says.
func (d *Desktop) startWayland(ctx context.Context, opts Options, step func(string), desktop string,
	startCompositor func(context.Context, Options) error) error {
	step(StepCompositor)
	if err := startCompositor(ctx, opts); err != nil {
		return err
	}
	d.env = waylandEnv(os.Environ(), desktop, d.waylandSocket, d.swaySocket, d.xwaylandDisplay, d.sessionBusSocket(), d.dir)
	step(StepSessionBus)
	if err := d.startSessionBus(ctx); err != nil {
		return err
	}
	d.env = waylandEnv(os.Environ(), desktop, d.waylandSocket, d.swaySocket, d.xwaylandDisplay, d.busAddr, d.dir)
	if d.xwaylandDisplay != "" {
		d.env = WithNonReparentingWM(d.env)
	}
	step(StepA11yBus)
	return d.startA11y(ctx)
}

// startKWinDesktop runs Start's steps for a KWin desktop: the session bus first, as KWin
// registers its interfaces there, then the compositor, then the a11y bus.
func (d *Desktop) startKWinDesktop(ctx context.Context, opts Options, step func(string)) error {
	d.env = waylandEnv(os.Environ(), "KDE", filepath.Join(d.dir, "wayland-0"), "", "", d.sessionBusSocket(), d.dir)
	step(StepSessionBus)
	if err := d.startSessionBus(ctx); err != nil {
		return err
	}
	step(StepCompositor)
	if err := d.startKWin(ctx, opts); err != nil {
		return err
	}
	d.env = waylandEnv(os.Environ(), "KDE", d.waylandSocket, "", "", d.busAddr, d.dir)
	step(StepA11yBus)
	return d.startA11y(ctx)
}

// startGNOMEDesktop runs Start's steps for a GNOME desktop: the session bus, the a11y bus (the
// Shell asks for it as it starts, and would otherwise have it activated), then the Shell.
func (d *Desktop) startGNOMEDesktop(ctx context.Context, opts Options, step func(string)) error {
	d.env = waylandEnv(os.Environ(), "GNOME", filepath.Join(d.dir, "wayland-0"), "", "", d.sessionBusSocket(), d.dir)
	step(StepSessionBus)
	if err := d.startSessionBus(ctx); err != nil {
		return err
	}
	d.env = waylandEnv(os.Environ(), "GNOME", filepath.Join(d.dir, "wayland-0"), "", "", d.busAddr, d.dir)
	step(StepA11yBus)
	if err := d.startA11y(ctx); err != nil {
		return err
	}
	step(StepCompositor)
	if err := d.startGNOME(ctx, opts); err != nil {
		return err
	}
	d.env = waylandEnv(os.Environ(), "GNOME", d.waylandSocket, "", d.xwaylandDisplay, d.busAddr, d.dir)
	return nil
}

// tmpSubdir is the desktop's own TMPDIR, inside its runtime directory: the temporary files and
// folders of the programs it runs (a browser's profile locks and sockets, an office suite's
// scratch files) go when the desktop goes, also when a program is killed and cannot clean up.
const tmpSubdir = "tmp"

// makeRuntimeDir creates the private XDG_RUNTIME_DIR in paths.DesktopRoot, which
// bypasses a TMPDIR too long for the sockets inside, and the desktop's TMPDIR in it.
func makeRuntimeDir() (string, error) {
	dir, err := os.MkdirTemp(paths.DesktopRoot(), deskPrefix)
	if err != nil {
		return "", err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return dir, err
	}
	return dir, os.Mkdir(filepath.Join(dir, tmpSubdir), 0o700)
}

// spawnStep starts a step's process and records it for Stop.
func (d *Desktop) spawnStep(step, name string, argv []string, extra []*os.File, deathSig syscall.Signal) (*child, error) {
	c, err := spawn(d.log, name, argv, d.env, extra, deathSig, nil)
	if err != nil {
		return nil, &StartError{Step: step, Program: name, Err: err}
	}
	d.procs = append(d.procs, c)
	d.guard.watch(c.pid)
	return c, nil
}

// fail builds a step's StartError. When ctx has ended, the error says so
// even if it surfaced as something else, such as a connection that ctx closed.
func (d *Desktop) fail(ctx context.Context, step string, c *child, err error) error {
	if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		err = fmt.Errorf("%w: %w", ctx.Err(), err)
	}
	e := &StartError{Step: step, Err: err}
	if c != nil {
		e.Program, e.Stderr = c.name, c.tail()
		if c.exited() {
			status := "exit status 0"
			if err := c.waitErr(); err != nil {
				status = err.Error()
			}
			e.Err = fmt.Errorf("%w (%s: %s)", err, c.name, status)
		}
	}
	return e
}

func (d *Desktop) startXvfb(ctx context.Context, opts Options) error {
	xvfb, err := lookProgram("Xvfb")
	if err != nil {
		return &StartError{Step: StepXvfb, Err: err}
	}
	for attempt := 1; ; attempt++ {
		n, lock, err := claimDisplay()
		if err != nil {
			return &StartError{Step: StepXvfb, Err: err}
		}
		d.displayNum, d.display, d.lockPID = n, ":"+strconv.Itoa(n), os.Getpid()
		c, err := d.runXvfb(ctx, xvfb, opts, lock)
		d.xvfb = c
		if err == nil {
			break
		}
		if attempt < 5 && c != nil && c.exited() && displayTaken(c.tail()) {
			// A server that writes no lock file (one started with
			// -displayfd alone) holds the number: try another.
			d.log.Debug("display taken, retrying", "display", d.display)
			d.procs = slices.DeleteFunc(d.procs, func(p *child) bool { return p == c })
			_ = d.removeXFiles()
			continue
		}
		return err
	}
	if d.x, err = dialX(ctx, d.display); err != nil {
		return d.fail(ctx, StepXvfb, d.xvfb, fmt.Errorf("connect to %s: %w", d.display, err))
	}
	if err := d.x.checkExtensions(); err != nil {
		return d.fail(ctx, StepXvfb, d.xvfb, err)
	}
	return nil
}

// runXvfb starts Xvfb on the claimed display and waits until it accepts
// clients. It closes lock after writing Xvfb's pid into it.
func (d *Desktop) runXvfb(ctx context.Context, xvfb string, opts Options, lock *os.File) (*child, error) {
	defer lock.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, &StartError{Step: StepXvfb, Err: err}
	}
	defer pr.Close()
	argv := []string{xvfb, d.display,
		"-displayfd", "3", // written once the server accepts clients
		"-screen", "0", fmt.Sprintf("%dx%dx%d", opts.Width, opts.Height, opts.Depth),
		"-nolisten", "tcp",
		"-noreset", // otherwise the server resets, wiping root properties, whenever its last client leaves
		"-dpi", "96",
		// No autorepeat: a key's press and release travel together, but a server descheduled
		// between them on a loaded machine repeated the key (TestQueueUnderLoad read one
		// character too many), and nothing mcec does holds a key to repeat it.
		"-r",
		"+extension", "Composite", "+extension", "RANDR", "+extension", "MIT-SHM", "+extension", "XTEST",
	}
	if opts.NoGLX {
		argv = append(argv, "-extension", "GLX")
	}
	// SIGTERM, not SIGKILL, if we die: Xvfb then removes its socket itself.
	c, err := d.spawnStep(StepXvfb, "Xvfb", argv, []*os.File{pw}, syscall.SIGTERM)
	pw.Close()
	if err != nil {
		return nil, err
	}
	// The lock names the server, as X servers' stale lock checks expect.
	if err := writeLockPID(lock, c.pid); err == nil {
		d.lockPID = c.pid
	}
	line, err := readLineFD(ctx, pr)
	if err != nil {
		return c, d.fail(ctx, StepXvfb, c, fmt.Errorf("waiting for %s: %w", d.display, err))
	}
	if line != strconv.Itoa(d.displayNum) {
		return c, d.fail(ctx, StepXvfb, c, fmt.Errorf("server reports display %q, want %d", line, d.displayNum))
	}
	return c, nil
}

// sessionBusSocket is the address of the session bus's socket in the runtime directory.
func (d *Desktop) sessionBusSocket() string {
	return "unix:path=" + dbusEscape(filepath.Join(d.dir, "bus"))
}

func (d *Desktop) startSessionBus(ctx context.Context) error {
	daemon, err := lookProgram("dbus-daemon")
	if err != nil {
		return &StartError{Step: StepSessionBus, Err: err}
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return &StartError{Step: StepSessionBus, Err: err}
	}
	defer pr.Close()
	// The socket is $XDG_RUNTIME_DIR/bus, the path libdbus and GLib try
	// when DBUS_SESSION_BUS_ADDRESS is unset, before autolaunching.
	argv := []string{daemon, "--session", "--nofork", "--nopidfile", "--nosyslog",
		"--address=" + d.sessionBusSocket(),
		"--print-address=3"}
	c, err := d.spawnStep(StepSessionBus, "dbus-daemon", argv, []*os.File{pw}, syscall.SIGKILL)
	pw.Close()
	if err != nil {
		return err
	}
	if d.busAddr, err = readLineFD(ctx, pr); err != nil {
		return d.fail(ctx, StepSessionBus, c, fmt.Errorf("waiting for bus address: %w", err))
	}
	if d.x == nil {
		return nil // Wayland: the bus is found through the environment and the runtime directory
	}
	if err := d.x.publishSessionBus(ctx, d.busAddr, c.pid); err != nil {
		return d.fail(ctx, StepSessionBus, c, err)
	}
	return nil
}

func (d *Desktop) startA11y(ctx context.Context) error {
	launcher, err := lookProgram("at-spi-bus-launcher")
	if err != nil {
		return &StartError{Step: StepA11yBus, Err: err}
	}
	// --a11y=1: with GSETTINGS_BACKEND=memory the launcher would otherwise
	// read toolkit-accessibility=false and report IsEnabled=false.
	c, err := d.spawnStep(StepA11yBus, "at-spi-bus-launcher",
		[]string{launcher, "--launch-immediately", "--a11y=1"}, nil, syscall.SIGKILL)
	if err != nil {
		return err
	}
	fail := func(what string, err error) error {
		return d.fail(ctx, StepA11yBus, c, fmt.Errorf("%s: %w", what, err))
	}
	// Both connections close themselves when ctx ends, which bounds the auth
	// handshakes that godbus runs without a deadline.
	bus, err := dbus.Connect(d.busAddr, dbus.WithContext(ctx))
	if err != nil {
		return fail("connect to session bus", err)
	}
	defer bus.Close()
	err = poll(ctx, pollEvery, func() (bool, error) {
		if c.exited() {
			return false, c.exitError()
		}
		var has bool
		err := bus.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, "org.a11y.Bus").Store(&has)
		return has, err
	})
	if err != nil {
		return fail("waiting for org.a11y.Bus", err)
	}
	launcherObj := bus.Object("org.a11y.Bus", "/org/a11y/bus")
	var addr string
	if err := launcherObj.CallWithContext(ctx, "org.a11y.Bus.GetAddress", 0).Store(&addr); err != nil {
		return fail("GetAddress", err)
	}
	a11y, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		return fail("connect to a11y bus "+addr, err)
	}
	defer a11y.Close()
	// Activate the registry now, not on the first app's start, and check
	// the whole chain answers.
	var apps []struct {
		Name string
		Path dbus.ObjectPath
	}
	err = a11y.Object("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root").
		CallWithContext(ctx, "org.a11y.atspi.Accessible.GetChildren", 0).Store(&apps)
	if err != nil {
		return fail("AT-SPI registry", err)
	}
	// This desktop is mcec's, so it says a screen reader runs: GTK3 ignores both properties, but
	// Qt reads IsEnabled once at start-up, and Chromium, Electron and Firefox consult these
	// properties when deciding whether to build their (page) trees at all.
	for _, prop := range []string{"IsEnabled", "ScreenReaderEnabled"} {
		err = launcherObj.CallWithContext(ctx, "org.freedesktop.DBus.Properties.Set", 0,
			"org.a11y.Status", prop, dbus.MakeVariant(true)).Err
		if err != nil {
			return fail("set org.a11y.Status."+prop, err)
		}
	}
	d.a11yAddr = addr
	return nil
}

// spawnWM starts openbox with our own configuration, not the user's.
func (d *Desktop) spawnWM() (*child, error) {
	ob, err := lookProgram("openbox")
	if err != nil {
		return nil, &StartError{Step: StepWindowManager, Err: err}
	}
	rc, err := writeOpenboxConfig(d.dir)
	if err != nil {
		return nil, &StartError{Step: StepWindowManager, Err: err}
	}
	return d.spawnStep(StepWindowManager, "openbox",
		[]string{ob, "--sm-disable", "--config-file", rc}, nil, syscall.SIGKILL)
}

// waitWM waits until the window manager has claimed the screen (EWMH's
// _NET_SUPPORTING_WM_CHECK on the root window).
func (d *Desktop) waitWM(ctx context.Context, wm *child) error {
	atom, err := d.x.atom(ctx, "_NET_SUPPORTING_WM_CHECK")
	if err != nil {
		return d.fail(ctx, StepWindowManager, wm, err)
	}
	err = poll(ctx, pollEvery, func() (bool, error) {
		if wm.exited() {
			return false, wm.exitError()
		}
		v, err := d.x.rootWindowProp(ctx, atom)
		return v != 0, err
	})
	if err != nil {
		return d.fail(ctx, StepWindowManager, wm, fmt.Errorf("waiting for _NET_SUPPORTING_WM_CHECK: %w", err))
	}
	// openbox sets that property before its event loop runs; a window mapped in between is never
	// managed. It answers _NET_REQUEST_FRAME_EXTENTS only from its event loop.
	if err := d.x.waitFrameExtents(ctx, wm.exited); err != nil {
		return d.fail(ctx, StepWindowManager, wm, err)
	}
	return nil
}

// Display is the X display name, e.g. ":7"; "" on a Wayland desktop.
func (d *Desktop) Display() string { return d.display }

// XWaylandDisplay is the display (":N") of a Wayland desktop's Xwayland; "" without one.
func (d *Desktop) XWaylandDisplay() string { return d.xwaylandDisplay }

// Kind is the desktop's display server.
func (d *Desktop) Kind() Kind { return d.kind }

// WaylandSocket is the absolute path of the Wayland display socket; "" on an X11 desktop.
func (d *Desktop) WaylandSocket() string { return d.waylandSocket }

// SwaySocket is the absolute path of the compositor's IPC socket; "" on an X11 desktop.
func (d *Desktop) SwaySocket() string { return d.swaySocket }

// DBusAddress is the private session bus address.
func (d *Desktop) DBusAddress() string { return d.busAddr }

// A11yAddress is the AT-SPI bus address, as org.a11y.Bus.GetAddress returns it.
func (d *Desktop) A11yAddress() string { return d.a11yAddr }

// RuntimeDir is the desktop's private XDG_RUNTIME_DIR.
func (d *Desktop) RuntimeDir() string { return d.dir }

// Env is the environment for anything run inside this desktop: ours with
// DISPLAY, DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR replaced, variables
// that hide apps from AT-SPI or point them elsewhere removed, and toolkit
// switches that make apps use X11 and expose their accessibility trees.
// The caller may modify the returned slice.
func (d *Desktop) Env() []string { return slices.Clone(d.env) }

// PIDs are the processes Start started directly, in start order. Each leads
// its own process group, which Stop signals as a whole.
func (d *Desktop) PIDs() []int {
	pids := make([]int, len(d.procs))
	for i, c := range d.procs {
		pids[i] = c.pid
	}
	return pids
}

// Stop ends every process the desktop started (SIGTERM to each process
// group, SIGKILL after 2 s), reaps them, and removes the runtime directory,
// any X lock and socket files our Xvfb left, and the single-instance sockets
// of LibreOffice processes that died since the desktop started. It is idempotent and safe
// to call concurrently; every call returns the first call's result.
func (d *Desktop) Stop() error {
	d.stopOnce.Do(func() { d.stopErr = d.stop() })
	return d.stopErr
}

func (d *Desktop) stop() error {
	began := time.Now()
	if d.x != nil {
		d.x.close(500 * time.Millisecond)
	}
	d.claimPhocXFiles()
	var errs []error
	if err := stopChildren(d.procs); err != nil {
		errs = append(errs, err)
	}
	// Let the last output reach the logger before we return.
	waitOutput(d.procs, drainWindow)
	if err := d.removeXFiles(); err != nil {
		errs = append(errs, err)
	}
	if err := removeDeadOfficePipes(officePipeDir, d.began); err != nil {
		errs = append(errs, err)
	}
	if d.dir != "" {
		if err := os.RemoveAll(d.dir); err != nil {
			errs = append(errs, err)
		}
	}
	// Last: until here a death of this process mid-Stop still leaves the clean-up to it.
	d.guard.quit()
	d.log.Info("headless desktop stopped", "kind", d.kind, "display", d.display,
		"elapsed", time.Since(began).Round(time.Millisecond))
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("headless: stop: %w", err)
	}
	return nil
}

// removeXFiles removes our X lock file and the socket Xvfb leaves when
// killed, but only while the lock is ours: otherwise the display number may
// already belong to another server.
func (d *Desktop) removeXFiles() error {
	if d.displayNum < 0 {
		return nil
	}
	lock := lockPath(d.displayNum)
	b, err := os.ReadFile(lock)
	if err != nil {
		return nil
	}
	if pid, ok := lockFilePID(b); !ok || pid != d.lockPID {
		return nil
	}
	var errs []error
	// Xvfb removes its socket on SIGTERM, not on SIGKILL. Remove it only if
	// nobody answers on it: a server that ignores lock files may own it.
	sock := fmt.Sprintf("/tmp/.X11-unix/X%d", d.displayNum)
	if c, err := net.DialTimeout("unix", sock, 100*time.Millisecond); err == nil {
		c.Close()
	} else if err := os.Remove(sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	if err := os.Remove(lock); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// lockFilePID reads the pid in an X lock file: ten columns and a newline as X servers write it,
// or a NUL as wlroots does for its Xwayland.
func lockFilePID(b []byte) (int, bool) {
	pid, err := strconv.Atoi(strings.TrimSpace(strings.TrimRight(string(b), "\x00")))
	return pid, err == nil
}

// dbusEscape escapes a value for a D-Bus address.
func dbusEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_/.\\*", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return b.String()
}
