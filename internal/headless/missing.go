package headless

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Missing is a program a headless desktop needs and cannot find.
type Missing struct{ Program, DebianPackage string }

type requirement struct {
	program, pkg string
	dirs         []string // searched before PATH: helpers live outside it
	kind         Kind     // "" when every kind of desktop needs it
}

// atspiDirs is where distributions put the AT-SPI helpers.
var atspiDirs = []string{"/usr/libexec", "/usr/lib/at-spi2-core", "/usr/libexec/at-spi2", "/usr/lib/at-spi2", "/usr/lib"}

var requirements = []requirement{
	{"Xvfb", "xvfb", nil, X11},
	{"dbus-daemon", "dbus", nil, ""},
	{"at-spi-bus-launcher", "at-spi2-core", atspiDirs, ""},
	// Not run by us but activated by the a11y bus: without it no app registers.
	{"at-spi2-registryd", "at-spi2-core", atspiDirs, ""},
	{"openbox", "openbox", nil, X11},
	{"sway", "sway", nil, Wayland},
	{"kwin_wayland", "kwin-wayland", nil, KWin},
	{"gnome-shell", "gnome-shell", nil, GNOME},
	{"phoc", "phoc", nil, Phoc},
	{"unshare", "util-linux", nil, GNOME},
}

// MissingPrograms reports which programs the X11 desktop needs and are absent, with the
// Debian package that provides each.
func MissingPrograms() []Missing { return MissingFor(X11) }

// MissingFor reports which programs a desktop of kind needs and are absent.
func MissingFor(kind Kind) []Missing {
	var out []Missing
	for _, r := range requirements {
		if r.kind != "" && r.kind != kind {
			continue
		}
		if _, err := lookProgram(r.program); err != nil {
			out = append(out, Missing{r.program, r.pkg})
		}
	}
	return out
}

// lookProgram finds a required program's path.
func lookProgram(name string) (string, error) {
	for _, r := range requirements {
		if r.program != name {
			continue
		}
		for _, dir := range r.dirs {
			p := filepath.Join(dir, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				return p, nil
			}
		}
		p, err := exec.LookPath(name)
		if err != nil {
			return "", fmt.Errorf("%s not found (Debian package %s)", name, r.pkg)
		}
		return p, nil
	}
	return exec.LookPath(name)
}
