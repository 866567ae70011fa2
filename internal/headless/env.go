package headless

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcec/mcec/internal/a11yenv"
	"github.com/mcec/mcec/internal/paths"
)

// dropEnv are variables that would point a program at some other desktop,
// bus or display server. (Those that hide it from AT-SPI are a11yenv's.)
var dropEnv = []string{
	"AT_SPI_BUS_ADDRESS", // libatspi's override of the a11y bus address
	"AT_SPI_BUS",         // not read by libatspi (it reads the root window property), dropped for safety
	"WAYLAND_DISPLAY",    // toolkits prefer Wayland when it is set; the launcher then skips X too
	"DBUS_SESSION_BUS_PID", "DBUS_SESSION_BUS_WINDOWID",
	"DBUS_STARTER_ADDRESS", "DBUS_STARTER_BUS_TYPE",
	"SESSION_MANAGER", "DESKTOP_AUTOSTART_ID", // the user's session manager, not ours
	// mcec's bearer token (a container's entrypoint and provision-session hand it over in the
	// environment): the apps inside the desktop are what agents drive, not who may drive mcec.
	"MCEC_TOKEN",
}

// desktopEnv is base with the desktop's own variables in place and every
// toolkit's accessibility switched on (a11yenv, the one list of those).
func desktopEnv(base []string, display, busAddress, runtimeDir string) []string {
	set := [][2]string{
		{"DISPLAY", display},
		{"DBUS_SESSION_BUS_ADDRESS", busAddress},
		{paths.RuntimeVar, runtimeDir},
		{"TMPDIR", filepath.Join(runtimeDir, tmpSubdir)},
		{"XDG_SESSION_TYPE", "x11"},
		// Toolkits pick X11 even if the parent session was Wayland.
		{"GDK_BACKEND", "x11"},
		{"QT_QPA_PLATFORM", "xcb"},
		// GTK settings from memory: no dconf-service on our private bus.
		{"GSETTINGS_BACKEND", "memory"},
	}
	return withVars(base, set, dropEnv)
}

// waylandEnv is base with a Wayland desktop's variables in place: programs run natively on
// Wayland (DISPLAY unset, every toolkit's Wayland backend picked) and publish their trees.
// WAYLAND_DISPLAY is the socket's name in the runtime directory, the form every toolkit reads.
// xdisplay, when set, is the compositor's Xwayland: DISPLAY names it. desktop is what
// XDG_CURRENT_DESKTOP says ("sway", "KDE", "GNOME", "Phosh:GNOME").
func waylandEnv(base []string, desktop, waylandSocket, swaySocket, xdisplay, busAddress, runtimeDir string) []string {
	set := [][2]string{
		{"WAYLAND_DISPLAY", filepath.Base(waylandSocket)},
		{"SWAYSOCK", swaySocket},
		{"DBUS_SESSION_BUS_ADDRESS", busAddress},
		{paths.RuntimeVar, runtimeDir},
		{"TMPDIR", filepath.Join(runtimeDir, tmpSubdir)},
		{"XDG_SESSION_TYPE", "wayland"},
		{"XDG_CURRENT_DESKTOP", desktop},
		{"GDK_BACKEND", "wayland"},
		{"QT_QPA_PLATFORM", "wayland"},
		{"MOZ_ENABLE_WAYLAND", "1"},
		{"SDL_VIDEODRIVER", "wayland"},
		{"ELECTRON_OZONE_PLATFORM_HINT", "wayland"},
		{"GSETTINGS_BACKEND", "memory"},
	}
	drop := append(slices.Clone(dropEnv), "DISPLAY", "WAYLAND_SOCKET", "I3SOCK")
	if xdisplay != "" {
		set = append(set, [2]string{"DISPLAY", xdisplay})
	}
	if swaySocket == "" {
		set = slices.DeleteFunc(set, func(kv [2]string) bool { return kv[0] == "SWAYSOCK" })
		drop = append(drop, "SWAYSOCK")
	}
	return withVars(base, set, drop)
}

// WithNonReparentingWM is env telling Java's AWT that the X window manager does not reparent its
// windows, as wlroots' Xwayland window manager (sway's, and every wlroots compositor's) does
// not: without it Java's windows there stay grey, and Java reports its objects from where it
// asked to be mapped, not where the compositor put them (measured on sway 1.7 with OpenJDK 17).
// A value the user set is kept. Not for KWin or GNOME Shell, whose window managers reparent.
func WithNonReparentingWM(env []string) []string {
	const name = "_JAVA_AWT_WM_NONREPARENTING"
	for _, kv := range env {
		if strings.HasPrefix(kv, name+"=") {
			return env
		}
	}
	return append(slices.Clip(env), name+"=1")
}

// withVars is base with every toolkit's accessibility switched on (a11yenv, the one list of
// those), the variables in drop removed and those in set set.
func withVars(base []string, set [][2]string, drop []string) []string {
	base = a11yenv.Env(base)
	out := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(drop, k) || slices.ContainsFunc(set, func(s [2]string) bool { return s[0] == k }) {
			continue
		}
		out = append(out, kv)
	}
	for _, s := range set {
		out = append(out, s[0]+"="+s[1])
	}
	return out
}
