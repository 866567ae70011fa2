// Package doctor checks what a newcomer trips on before mcec can see and drive a desktop, and
// says how to fix each failure: programs installed, display reachable, the X extensions mcec
// uses (or, on Wayland, the compositor and the protocols it offers), a window manager, the accessibility bus and its org.a11y.Status switches, and
// applications registered on it, and every window's tree (missing, skeleton, not ready, with the
// fix).
package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/mcec/mcec/internal/headless"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/atspi"
	"github.com/mcec/mcec/internal/platform/linux"
	"github.com/mcec/mcec/internal/platform/x11"
)

// Status of one check.
type Status string

// Check outcomes. Warn is a problem that limits mcec without stopping it.
const (
	OK   Status = "ok"
	Warn Status = "warn"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Check is one line of the report.
type Check struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// Report is every check, in order.
type Report struct {
	Display string  `json:"display"`
	Wayland string  `json:"wayland,omitempty"`
	Checks  []Check `json:"checks"`
}

// Failed reports whether any check failed.
func (r Report) Failed() bool {
	for _, c := range r.Checks {
		if c.Status == Fail {
			return true
		}
	}
	return false
}

// Target says which desktop to check.
type Target struct {
	Display     string // "" = $DISPLAY
	DBusAddress string // "" = $DBUS_SESSION_BUS_ADDRESS
	// Private is true when mcec started this desktop itself (missing programs then fail), and
	// Kind is then its kind.
	Private bool
	Kind    headless.Kind
	// Wayland and Sway, when set, are a Wayland desktop's display and IPC sockets (absolute):
	// its checks replace the X ones. KWin or GNOME says the compositor is KWin or GNOME Shell,
	// on the session bus; Toplevels that it is another wlroots compositor, driven through its
	// protocols alone.
	Wayland, Sway          string
	KWin, GNOME, Toplevels bool
}

// stepTimeout bounds each check: a hung bus or server costs one of these.
const stepTimeout = 5 * time.Second

// Run performs the checks against t.
func Run(ctx context.Context, t Target) Report {
	r := Report{Display: t.Display}
	add := func(c Check) { r.Checks = append(r.Checks, c) }

	if t.Wayland != "" || t.Private && t.Kind.IsWayland() {
		t.KWin = t.KWin || t.Kind == headless.KWin
		t.GNOME = t.GNOME || t.Kind == headless.GNOME
		t.Toplevels = t.Toplevels || t.Kind == headless.Phoc
		r.Wayland = t.Wayland
		runWayland(ctx, t, add)
		return r
	}
	add(programsFor(headless.X11, t.Private))

	display := t.Display
	if display == "" {
		display = os.Getenv("DISPLAY")
	}
	r.Display = display
	if display == "" {
		add(Check{Name: "display", Status: Fail, Detail: "DISPLAY is not set",
			Fix: "run mcec without DISPLAY (it starts its own private desktop), or run `mcec doctor --headless`, or set DISPLAY to your desktop"})
		return r
	}
	xctx, cancel := context.WithTimeout(ctx, stepTimeout)
	x, err := x11.Dial(xctx, display)
	cancel()
	if err != nil {
		add(Check{Name: "display", Status: Fail, Detail: err.Error(),
			Fix: "check DISPLAY and that the X server runs; on your own desktop run `xhost +si:localuser:$USER` if access is refused"})
		return r
	}
	defer x.Close()
	add(Check{Name: "display", Status: OK, Detail: "connected to " + display})
	add(extensions(x.Extensions()))
	add(windowManager(ctx, x))
	add(a11yBus(ctx, t.DBusAddress))
	add(a11yStatus(ctx, t.DBusAddress, t.Private))
	add(apps(ctx, t.DBusAddress))
	add(windowTrees(ctx, linux.Config{Display: display, DBusAddress: t.DBusAddress}))
	return r
}

func programsFor(kind headless.Kind, private bool) Check {
	missing := headless.MissingFor(kind)
	if len(missing) == 0 {
		server := "Xvfb, dbus-daemon, at-spi-bus-launcher and openbox"
		switch kind {
		case headless.Wayland:
			server = "sway, dbus-daemon and at-spi-bus-launcher"
		case headless.KWin:
			server = "kwin_wayland, dbus-daemon and at-spi-bus-launcher"
		case headless.GNOME:
			server = "gnome-shell, unshare, dbus-daemon and at-spi-bus-launcher"
		case headless.Phoc:
			server = "phoc, dbus-daemon and at-spi-bus-launcher"
		}
		return Check{Name: "programs", Status: OK, Detail: server + " are installed"}
	}
	var progs, pkgs []string
	for _, m := range missing {
		progs = append(progs, m.Program)
		if !contains(pkgs, m.DebianPackage) {
			pkgs = append(pkgs, m.DebianPackage)
		}
	}
	status := Warn // an attached desktop does not need them
	if private {
		status = Fail
	}
	return Check{Name: "programs", Status: status, Detail: "missing: " + strings.Join(progs, ", "),
		Fix: "apt-get install " + strings.Join(pkgs, " ") + " (needed for mcec's private headless desktop)"}
}

func extensions(e x11.Extensions) Check {
	var missing []string
	for _, ext := range []struct {
		name string
		ok   bool
		why  string
	}{
		{"XTEST", e.XTest, "click, drag and typing"},
		{"Composite", e.Composite, "capturing covered windows"},
		{"MIT-SHM", e.SHM, "fast screen grabs"},
		{"RANDR", e.RandR, "monitor layout"},
	} {
		if !ext.ok {
			missing = append(missing, ext.name+" ("+ext.why+")")
		}
	}
	if len(missing) == 0 {
		return Check{Name: "x-extensions", Status: OK, Detail: "XTEST, Composite, MIT-SHM, RANDR"}
	}
	status := Warn
	if !e.XTest {
		status = Fail
	}
	return Check{Name: "x-extensions", Status: status, Detail: "missing: " + strings.Join(missing, ", "),
		Fix: "use Xvfb or Xorg with these extensions enabled (mcec's private desktop has them all)"}
}

func windowManager(ctx context.Context, x *x11.Conn) Check {
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	name, err := x.WindowManagerName(ctx)
	switch {
	case err != nil:
		return Check{Name: "window-manager", Status: Fail, Detail: err.Error()}
	case name == "":
		return Check{Name: "window-manager", Status: Warn, Detail: "no EWMH window manager runs: windows cannot be listed, activated or moved",
			Fix: "start one (e.g. openbox &); mcec's private desktop runs openbox"}
	}
	return Check{Name: "window-manager", Status: OK, Detail: name}
}

func a11yBus(ctx context.Context, busAddr string) Check {
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	if busAddr == "" {
		busAddr = os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	}
	if busAddr == "" {
		return Check{Name: "accessibility-bus", Status: Fail, Detail: "DBUS_SESSION_BUS_ADDRESS is not set",
			Fix: "run mcec from your desktop session's environment; without a session bus there is no accessibility tree"}
	}
	conn, err := dbus.Connect(busAddr, dbus.WithContext(ctx))
	if err != nil {
		return Check{Name: "accessibility-bus", Status: Fail, Detail: "session bus: " + err.Error(),
			Fix: "check DBUS_SESSION_BUS_ADDRESS"}
	}
	defer conn.Close()
	bus := conn.Object("org.a11y.Bus", "/org/a11y/bus")
	var addr string
	if err := bus.CallWithContext(ctx, "org.a11y.Bus.GetAddress", 0).Store(&addr); err != nil {
		return Check{Name: "accessibility-bus", Status: Fail, Detail: "org.a11y.Bus.GetAddress: " + err.Error(),
			Fix: "apt-get install at-spi2-core, and make sure your session starts at-spi-bus-launcher"}
	}
	return Check{Name: "accessibility-bus", Status: OK, Detail: "reachable at " + addr}
}

// statusSwitches are org.a11y.Status's properties, the gsettings keys at-spi-bus-launcher keeps
// them in, and who reads them: toolkits that publish their tree only when asked.
var statusSwitches = []struct{ prop, key, readers string }{
	{"IsEnabled", "org.gnome.desktop.interface toolkit-accessibility",
		"Qt reads it once at start-up and publishes no tree without it; Chromium, Electron and Firefox consult it too"},
	{"ScreenReaderEnabled", "org.gnome.desktop.a11y.applications screen-reader-enabled",
		"Chromium, Electron and Firefox consult it when deciding whether to build their page trees"},
}

// a11yStatus reports org.a11y.Status. mcec switches both properties on for its own desktop; on
// an attached one it changes nothing and says what the operator can switch, since programs the
// user starts outside mcec read these properties rather than mcec's per-program switches.
func a11yStatus(ctx context.Context, busAddr string, private bool) Check {
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	const name = "a11y-status"
	if busAddr == "" {
		busAddr = os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	}
	conn, err := dbus.Connect(busAddr, dbus.WithContext(ctx))
	if err != nil {
		return Check{Name: name, Status: Skip, Detail: "session bus: " + err.Error()}
	}
	defer conn.Close()
	bus := conn.Object("org.a11y.Bus", "/org/a11y/bus")
	var (
		states      []string
		off, unread []int
	)
	for i, sw := range statusSwitches {
		var v dbus.Variant
		err := bus.CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0, "org.a11y.Status", sw.prop).Store(&v)
		on, ok := v.Value().(bool)
		switch {
		case err != nil || !ok:
			unread = append(unread, i)
			states = append(states, sw.prop+" unreadable")
		case on:
			states = append(states, sw.prop+" true")
		default:
			off = append(off, i)
			states = append(states, sw.prop+" false")
		}
	}
	detail := "org.a11y.Status: " + strings.Join(states, ", ")
	if len(unread) == len(statusSwitches) {
		return Check{Name: name, Status: Skip, Detail: detail + " (the accessibility bus launcher does not answer)"}
	}
	if len(off) == 0 {
		return Check{Name: name, Status: OK, Detail: detail}
	}
	if private {
		return Check{Name: name, Status: Warn, Detail: detail + "; mcec switches both on when it starts its desktop, so something switched them off",
			Fix: "restart mcec (its desktop starts with both true)"}
	}
	var why, fixes []string
	for _, i := range off {
		sw := statusSwitches[i]
		why = append(why, sw.prop+" false: "+sw.readers)
		fixes = append(fixes, fmt.Sprintf("gsettings set %s true (or busctl --user set-property org.a11y.Bus /org/a11y/bus "+
			"org.a11y.Status %s b true, which the launcher stores in that same key)", sw.key, sw.prop))
	}
	fix := strings.Join(fixes, "; ") + ". Then restart those applications: they read the switch at start-up."
	if slices.Contains(off, 1) {
		fix += " On GNOME, screen-reader-enabled also starts the Orca screen reader; IsEnabled alone covers Qt."
	}
	return Check{Name: name, Status: Warn,
		Detail: detail + " (" + strings.Join(why, "; ") + "). mcec leaves your settings alone; programs started " +
			"through mcec's launch get each toolkit's switches anyway",
		Fix: fix}
}

func apps(ctx context.Context, busAddr string) Check {
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	c, err := atspi.Connect(ctx, busAddr, atspi.Options{CallTimeout: 2 * time.Second})
	if err != nil {
		return Check{Name: "accessible-apps", Status: Skip, Detail: err.Error()}
	}
	defer c.Close()
	list, err := c.Apps(ctx)
	if err != nil {
		return Check{Name: "accessible-apps", Status: Fail, Detail: err.Error()}
	}
	if len(list) == 0 {
		return Check{Name: "accessible-apps", Status: Warn, Detail: "no application is registered on the accessibility bus",
			Fix: "start an application through mcec's launch (it sets every toolkit's switches), or from this session's environment " +
				"without NO_AT_BRIDGE=1 (Qt apps also need QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 or org.a11y.Status.IsEnabled)"}
	}
	var names, hung []string
	for _, a := range list {
		if errors.Is(a.Err, platform.ErrAppNotResponding) {
			hung = append(hung, fmt.Sprintf("%s (pid %d)", a.Name, a.PID))
			continue
		}
		names = append(names, fmt.Sprintf("%s (%s %s, pid %d)", a.Name, a.Toolkit, a.ToolkitVersion, a.PID))
	}
	if len(hung) > 0 {
		return Check{Name: "accessible-apps", Status: Warn, Detail: "not answering: " + strings.Join(hung, ", ") + "; registered: " + strings.Join(names, ", "),
			Fix: "a hung application costs one deadline per call; restart it"}
	}
	return Check{Name: "accessible-apps", Status: OK, Detail: strings.Join(names, ", ")}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
