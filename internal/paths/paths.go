// Package paths is the one derivation of where mcec keeps files on this machine: the XDG
// configuration, state and runtime directories, the per-user fallback under the temporary
// directory, and the roots of private desktops' runtime directories. Every location is derived
// from the environment at the time of the call, so a test that points HOME, XDG_* or TMPDIR at
// its own directories never touches the real ones.
package paths

import (
	"os"
	"path/filepath"
	"strconv"
)

// RuntimeVar is the variable naming a session's runtime directory. Private desktops set it to
// their own directory, and every process started inside one carries it (the desktop's mark).
const RuntimeVar = "XDG_RUNTIME_DIR"

// app is the directory every XDG location gets for mcec.
const app = "mcec"

// Config is $XDG_CONFIG_HOME/mcec/name, or ~/.config/mcec/name; "" when neither is known.
func Config(name string) string {
	if s := os.Getenv("XDG_CONFIG_HOME"); s != "" {
		return filepath.Join(s, app, name)
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".config", app, name)
	}
	return ""
}

// State is $XDG_STATE_HOME/mcec/name, or ~/.local/state/mcec/name, or <tmp>/mcec-name when
// there is no home either.
func State(name string) string {
	if s := os.Getenv("XDG_STATE_HOME"); s != "" {
		return filepath.Join(s, app, name)
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", app, name)
	}
	return filepath.Join(os.TempDir(), app+"-"+name)
}

// UserTemp is <tmp>/mcec-<uid>: this user's directory where there is no runtime directory (or
// it cannot hold a socket).
func UserTemp() string {
	return filepath.Join(os.TempDir(), app+"-"+strconv.Itoa(os.Getuid()))
}

// Runtime lists mcec's runtime directories in order of preference: $XDG_RUNTIME_DIR/mcec, then
// UserTemp. The first is where new sockets and records go; readers look in all of them.
func Runtime() []string {
	if d := os.Getenv(RuntimeVar); d != "" {
		return []string{filepath.Join(d, app), UserTemp()}
	}
	return []string{UserTemp()}
}

// maxDesktopRoot bounds the length of the directory private desktops are made in. Socket
// paths inside a desktop's runtime directory must stay well under the 108-byte sun_path limit
// (the AT-SPI launcher silently falls back to a socket in /tmp at 100).
const maxDesktopRoot = 48

// DesktopRoot is the directory private desktops' runtime directories are made in: <tmp>, or
// /tmp when <tmp> is too long for the sockets inside.
func DesktopRoot() string {
	if base := os.TempDir(); len(base) <= maxDesktopRoot {
		return base
	}
	return "/tmp"
}

// DesktopRoots are every directory DesktopRoot may have chosen, now or under another TMPDIR of
// the same machine: <tmp>, and /tmp. Sweeps of leftover desktops look in each.
func DesktopRoots() []string {
	roots := []string{os.TempDir()}
	if roots[0] != "/tmp" {
		roots = append(roots, "/tmp")
	}
	return roots
}
