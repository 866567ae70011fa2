package linux

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcec/mcec/internal/procname"
)

// Session reads the user's desktop session from the environment (getenv): the X display,
// or the Wayland and sway sockets, of the Config that attaches to it. A Wayland session of sway
// (or another compositor speaking its IPC, found through SWAYSOCK or its socket in the runtime
// directory), of KDE Plasma (KWin) or of GNOME (through mcec's extension, else its XWayland
// display) is driven natively; any other Wayland session through the wlroots protocols
// (Toplevels; note says what that costs), else its XWayland display. An X11 session is its
// display. ok is false when the environment names no desktop at all.
//
// The compositor is told by compositor(socket), the program listening on the Wayland socket
// (CompositorProgram; nil or "" when unknown), before XDG_CURRENT_DESKTOP: that names desktops,
// not compositors, and a Phosh session says "Phosh:GNOME" with phoc, not GNOME Shell, serving.
func Session(getenv func(string) string, compositor func(socket string) string) (a Config, ok bool, note string, err error) {
	a.Display = getenv("DISPLAY")
	wl := getenv("WAYLAND_DISPLAY")
	if wl == "" {
		return a, a.Display != "", "", nil
	}
	runtime := getenv("XDG_RUNTIME_DIR")
	if !filepath.IsAbs(wl) {
		wl = filepath.Join(runtime, wl)
	}
	sway := getenv("SWAYSOCK")
	if sway == "" {
		sway = findSwaySocket(runtime)
	}
	if sway != "" {
		a.Wayland, a.Sway, a.Display = wl, sway, ""
		return a, true, "", nil
	}
	program := ""
	if compositor != nil {
		program = compositor(wl)
	}
	desktop := getenv("XDG_CURRENT_DESKTOP")
	desktops := strings.Split(desktop, ":")
	switch {
	case isKWin(program) || program == "" && slices.Contains(desktops, "KDE"):
		// Plasma: KWin's scripts, ScreenShot2 and fake input (docs/wayland.md says what the
		// operator must allow).
		a.Wayland, a.KWin, a.Display = wl, true, ""
		return a, true, "", nil
	case program == "gnome-shell" || program == "" && slices.Contains(desktops, "GNOME"):
		// GNOME Shell through mcec's extension; Open falls back to the XWayland display (kept
		// in a.Display) when the extension does not answer.
		a.Wayland, a.GNOME = wl, true
		return a, true, "", nil
	}
	// Any other (Hyprland, labwc, Wayfire, river, phoc …): the wlroots protocols alone, where
	// Open falls back to the XWayland display (kept in a.Display) when the compositor lacks them.
	a.Wayland, a.Toplevels = wl, true
	return a, true, fmt.Sprintf("the Wayland session of %s offers no sway IPC: its windows are listed through wlr-foreign-toplevel, "+
		"which tells neither where they are nor which process owns them (docs/wayland.md says what that costs)", sessionName(program, desktop)), nil
}

// isKWin reports whether the program serving the Wayland socket is KWin: kwin_wayland, or in
// Plasma 5.27 and later the kwin_wayland_wrapper that made the socket and hands it on.
func isKWin(program string) bool { return strings.HasPrefix(program, "kwin_wayland") }

// CompositorProgram names the program listening on the Wayland socket, from the socket's peer
// credentials: "" when it cannot be told (no answer, or a process in another pid namespace).
func CompositorProgram(socket string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return procname.Of(compositorPID(ctx, socket))
}

// sessionName names the session for a note: its compositor and desktop where known.
func sessionName(program, desktop string) string {
	switch {
	case program != "" && desktop != "":
		return program + " (" + desktop + ")"
	case program != "":
		return program
	}
	return orUnknown(desktop)
}

func orUnknown(compositor string) string {
	if compositor == "" {
		return "an unknown compositor"
	}
	return compositor
}

// findSwaySocket is the one sway IPC socket in the runtime directory ("" when there is none, or
// several: then SWAYSOCK must say which).
func findSwaySocket(runtime string) string {
	if runtime == "" {
		return ""
	}
	ents, err := os.ReadDir(runtime)
	if err != nil {
		return ""
	}
	found := ""
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "sway-ipc.") && strings.HasSuffix(e.Name(), ".sock") && e.Type()&os.ModeSocket != 0 {
			if found != "" {
				return ""
			}
			found = filepath.Join(runtime, e.Name())
		}
	}
	return found
}

// KWinDesktopFile is the desktop file that lets the program at exe (mcec's absolute path) use
// what KWin keeps from ordinary clients: ScreenShot2 for pixels, and fake input. KWin finds it
// among the desktop files in applications/ of the XDG data directories by its Exec line.
func KWinDesktopFile(exe string) string {
	return "[Desktop Entry]\n" +
		"Type=Application\n" +
		"Name=mcec\n" +
		"Comment=Desktop automation for AI agents: lets KWin give it screenshots and input\n" +
		"Exec=" + exe + "\n" +
		"NoDisplay=true\n" +
		"X-KDE-DBUS-Restricted-Interfaces=org.kde.KWin.ScreenShot2\n" +
		"X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input\n"
}
