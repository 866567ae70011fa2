// Package linux is the Linux desktop backend: a display server's half (X11, or a Wayland
// compositor) for windows, displays, pixels, input and the clipboard, and AT-SPI2 for
// accessibility trees, joined behind platform.Desktop.
package linux

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcec/mcec/internal/a11yenv"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/atspi"
	"github.com/mcec/mcec/internal/platform/wayland"
	"github.com/mcec/mcec/internal/platform/x11"
	"github.com/mcec/mcec/internal/wayland/wire"
)

// Config says which desktop to attach to.
type Config struct {
	Display string // X display; "" = $DISPLAY
	// Wayland, when set, is the Wayland display socket (absolute) to attach to instead of X;
	// the compositor is sway, reached on its IPC socket Sway, or KWin or GNOME Shell (with
	// mcec's extension), reached on the session bus (internal/platform/wayland).
	Wayland, Sway string
	KWin, GNOME   bool
	// Toplevels drives a wlroots compositor without sway's IPC through the protocols alone:
	// windows without places or pids, whose owners are found by their titles (owners.go).
	Toplevels bool
	// KWinConfig is a private KWin desktop's configuration directory (its keyboard settings).
	KWinConfig  string
	DBusAddress string // session bus; "" = $DBUS_SESSION_BUS_ADDRESS
	// AtspiCallTimeout bounds each AT-SPI call: a hung application costs one of these.
	AtspiCallTimeout time.Duration
	Logger           *slog.Logger
}

// screen is the display server's half of the desktop: everything but the trees.
type screen interface {
	platform.WindowReader
	platform.WindowOperator
	platform.Capturer
	platform.InputProvider
	platform.Clipboard
	// WindowManagerName names the window manager or compositor.
	WindowManagerName(ctx context.Context) (string, error)
	Close() error
}

// Desktop implements platform.Desktop.
type Desktop struct {
	cfg Config
	x   screen
	// a11yOpts are the accessibility client's options that depend on the display server.
	a11yOpts atspi.Options

	mu sync.Mutex
	a  *atspi.Client // connected lazily: windows and pixels work even when the a11y bus does not

	owners owners // the windows' processes where the compositor does not say (Config.Toplevels)
	// native lists native Wayland windows from the accessibility bus when the compositor lists
	// none to mcec and mcec is attached to its XWayland display (native.go); nil otherwise.
	native *nativeWindows
	// portal sends keys to the active native window (portalkeys.go); set with native.
	portal *portalKeys
}

var _ platform.Desktop = (*Desktop)(nil)

// Open connects to the X display. The accessibility bus is connected on first use, and again
// after a failure, so a late or restarted a11y bus never needs a server restart.
func Open(ctx context.Context, cfg Config) (*Desktop, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Wayland != "" {
		wc := wayland.Config{Socket: cfg.Wayland, Sway: cfg.Sway, Toplevels: cfg.Toplevels, Logger: cfg.Logger}
		bus := cmp.Or(cfg.DBusAddress, os.Getenv("DBUS_SESSION_BUS_ADDRESS"))
		switch {
		case cfg.KWin:
			wc.KWinBus, wc.KWinConfig = bus, cfg.KWinConfig
		case cfg.GNOME:
			wc.GNOMEBus = bus
		}
		w, err := wayland.Dial(ctx, wc)
		if err != nil && (cfg.GNOME || cfg.Toplevels) && cfg.Display != "" {
			// Without mcec's extension GNOME Shell drives nothing, nor does a compositor without
			// wlr-foreign-toplevel: XWayland's X11 programs it is, and the native programs'
			// windows as the accessibility bus shows them, without places (native.go).
			cfg.Logger.Warn("the compositor lists no windows to mcec: attached to XWayland for X11 programs; "+
				"native Wayland windows come from the accessibility bus, without places (semantic actions, and keys through "+
				"the desktop's RemoteDesktop portal once the user allows them)", "err", err)
			gnome, compositor := cfg.GNOME, compositorPID(ctx, cfg.Wayland)
			cfg.Wayland, cfg.GNOME, cfg.Toplevels = "", false, false
			d, err := Open(ctx, cfg)
			if err != nil {
				return nil, err
			}
			d.native = &nativeWindows{gnome: gnome, compositor: compositor}
			d.portal = &portalKeys{bus: bus}
			d.a11yOpts.Window = d.Window // native windows' handles are not X windows
			return d, nil
		}
		if err != nil {
			return nil, err
		}
		// No Wayland client knows where its window is: every toolkit reports extents relative to
		// its window, each from its own origin (the compositor's resolver places them).
		return &Desktop{cfg: cfg, x: w, a11yOpts: atspi.Options{Window: w.Window, WindowLocal: true, Origin: w.Origin, PopupSurface: w.PopupSurface}}, nil
	}
	x, err := x11.Dial(ctx, cfg.Display)
	if err != nil {
		return nil, err
	}
	return &Desktop{cfg: cfg, x: x, a11yOpts: atspi.Options{Window: x.Window, Popups: x.Popups}}, nil
}

// compositorPID is the pid of the compositor listening on the Wayland socket, 0 when it cannot
// be told.
func compositorPID(ctx context.Context, socket string) int {
	c, err := wire.Dial(ctx, socket)
	if err != nil {
		return 0
	}
	defer c.Close()
	pid, _ := c.PeerPID()
	return pid
}

func (d *Desktop) atspi(ctx context.Context) (*atspi.Client, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.a != nil {
		return d.a, nil
	}
	opts := d.a11yOpts
	opts.CallTimeout, opts.Logger, opts.WindowsOf = d.cfg.AtspiCallTimeout, d.cfg.Logger, d.windowsOf
	opts.NoMirror, opts.NoPeer = os.Getenv(EnvTreeMirror) == "off", os.Getenv(EnvPeer) == "off"
	a, err := atspi.Connect(ctx, d.cfg.DBusAddress, opts)
	if err != nil {
		return nil, err
	}
	d.a = a
	return a, nil
}

// EnvTreeMirror set to "off" makes every query walk the application's tree instead of answering
// an unchanged one from the warm mirror (docs/observation.md).
const EnvTreeMirror = "MCEC_TREE_MIRROR"

// EnvPeer set to "off" keeps every accessibility call on the bus instead of the applications'
// own sockets (docs/observation.md).
const EnvPeer = "MCEC_ATSPI_P2P"

// Windows implements platform.Desktop.
func (d *Desktop) Windows(ctx context.Context) ([]platform.Window, error) {
	ws, err := d.x.Windows(ctx)
	if err == nil && d.cfg.Toplevels {
		d.owners.fill(ctx, ws, d.frames)
	}
	if err == nil && d.native != nil {
		for i := range ws {
			ws[i].Server = platform.ServerXWayland // a Wayland session's X11 programs
		}
		ws = append(ws, d.native.list(ctx, ws, d.frames)...)
	}
	return ws, err
}

// Window implements platform.Desktop.
func (d *Desktop) Window(ctx context.Context, handle uint32) (platform.Window, error) {
	switch {
	case d.native != nil && !isNative(handle):
		w, err := d.x.Window(ctx, handle)
		if err == nil {
			w.Server = platform.ServerXWayland
		}
		return w, err
	case !d.cfg.Toplevels && d.native == nil:
		return d.x.Window(ctx, handle)
	}
	// The owner of a window is found among all of them (owners.go), as is a native window.
	ws, err := d.Windows(ctx)
	if err != nil {
		return platform.Window{}, err
	}
	return platform.FindWindow(ws, handle)
}

// frames lists the accessibility bus's frames, for owners and native windows.
func (d *Desktop) frames(ctx context.Context) ([]atspi.Frame, error) {
	a, err := d.atspi(ctx)
	if err != nil {
		return nil, err
	}
	return a.Frames(ctx)
}

// Displays implements platform.Desktop.
func (d *Desktop) Displays(ctx context.Context) (platform.Displays, error) { return d.x.Displays(ctx) }

// CaptureRect implements platform.Desktop.
func (d *Desktop) CaptureRect(ctx context.Context, r platform.Rect) (*image.RGBA, error) {
	img, err := d.x.CaptureRect(ctx, r)
	if err != nil && d.native != nil && ctx.Err() == nil {
		return nil, d.native.screenErr(err)
	}
	return img, err
}

// CaptureWindow implements platform.Desktop.
func (d *Desktop) CaptureWindow(ctx context.Context, handle uint32) (platform.WindowCapture, error) {
	if d.native != nil && isNative(handle) {
		return platform.WindowCapture{}, d.native.unplacedErr("capture", handle)
	}
	return d.x.CaptureWindow(ctx, handle)
}

// PrimeTrees implements platform.TreePrimer on the accessibility connection if there is one
// (priming never connects).
func (d *Desktop) PrimeTrees(ctx context.Context) context.Context {
	d.mu.Lock()
	a := d.a
	d.mu.Unlock()
	if a == nil {
		return ctx
	}
	return a.PrimeTrees(ctx)
}

// Tree implements platform.Desktop: the AT-SPI application is found by the window's pid.
func (d *Desktop) Tree(ctx context.Context, w platform.Window, limits platform.TreeLimits) (platform.Tree, error) {
	t, err := d.tree(ctx, w, limits)
	if err == nil && d.native != nil && (isNative(w.Handle) || d.unplaced(ctx, w.ProcessID)) {
		stripBounds(t.Root)
	}
	return t, err
}

func (d *Desktop) tree(ctx context.Context, w platform.Window, limits platform.TreeLimits) (platform.Tree, error) {
	if w.ProcessID == 0 && d.cfg.Toplevels {
		return platform.Tree{}, fmt.Errorf("%w: the compositor does not say which process owns window %d %q, and no one application on the accessibility bus "+
			"has frames of that title for it alone (a program without accessibility, another window of the same title, or one not registered yet); "+
			"query again shortly, or use keys, capture and pixel input", platform.ErrNoAccessibleTree, w.Handle, w.Title)
	}
	if w.ProcessID == 0 {
		return platform.Tree{}, fmt.Errorf("%w: window %d does not say which process owns it (no pid from the window manager or the compositor); use capture and pixel input",
			platform.ErrNoAccessibleTree, w.Handle)
	}
	t, err := withA11y(ctx, d, func(a *atspi.Client) (platform.Tree, error) { return a.Tree(ctx, w, limits) })
	if !errors.Is(err, platform.ErrNoAccessibleTree) || !errors.Is(err, atspi.ErrNotRegistered) {
		return t, err
	}
	// No application of the process is on the bus: say why, and wait for one that is on its way.
	b, berr := a11yenv.ProcessBridge(w.ProcessID)
	if berr != nil {
		return t, err
	}
	if !b.Publishes {
		return t, fmt.Errorf("%w: pid %d (%s): %s; use capture and pixel input", platform.ErrNoAccessibleTree, w.ProcessID,
			cmp.Or(b.Toolkit, "unknown toolkit"), b.Hint)
	}
	if why := coldReason(w.ProcessID, b.Toolkit); why != "" {
		return t, fmt.Errorf("%w: pid %d (%s) was started with accessibility off: %s; restart it through mcec's launch "+
			"(which sets what each toolkit needs), or use capture and pixel input", platform.ErrNoAccessibleTree, w.ProcessID, b.Toolkit, why)
	}
	wait, cancel := context.WithTimeout(ctx, registerWait)
	defer cancel()
	tick := time.NewTicker(registerPoll)
	defer tick.Stop()
	for {
		select {
		case <-wait.Done():
			if ctx.Err() != nil {
				return t, ctx.Err()
			}
			return t, fmt.Errorf("%w: pid %d (%s) carries an accessibility bridge but has not registered on the accessibility bus "+
				"within %v (GTK 4 and Java take seconds after their window maps); query again shortly", platform.ErrTreeNotReady,
				w.ProcessID, b.Toolkit, registerWait)
		case <-tick.C:
		}
		t, err = withA11y(wait, d, func(a *atspi.Client) (platform.Tree, error) { return a.Tree(wait, w, limits) })
		if !errors.Is(err, atspi.ErrNotRegistered) && wait.Err() == nil {
			return t, err
		}
	}
}

// How long Tree waits for the application of a process that carries an accessibility bridge to
// register on the bus, and how often it looks.
const (
	registerWait = 3 * time.Second
	registerPoll = 100 * time.Millisecond
)

// windowsOf lists the windows of process pid, for telling its accessible frames apart.
func (d *Desktop) windowsOf(ctx context.Context, pid int) ([]platform.Window, error) {
	ws, err := d.Windows(ctx)
	if err != nil {
		return nil, err
	}
	out := ws[:0]
	for _, w := range ws {
		if w.ProcessID == pid {
			out = append(out, w)
		}
	}
	return out, nil
}

// Element implements platform.Desktop.
func (d *Desktop) Element(ctx context.Context, ref string) (platform.Element, error) {
	el, err := withA11y(ctx, d, func(a *atspi.Client) (platform.Element, error) { return a.Element(ctx, ref) })
	if err == nil && d.unplaced(ctx, el.PID) {
		el.Node.Bounds = nil
	}
	return el, err
}

// Subtree implements platform.Desktop.
func (d *Desktop) Subtree(ctx context.Context, ref string, limits platform.TreeLimits) (platform.Tree, error) {
	t, err := withA11y(ctx, d, func(a *atspi.Client) (platform.Tree, error) { return a.Subtree(ctx, ref, limits) })
	if err == nil && d.native != nil {
		if pid, perr := withA11y(ctx, d, func(a *atspi.Client) (int, error) { return a.PIDOf(ctx, ref) }); perr != nil || d.unplaced(ctx, pid) {
			stripBounds(t.Root)
		}
	}
	return t, err
}

// unplaced reports whether pid's windows are native ones (native.go): its objects' bounds are
// whatever its toolkit reports on Wayland, never a place on screen.
func (d *Desktop) unplaced(ctx context.Context, pid int) bool {
	if d.native == nil {
		return false
	}
	ws, err := d.x.Windows(ctx)
	if err != nil {
		return true
	}
	return !slices.ContainsFunc(ws, func(w platform.Window) bool { return w.ProcessID == pid })
}

// WatchTree implements platform.Desktop.
func (d *Desktop) WatchTree(ctx context.Context, pid int) (<-chan struct{}, error) {
	return withA11y(ctx, d, func(a *atspi.Client) (<-chan struct{}, error) { return a.WatchTree(ctx, pid) })
}

// Act implements platform.Desktop.
func (d *Desktop) Act(ctx context.Context, ref string, action platform.ElementAction, text string) (platform.ActResult, error) {
	return withA11y(ctx, d, func(a *atspi.Client) (platform.ActResult, error) { return a.Act(ctx, ref, action, text) })
}

// Focused implements platform.Desktop.
func (d *Desktop) Focused(ctx context.Context, pid int) (platform.Element, error) {
	el, err := withA11y(ctx, d, func(a *atspi.Client) (platform.Element, error) { return a.Focused(ctx, pid) })
	if err == nil && d.unplaced(ctx, pid) {
		el.Node.Bounds = nil
	}
	return el, err
}

// withA11y runs f on the a11y connection, connecting first if needed, and drops the connection
// when it turns out broken so the next call reconnects.
func withA11y[T any](ctx context.Context, d *Desktop, f func(*atspi.Client) (T, error)) (T, error) {
	a, err := d.atspi(ctx)
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := f(a)
	if errors.Is(err, platform.ErrAtspiUnavailable) {
		d.reset(a)
	}
	return v, err
}

// WatchWindows implements platform.Desktop.
func (d *Desktop) WatchWindows(ctx context.Context) (<-chan struct{}, error) {
	ch, err := d.x.WatchWindows(ctx)
	if err != nil || d.native == nil {
		return ch, err
	}
	return d.native.watch(ctx, ch), nil
}

// Input implements platform.Desktop.
func (d *Desktop) Input() platform.Input {
	if d.portal != nil {
		return nativeInput{Input: d.x.Input(), d: d, keys: d.portal}
	}
	return d.x.Input()
}

// WindowOp implements platform.Desktop.
func (d *Desktop) WindowOp(ctx context.Context, handle uint32, op platform.WindowOp) error {
	if d.native != nil && isNative(handle) {
		return d.native.unplacedErr(string(op.Kind), handle)
	}
	return d.x.WindowOp(ctx, handle, op)
}

// ClipboardGet implements platform.Desktop.
func (d *Desktop) ClipboardGet(ctx context.Context) (string, error) { return d.x.ClipboardGet(ctx) }

// ClipboardSet implements platform.Desktop.
func (d *Desktop) ClipboardSet(ctx context.Context, text string) error {
	return d.x.ClipboardSet(ctx, text)
}

// WindowManager implements platform.Desktop.
func (d *Desktop) WindowManager(ctx context.Context) (string, error) {
	name, err := d.x.WindowManagerName(ctx)
	if err == nil && d.native != nil {
		name += " (on XWayland; native Wayland windows from the accessibility bus)"
	}
	return name, err
}

// Apps implements platform.Desktop.
func (d *Desktop) Apps(ctx context.Context) ([]platform.App, error) {
	return withA11y(ctx, d, func(a *atspi.Client) ([]platform.App, error) {
		apps, err := a.Apps(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]platform.App, len(apps))
		for i, app := range apps {
			out[i] = platform.App{PID: app.PID, Name: app.Name, Toolkit: app.Toolkit,
				ToolkitVersion: app.ToolkitVersion, Err: app.Err}
		}
		return out, nil
	})
}

// reset drops a broken a11y connection so the next call reconnects.
func (d *Desktop) reset(a *atspi.Client) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.a == a {
		_ = a.Close()
		d.a = nil
	}
}

// Close implements platform.Desktop.
func (d *Desktop) Close() error {
	d.mu.Lock()
	a := d.a
	d.a = nil
	d.mu.Unlock()
	var errs []error
	if a != nil {
		errs = append(errs, a.Close())
	}
	if d.portal != nil {
		errs = append(errs, d.portal.close())
	}
	errs = append(errs, d.x.Close())
	return errors.Join(errs...)
}

// coldReason says why a process that carries an accessibility bridge will never register on the
// bus, from the environment it was started with: NO_AT_BRIDGE=1 switches GTK's and ATK's bridge
// off, and Qt publishes only with QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 or org.a11y.Status enabled at
// its start (such a process registers, so it never reaches this check). "" when nothing says so.
func coldReason(pid int, toolkit string) string {
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return ""
	}
	vars := strings.Split(string(env), "\x00")
	switch {
	case slices.Contains(vars, "NO_AT_BRIDGE=1"):
		return "NO_AT_BRIDGE=1 is set in its environment"
	case strings.HasPrefix(toolkit, "Qt") && !slices.Contains(vars, "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1"):
		return "Qt publishes its tree only when QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 is set or org.a11y.Status IsEnabled is true when it starts"
	}
	return ""
}
