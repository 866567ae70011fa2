package headless

import (
	"slices"
	"strings"
)

// dropEnv are variables that would point a program at some other desktop,
// bus or display server, or hide it from AT-SPI.
var dropEnv = []string{
	"NO_AT_BRIDGE",       // =1 hides GTK apps from AT-SPI entirely
	"AT_SPI_BUS_ADDRESS", // libatspi's override of the a11y bus address
	"AT_SPI_BUS",         // not read by libatspi (it reads the root window property), dropped for safety
	"WAYLAND_DISPLAY",    // toolkits prefer Wayland when it is set; the launcher then skips X too
	"DBUS_SESSION_BUS_PID", "DBUS_SESSION_BUS_WINDOWID",
	"DBUS_STARTER_ADDRESS", "DBUS_STARTER_BUS_TYPE",
	"SESSION_MANAGER", "DESKTOP_AUTOSTART_ID", // the user's session manager, not ours
}

// desktopEnv is base with the desktop's own variables in place.
func desktopEnv(base []string, display, busAddress, runtimeDir string) []string {
	set := [][2]string{
		{"DISPLAY", display},
		{"DBUS_SESSION_BUS_ADDRESS", busAddress},
		{"XDG_RUNTIME_DIR", runtimeDir},
		{"XDG_SESSION_TYPE", "x11"},
		// Toolkits pick X11 even if the parent session was Wayland.
		{"GDK_BACKEND", "x11"},
		{"QT_QPA_PLATFORM", "xcb"},
		// GTK settings from memory: no dconf-service on our private bus.
		{"GSETTINGS_BACKEND", "memory"},
		// Qt only exposes its tree when a screen reader seems present.
		// GTK3 needs nothing (atk-bridge is built in, only NO_AT_BRIDGE
		// disables it); GTK_A11Y is GTK4's and already defaults to atspi.
		{"QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1"},
		{"QT_ACCESSIBILITY", "1"},
		// Read by Mozilla apps and older GNOME libraries to force a11y on.
		{"GNOME_ACCESSIBILITY", "1"},
	}
	out := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(dropEnv, k) || slices.ContainsFunc(set, func(s [2]string) bool { return s[0] == k }) {
			continue
		}
		out = append(out, kv)
	}
	for _, s := range set {
		out = append(out, s[0]+"="+s[1])
	}
	return out
}
