package headless

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/godbus/dbus/v5"

	"github.com/mcec/mcec/internal/gnomeext"
)

// The GNOME desktop is gnome-shell 43 as a headless Wayland compositor, with mcec's extension
// (internal/gnomeext) installed and enabled in its private data directory and allowed for this
// executable: a private stand-in for a user's GNOME session, so that the extension and mcec's
// GNOME adapter are tested as they are used. For tests of GNOME as mcec finds it without the
// extension (a user who has not installed it), Options.NoShellExtension leaves it out and
// Options.XWayland starts mutter's own Xwayland, which admits the desktop's user (xauth.go).
//
// gnome-shell wants a system bus with logind and UPower on it; without logind it must not find
// systemd's runtime directory either (shared/spec/wayland-notes.md, "gnome-shell 43.9"). It gets
// a private system bus with nothing on it, and runs in a mount namespace whose /run/systemd is
// an empty tmpfs.

// gnomeShellScript hides systemd's runtime directory and runs the Shell.
const gnomeShellScript = `if [ -d /run/systemd ]; then mount -t tmpfs mcec /run/systemd || exit 1; fi; exec "$@"`

// startGNOME starts the private system bus and gnome-shell, and waits until its Wayland socket
// answers and the extension owns its bus name.
func (d *Desktop) startGNOME(ctx context.Context, opts Options) error {
	shell, err := lookProgram("gnome-shell")
	if err != nil {
		return &StartError{Step: StepCompositor, Err: err}
	}
	unshare, err := lookProgram("unshare")
	if err != nil {
		return &StartError{Step: StepCompositor, Err: err}
	}
	daemon, err := lookProgram("dbus-daemon")
	if err != nil {
		return &StartError{Step: StepCompositor, Err: err}
	}
	system := filepath.Join(d.dir, "system_bus")
	if _, err := d.spawnStep(StepCompositor, "dbus-daemon (system)", []string{daemon, "--session", "--nofork", "--nopidfile",
		"--nosyslog", "--address=unix:path=" + system}, nil, syscall.SIGKILL); err != nil {
		return err
	}
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return &StartError{Step: StepCompositor, Err: err}
	}
	data := d.DataHome()
	if !opts.NoShellExtension {
		if err := installExtension(ctx, data, self, opts.ShellExtensionFor); err != nil {
			return &StartError{Step: StepCompositor, Err: err}
		}
	}
	config := d.ConfigHome()
	settings := filepath.Join(config, "glib-2.0", "settings")
	if err := os.MkdirAll(settings, 0o700); err != nil {
		return &StartError{Step: StepCompositor, Err: err}
	}
	// No key repeat: Wayland clients repeat a held key themselves, and a release delayed on a
	// loaded machine would type the key again (platformtest.HeldKeyTypesOnce).
	enabled, owner := "'"+gnomeext.UUID+"'", "org.mcec.Shell"
	switch {
	case opts.NoShellExtension:
		enabled, owner = "", "org.gnome.Shell"
	case opts.ShellExtensionFor != 0:
		owner = "org.gnome.Shell"
	}
	keyfile := fmt.Sprintf("[org/gnome/shell]\nenabled-extensions=[%s]\ndisable-user-extensions=false\n\n"+
		"[org/gnome/desktop/peripherals/keyboard]\nrepeat=false\n", enabled)
	if err := os.WriteFile(filepath.Join(settings, "keyfile"), []byte(keyfile), 0o600); err != nil {
		return &StartError{Step: StepCompositor, Err: err}
	}
	env := append(swayBaseEnv(os.Environ(), d.dir),
		"DBUS_SESSION_BUS_ADDRESS="+d.busAddr, "DBUS_SYSTEM_BUS_ADDRESS=unix:path="+system,
		"HOME="+filepath.Join(d.dir, "home"), "XDG_CONFIG_HOME="+config, "XDG_DATA_HOME="+data,
		"XDG_CACHE_HOME="+filepath.Join(d.dir, "cache"), "GSETTINGS_BACKEND=keyfile")
	const socket = "wayland-0"
	argv := []string{unshare, "--mount"}
	if os.Geteuid() != 0 {
		argv = append(argv, "--map-root-user")
	}
	argv = append(argv, "sh", "-c", gnomeShellScript, "sh", shell, "--headless", "--wayland",
		"--virtual-monitor", strconv.Itoa(opts.Width)+"x"+strconv.Itoa(opts.Height), "--wayland-display", socket)
	if !opts.XWayland {
		argv = append(argv, "--no-x11")
	}
	if err := d.startBusCompositor(ctx, "gnome-shell", argv, env, socket, owner); err != nil {
		return err
	}
	if err := d.waitShellService(ctx); err != nil {
		return d.fail(ctx, StepCompositor, d.compositor, err)
	}
	if !opts.XWayland {
		return nil
	}
	// mutter starts Xwayland with the Shell (not on the first X client, unless the session says
	// so): its display is found as sway's is, and it lets the desktop's user in without its
	// cookie, as Xvfb does (xauth.go).
	var auth string
	err = poll(ctx, pollEvery, func() (bool, error) {
		if d.compositor.exited() {
			return false, d.compositor.exitError()
		}
		d.xwaylandDisplay, auth = xwaylandOf(d.dir)
		return d.xwaylandDisplay != "" && answers(filepath.Join("/tmp/.X11-unix", "X"+strings.TrimPrefix(d.xwaylandDisplay, ":"))), nil
	})
	if err == nil && auth != "" {
		err = allowOwnUser(ctx, d.xwaylandDisplay, auth)
	}
	if err == nil {
		err = registerX(ctx, d.xwaylandDisplay)
	}
	if err != nil {
		return d.fail(ctx, StepCompositor, d.compositor, fmt.Errorf("waiting for gnome-shell's Xwayland: %w", err))
	}
	return nil
}

// shellVersion is gnomeext.ShellVersion, asked once per process (`gnome-shell --version`
// takes about 200 ms, and a test process starts many desktops).
func shellVersion(ctx context.Context) int {
	shellVersionMu.Lock()
	defer shellVersionMu.Unlock()
	if shellVersionKnown == 0 {
		shellVersionKnown = gnomeext.ShellVersion(ctx)
	}
	return shellVersionKnown
}

var (
	shellVersionMu    sync.Mutex
	shellVersionKnown int
)

// waitShellService waits until the Shell serves /org/gnome/Shell: it owns its bus name before
// its JavaScript exports the object, and doctor (GetExtensionInfo) and mcec (ShellVersion) ask
// it at once.
func (d *Desktop) waitShellService(ctx context.Context) error {
	bus, err := dbus.Connect(d.busAddr, dbus.WithContext(ctx))
	if err != nil {
		return err
	}
	defer bus.Close()
	err = poll(ctx, pollEvery, func() (bool, error) {
		if d.compositor.exited() {
			return false, d.compositor.exitError()
		}
		var v dbus.Variant
		return bus.Object("org.gnome.Shell", "/org/gnome/Shell").CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0,
			"org.gnome.Shell", "ShellVersion").Store(&v) == nil, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for gnome-shell to serve /org/gnome/Shell: %w", err)
	}
	return nil
}

// installExtension installs mcec's extension (its variant for GNOME shell, 0 for the running
// one) in the desktop's data directory, allowed for executable self, and marks the desktop as
// mcec's own: the extension then hides the Overview and focuses new windows, as openbox and
// mcec's sway do.
func installExtension(ctx context.Context, data, self string, shell int) error {
	if shell == 0 {
		shell = shellVersion(ctx)
	}
	dir, err := gnomeext.Install(data, self, shell)
	if err != nil {
		return fmt.Errorf("install mcec's GNOME Shell extension: %w", err)
	}
	return os.WriteFile(filepath.Join(dir, "private-desktop"), nil, 0o644)
}
