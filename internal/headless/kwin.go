package headless

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/godbus/dbus/v5"
	"golang.org/x/sys/unix"
)

// The KWin desktop is KDE Plasma's compositor, kwin_wayland, on its virtual backend: a private
// stand-in for a user's Plasma session, so that mcec's KWin adapter (windows and window
// operations through KWin scripts, pixels through ScreenShot2, input through fake input) is
// tested as it is used. KWin 5.27 lets a client use ScreenShot2 and fake input only when a
// desktop file names the client's executable; on its own desktop mcec starts KWin with the
// switches that lift those checks instead, as KWin's own tests do.

// kwinEnv are the variables KWin runs with on mcec's desktop: the permission checks off (unless
// checks), and its configuration and caches in the private directory, not the user's.
func kwinEnv(dir string, checks bool) []string {
	env := []string{
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"),
		"XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
		"XDG_DATA_HOME=" + filepath.Join(dir, "data"),
		"KDE_FULL_SESSION=", "KDE_SESSION_VERSION=5",
	}
	if !checks {
		env = append(env, "KWIN_WAYLAND_NO_PERMISSION_CHECKS=1", "KWIN_SCREENSHOT_NO_PERMISSION_CHECKS=1")
	}
	return env
}

// DataHome is the XDG_DATA_HOME of a KWin or GNOME desktop's compositor (KWin looks for
// desktop files in applications/ below it, GNOME Shell for extensions): the private
// directory's, not the user's.
func (d *Desktop) DataHome() string { return filepath.Join(d.dir, "data") }

// ConfigHome is the XDG_CONFIG_HOME of a KWin or GNOME desktop's compositor (GNOME Shell's
// settings are a key file below it).
func (d *Desktop) ConfigHome() string { return filepath.Join(d.dir, "config") }

// startKWin starts kwin_wayland on the private session bus (it registers org.kde.KWin there)
// and waits until its Wayland socket accepts connections and it owns its bus name.
func (d *Desktop) startKWin(ctx context.Context, opts Options) error {
	kwin, err := lookProgram("kwin_wayland")
	if err != nil {
		return &StartError{Step: StepCompositor, Err: err}
	}
	if kwin, err = withoutFileCaps(kwin, d.dir); err != nil {
		return &StartError{Step: StepCompositor, Program: "kwin_wayland", Err: err}
	}
	// As in a user's home: KWin's service cache notices desktop files added later to a
	// directory that existed when it was built.
	if err := os.MkdirAll(filepath.Join(d.DataHome(), "applications"), 0o700); err != nil {
		return &StartError{Step: StepCompositor, Err: err}
	}
	// No key repeat: Wayland clients repeat a held key themselves, and a release delayed on a
	// loaded machine would type the key again (platformtest.HeldKeyTypesOnce). KWin tells
	// clients a repeat rate of 0 when KeyRepeat is neither repeat nor accent.
	if err := os.MkdirAll(d.ConfigHome(), 0o700); err != nil {
		return &StartError{Step: StepCompositor, Err: err}
	}
	if err := os.WriteFile(filepath.Join(d.ConfigHome(), "kcminputrc"), []byte("[Keyboard]\nKeyRepeat=nothing\n"), 0o600); err != nil {
		return &StartError{Step: StepCompositor, Err: err}
	}
	env := append(swayBaseEnv(os.Environ(), d.dir), kwinEnv(d.dir, opts.KWinChecks)...)
	env = append(env, "DBUS_SESSION_BUS_ADDRESS="+d.busAddr)
	const socket = "wayland-0"
	argv := []string{kwin, "--virtual", "--no-lockscreen", "--no-global-shortcuts", "--no-kactivities",
		"--width", strconv.Itoa(opts.Width), "--height", strconv.Itoa(opts.Height), "--socket", socket}
	return d.startBusCompositor(ctx, "kwin_wayland", argv, env, socket, "org.kde.KWin")
}

// startBusCompositor starts a compositor that serves the session bus (KWin, GNOME Shell) and
// waits until its Wayland socket (socket, in the runtime directory) answers and name has an
// owner on the bus: the compositor, or the part of it mcec talks to, is up.
func (d *Desktop) startBusCompositor(ctx context.Context, program string, argv, env []string, socket, name string) error {
	c, err := spawn(d.log, program, argv, env, nil, syscall.SIGTERM, nil)
	if err != nil {
		return &StartError{Step: StepCompositor, Program: program, Err: err}
	}
	d.procs = append(d.procs, c)
	d.guard.watch(c.pid)
	d.compositor = c
	bus, err := dbus.Connect(d.busAddr, dbus.WithContext(ctx))
	if err != nil {
		return d.fail(ctx, StepCompositor, c, err)
	}
	defer bus.Close()
	path := filepath.Join(d.dir, socket)
	err = poll(ctx, pollEvery, func() (bool, error) {
		if c.exited() {
			return false, c.exitError()
		}
		var owned bool
		if err := bus.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, name).Store(&owned); err != nil {
			return false, err
		}
		return owned && answers(path), nil
	})
	if err != nil {
		return d.fail(ctx, StepCompositor, c, fmt.Errorf("waiting for %s's socket and %s on the bus: %w", program, name, err))
	}
	d.waylandSocket = path
	return nil
}

// withoutFileCaps returns a copy of program in dir when program carries file capabilities
// (Debian's kwin_wayland has cap_sys_resource): in a container that may not grant them, exec
// fails with EPERM. A copy carries none, and KWin runs without raising its limits.
func withoutFileCaps(program, dir string) (string, error) {
	if _, err := unix.Getxattr(program, "security.capability", nil); err != nil {
		return program, nil // no capabilities (or no xattrs at all): run it as it is
	}
	src, err := os.Open(program)
	if err != nil {
		return "", err
	}
	defer src.Close()
	dst := filepath.Join(dir, filepath.Base(program))
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o700)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, src); err != nil {
		out.Close()
		return "", err
	}
	return dst, out.Close()
}
