package doctor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"strings"
	"time"

	"github.com/mcec/mcec/internal/gnomeext"
	"github.com/mcec/mcec/internal/headless"
	"github.com/mcec/mcec/internal/platform/linux"
	"github.com/mcec/mcec/internal/platform/wayland"
	"github.com/mcec/mcec/internal/portal"
	"github.com/mcec/mcec/internal/procname"
	"github.com/mcec/mcec/internal/sysload"
	"github.com/mcec/mcec/internal/wayland/gnome"
	"github.com/mcec/mcec/internal/wayland/kwin"
	"github.com/mcec/mcec/internal/wayland/swayipc"
	"github.com/mcec/mcec/internal/wayland/wlclient"
)

// protocol is a Wayland global mcec uses, and what is lost without it.
type protocol struct{ iface, use string }

// waylandProtocols are the Wayland globals mcec uses on a wlroots compositor.
var waylandProtocols = []protocol{
	{"zwlr_screencopy_manager_v1", "capture, OCR, recordings and pixel effects"},
	{"zwlr_virtual_pointer_manager_v1", "click, drag and scroll"},
	{"zwp_virtual_keyboard_manager_v1", "typing and key chords"},
	{"zwlr_data_control_manager_v1", "the clipboard"},
	{"zxdg_output_manager_v1", "the outputs' logical layout"},
}

// kwinProtocols are the Wayland globals mcec uses on KWin (pixels come over D-Bus).
var kwinProtocols = []protocol{
	{"org_kde_kwin_fake_input", "click, drag, scroll, typing and key chords"},
	{"zwlr_data_control_manager_v1", "the clipboard"},
	{"zxdg_output_manager_v1", "the outputs' logical layout"},
}

// kwinDesktopFile is what a Plasma user installs so that KWin lets mcec capture and send input
// (docs/wayland.md).
const kwinDesktopFile = "run `mcec setup kde`: it installs a desktop file naming mcec's executable " +
	"(X-KDE-DBUS-Restricted-Interfaces=org.kde.KWin.ScreenShot2, X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input; docs/wayland.md); then restart mcec"

// runWayland checks a Wayland desktop: the compositor behind sway's IPC, the protocols mcec
// needs, the accessibility bus and every window's tree.
func runWayland(ctx context.Context, t Target, add func(Check)) {
	kind := headless.Wayland
	switch {
	case t.KWin:
		kind = headless.KWin
	case t.GNOME:
		kind = headless.GNOME
	case t.Private && t.Kind == headless.Phoc:
		kind = headless.Phoc
	}
	add(programsFor(kind, t.Private))
	if t.Private && t.Wayland == "" {
		return // the private desktop could not start: the programs check says why
	}
	if t.KWin {
		runKWin(ctx, t, add)
		return
	}
	if t.GNOME {
		runGNOME(ctx, t, add)
		return
	}
	if t.Sway == "" && t.Toplevels {
		runToplevels(ctx, t, add)
		return
	}
	if t.Sway == "" {
		add(Check{Name: "compositor", Status: Fail,
			Detail: fmt.Sprintf("the Wayland session of %s has no sway IPC (SWAYSOCK): native Wayland windows cannot be listed, captured or driven",
				orUnknown(os.Getenv("XDG_CURRENT_DESKTOP"))),
			Fix: "mcec drives sway (and compositors that speak its IPC), KDE's KWin, GNOME Shell with mcec's extension and wlroots compositors through wlr-foreign-toplevel. " +
				"Run mcec with --headless (its own desktop, --desktop wayland for a Wayland one), or set DISPLAY to the session's XWayland display for X11 programs"})
		return
	}
	sctx, cancel := context.WithTimeout(ctx, stepTimeout)
	ipc, err := swayipc.Dial(sctx, t.Sway)
	if err == nil {
		var v swayipc.Version
		if v, err = ipc.Version(sctx); err == nil {
			add(Check{Name: "compositor", Status: OK, Detail: "sway " + v.HumanReadable + " (IPC at " + t.Sway + ")"})
		}
		ipc.Close()
	}
	cancel()
	if err != nil {
		add(Check{Name: "compositor", Status: Fail, Detail: "sway IPC: " + err.Error(), Fix: "check SWAYSOCK and that sway runs"})
		return
	}
	add(protocols(ctx, t.Wayland, waylandProtocols, "use a wlroots compositor that offers them (sway does)"))
	add(a11yBus(ctx, t.DBusAddress))
	add(a11yStatus(ctx, t.DBusAddress, t.Private))
	add(apps(ctx, t.DBusAddress))
	add(windowTrees(ctx, linux.Config{Wayland: t.Wayland, Sway: t.Sway, DBusAddress: t.DBusAddress}))
}

// toplevelsLimits is what driving a compositor through the wlroots protocols alone costs; where
// the compositor draws fullscreen windows off their output's corner, no window has a place.
func toplevelsLimits(program string) string {
	placed := "elements have bounds only in fullscreen windows (pointer actions on others fail compositor-unsupported"
	if !wayland.PlacesFullscreen(program) {
		placed = "elements have no bounds, as " + program + " draws even fullscreen windows off their output's corner " +
			"(pointer actions on them fail compositor-unsupported"
	}
	return "wlr-foreign-toplevel tells neither where a window is nor which process owns it: " +
		"owners are found by their titles on the accessibility bus, " + placed + "; invoke, keys, pixels and clicks at screen coordinates work), " +
		"and windows cannot be moved or resized"
}

// runToplevels checks a wlroots compositor without sway's IPC: wlr-foreign-toplevel and the
// other protocols mcec uses, the accessibility bus and every window's tree.
func runToplevels(ctx context.Context, t Target, add func(Check)) {
	wctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	wl, err := wlclient.Dial(wctx, t.Wayland)
	if err != nil {
		add(Check{Name: "compositor", Status: Fail, Detail: "connect to " + t.Wayland + ": " + err.Error(),
			Fix: "check WAYLAND_DISPLAY and XDG_RUNTIME_DIR"})
		return
	}
	name := orUnknown(os.Getenv("XDG_CURRENT_DESKTOP"))
	if pid, err := wl.CompositorPID(); err == nil {
		name = cmp.Or(procname.Of(pid), name)
	}
	has := wl.Has("zwlr_foreign_toplevel_manager_v1")
	wl.Close()
	if !has {
		add(Check{Name: "compositor", Status: Fail,
			Detail: name + " offers neither sway's IPC nor wlr-foreign-toplevel: native Wayland windows cannot be listed",
			Fix: "mcec drives sway, KDE's KWin, GNOME Shell (with mcec's extension) and wlroots compositors that offer wlr-foreign-toplevel; " +
				"run mcec with --headless (its own desktop), or set DISPLAY to the session's XWayland display for X11 programs"})
		return
	}
	add(Check{Name: "compositor", Status: Warn, Detail: name + ", through wlr-foreign-toplevel: " + toplevelsLimits(name),
		Fix: "for windows with places, run mcec on sway, KWin or GNOME Shell, or its own desktop (--headless --desktop wayland)"})
	add(protocols(ctx, t.Wayland, waylandProtocols, "use a wlroots compositor that offers them"))
	add(a11yBus(ctx, t.DBusAddress))
	add(a11yStatus(ctx, t.DBusAddress, t.Private))
	add(apps(ctx, t.DBusAddress))
	add(windowTrees(ctx, linux.Config{Wayland: t.Wayland, Toplevels: true, DBusAddress: t.DBusAddress}))
}

// runKWin checks a KWin desktop: KWin on the session bus, its scripting, whether it lets mcec
// capture, the Wayland globals, the accessibility bus and every window's tree.
func runKWin(ctx context.Context, t Target, add func(Check)) {
	bus := t.DBusAddress
	if bus == "" {
		bus = os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	}
	kctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	k, err := kwin.Dial(kctx, bus)
	if err != nil {
		add(Check{Name: "compositor", Status: Fail, Detail: "KWin: " + err.Error(),
			Fix: "run mcec inside the Plasma session, where DBUS_SESSION_BUS_ADDRESS names KWin's bus"})
		return
	}
	defer k.Close()
	v, err := k.Version(kctx)
	if err != nil {
		v = "(version unknown: " + err.Error() + ")"
	}
	if _, err := k.Windows(kctx); err != nil {
		add(Check{Name: "compositor", Status: Fail, Detail: "KWin " + v + ": its scripting does not answer: " + err.Error(),
			Fix: "windows are listed through KWin scripts (org.kde.kwin.Scripting); check that scripting is enabled"})
		return
	}
	add(Check{Name: "compositor", Status: OK, Detail: "KWin " + v + " (windows through KWin scripts)"})
	if _, err := k.CaptureArea(kctx, image.Rect(0, 0, 1, 1)); err != nil {
		c := Check{Name: "kwin-screenshot", Status: Fail, Detail: err.Error()}
		if errors.Is(err, kwin.ErrNotAuthorized) {
			c.Fix = kwinDesktopFile
		}
		add(c)
	} else {
		add(Check{Name: "kwin-screenshot", Status: OK, Detail: "org.kde.KWin.ScreenShot2 lets mcec capture"})
	}
	add(protocols(ctx, t.Wayland, kwinProtocols, kwinDesktopFile+" (fake input is offered only to allowed clients)"))
	add(a11yBus(ctx, t.DBusAddress))
	add(a11yStatus(ctx, t.DBusAddress, t.Private))
	add(apps(ctx, t.DBusAddress))
	add(windowTrees(ctx, linux.Config{Wayland: t.Wayland, KWin: true, DBusAddress: t.DBusAddress}))
}

// portalProbe bounds the look for the RemoteDesktop portal.
const portalProbe = 15 * time.Second

// gnomeSetup is what a GNOME user runs to let mcec in.
const gnomeSetup = "run `mcec setup gnome` (it installs and enables mcec's GNOME Shell extension for this mcec; docs/wayland.md), then log out and back in"

// extensionDiagnosis says why mcec's extension is not serving, from what GNOME Shell says of
// it, and what fixes that.
func extensionDiagnosis(info gnome.ExtensionInfo) (detail, fix string) {
	relogin := "log out and back in (GNOME Shell on Wayland loads extensions at login), then run `mcec doctor` again"
	switch info.State {
	case gnome.StateUnknown, gnome.StateUninstalled:
		return "mcec's extension is not running: GNOME Shell does not know it (not installed, or installed after the Shell started)", gnomeSetup
	case gnome.StateDisabled, gnome.StateInitialized, gnome.StateDisabling:
		return "mcec's extension is installed but not enabled (or user extensions are turned off)",
			"run `gnome-extensions enable " + gnomeext.UUID + "` (`mcec setup gnome` does it) and turn extensions on in the Extensions app, then " + relogin
	case gnome.StateOutOfDate:
		return "mcec's extension does not declare this GNOME Shell's version: it was installed for another GNOME (the Shell was upgraded since?)",
			"run `mcec setup gnome` again (it writes the variant for this Shell), then " + relogin
	case gnome.StateError:
		return "GNOME Shell could not run mcec's extension: " + info.Error,
			"run `mcec setup gnome` again with this mcec, then " + relogin + "; if the error stays, it is a bug in the extension for " +
				"this GNOME: report it with this line and `gnome-shell --version`"
	}
	return fmt.Sprintf("mcec's extension is loaded (state %d) but org.mcec.Shell is not on the session bus", info.State), relogin
}

// runGNOME checks a GNOME Shell desktop: mcec's extension on the session bus and whether it
// serves this mcec, the accessibility bus and every window's tree.
func runGNOME(ctx context.Context, t Target, add func(Check)) {
	bus := t.DBusAddress
	if bus == "" {
		bus = os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	}
	gctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	g, err := gnome.Dial(gctx, bus)
	if err != nil {
		detail, fix := err.Error(), gnomeSetup
		if errors.Is(err, gnome.ErrNoExtension) {
			if info, ierr := gnome.Extension(gctx, bus, gnomeext.UUID); ierr == nil {
				detail, fix = extensionDiagnosis(info)
			}
		}
		add(Check{Name: "compositor", Status: Fail, Detail: "GNOME Shell: " + detail +
			"; without the extension mcec drives XWayland's X11 programs, and native Wayland windows only through their accessibility " +
			"(no places, pixels, pointer or window operations)", Fix: fix})
		add(remoteDesktopPortal(ctx, bus))
		return
	}
	defer g.Close()
	v, err := g.ShellVersion(gctx)
	if err != nil {
		v = "(version unknown: " + err.Error() + ")"
	}
	if _, err := g.Windows(gctx); err != nil {
		add(Check{Name: "compositor", Status: Fail, Detail: "GNOME Shell " + v + ": " + err.Error(), Fix: gnomeSetup})
		return
	}
	add(Check{Name: "compositor", Status: OK, Detail: "GNOME Shell " + v + " (windows, pixels and input through mcec's extension)"})
	add(a11yBus(ctx, t.DBusAddress))
	add(a11yStatus(ctx, t.DBusAddress, t.Private))
	add(apps(ctx, t.DBusAddress))
	add(windowTrees(ctx, linux.Config{Wayland: t.Wayland, GNOME: true, DBusAddress: t.DBusAddress}))
}

// remoteDesktopPortal checks the RemoteDesktop portal, through which keys reach native Wayland
// windows where the compositor offers mcec nothing else (GNOME without the extension).
func remoteDesktopPortal(ctx context.Context, bus string) Check {
	// The first call activates xdg-desktop-portal and its backends: seconds, more when loaded.
	pctx, cancel := context.WithTimeout(ctx, sysload.Scale(portalProbe))
	defer cancel()
	v, err := portal.Probe(pctx, bus)
	if err != nil {
		return Check{Name: "remote-desktop", Status: Warn, Detail: "keys cannot reach native Wayland windows: " + err.Error(),
			Fix: "install xdg-desktop-portal and the desktop's backend (GNOME: xdg-desktop-portal-gnome), or " + gnomeSetup}
	}
	return Check{Name: "remote-desktop", Status: OK, Detail: fmt.Sprintf("RemoteDesktop portal v%d: keys reach the active native "+
		"Wayland window once the user allows remote interaction in the portal's dialog (asked at the first keys for it, once per mcec run)", v)}
}

// protocols lists the globals the compositor offers against those mcec uses there.
func protocols(ctx context.Context, socket string, want []protocol, fix string) Check {
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	wl, err := wlclient.Dial(ctx, socket)
	if err != nil {
		return Check{Name: "wayland-protocols", Status: Fail, Detail: "connect to " + socket + ": " + err.Error(),
			Fix: "check WAYLAND_DISPLAY and XDG_RUNTIME_DIR"}
	}
	defer wl.Close()
	var have, missing []string
	for _, p := range want {
		if wl.Has(p.iface) {
			have = append(have, p.iface)
		} else {
			missing = append(missing, p.iface+" ("+p.use+")")
		}
	}
	if len(missing) == 0 {
		return Check{Name: "wayland-protocols", Status: OK, Detail: strings.Join(have, ", ")}
	}
	return Check{Name: "wayland-protocols", Status: Warn, Detail: "missing: " + strings.Join(missing, ", "),
		Fix: fix + "; what needs a missing one fails compositor-unsupported"}
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown compositor"
	}
	return s
}
