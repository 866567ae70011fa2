package doctor

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mcec/mcec/internal/headless"
	"github.com/mcec/mcec/internal/platform/linux"
	"github.com/mcec/mcec/internal/wayland/swayipc"
	"github.com/mcec/mcec/internal/wayland/wlclient"
)

// waylandProtocols are the Wayland globals mcec uses on a wlroots compositor, and what is lost
// without each.
var waylandProtocols = []struct{ iface, use string }{
	{"zwlr_screencopy_manager_v1", "capture, OCR, recordings and pixel effects"},
	{"zwlr_virtual_pointer_manager_v1", "click, drag and scroll"},
	{"zwp_virtual_keyboard_manager_v1", "typing and key chords"},
	{"zwlr_data_control_manager_v1", "the clipboard"},
	{"zxdg_output_manager_v1", "the outputs' logical layout"},
}

// runWayland checks a Wayland desktop: the compositor behind sway's IPC, the protocols mcec
// needs, the accessibility bus and every window's tree.
func runWayland(ctx context.Context, t Target, add func(Check)) {
	add(programsFor(headless.Wayland, t.Private))
	if t.Private && t.Wayland == "" {
		return // the private desktop could not start: the programs check says why
	}
	if t.Sway == "" {
		add(Check{Name: "compositor", Status: Fail,
			Detail: fmt.Sprintf("the Wayland session of %s has no sway IPC (SWAYSOCK): native Wayland windows cannot be listed, captured or driven",
				orUnknown(os.Getenv("XDG_CURRENT_DESKTOP"))),
			Fix: "mcec drives sway and other compositors that speak its IPC; KDE and GNOME sessions are not supported yet. " +
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
	add(protocols(ctx, t.Wayland))
	add(a11yBus(ctx, t.DBusAddress))
	add(a11yStatus(ctx, t.DBusAddress, t.Private))
	add(apps(ctx, t.DBusAddress))
	add(windowTrees(ctx, linux.Config{Wayland: t.Wayland, Sway: t.Sway, DBusAddress: t.DBusAddress}))
}

// protocols lists the globals the compositor offers against those mcec uses.
func protocols(ctx context.Context, socket string) Check {
	ctx, cancel := context.WithTimeout(ctx, stepTimeout)
	defer cancel()
	wl, err := wlclient.Dial(ctx, socket)
	if err != nil {
		return Check{Name: "wayland-protocols", Status: Fail, Detail: "connect to " + socket + ": " + err.Error(),
			Fix: "check WAYLAND_DISPLAY and XDG_RUNTIME_DIR"}
	}
	defer wl.Close()
	var have, missing []string
	for _, p := range waylandProtocols {
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
		Fix: "use a wlroots compositor that offers them (sway does); what needs a missing one fails compositor-unsupported"}
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown compositor"
	}
	return s
}
