package headless

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// The phoc desktop is Phosh's compositor, phoc: a wlroots compositor that speaks no sway IPC,
// as Hyprland, labwc, Wayfire and river do not, and that Debian 12 packages and runs headless.
// mcec drives it as it drives those, through the protocols every wlroots compositor offers
// (wlr-foreign-toplevel for windows, screencopy, the virtual pointer and keyboard,
// data-control), so it is where that path is tested against a compositor other than sway.
//
// phoc reads its settings through GSettings (windows maximized on start, key repeat); the
// desktop gives it a key file of its own in the private directory, never the user's dconf.

// phocConfig sizes the headless output. Xwayland stays on, started only if an X11 program
// connects (no program gets DISPLAY, so none does): phoc 0.24 makes its seat for an input
// device or for Xwayland, and a headless output has no device, so without Xwayland there is no
// wl_seat at all: GTK 3 fails to start (a protocol error) and no virtual keyboard can be made.
const phocConfig = `# mcec's private phoc desktop (internal/headless/phoc.go)
[output:HEADLESS-1]
mode=%dx%d
scale=1
`

// phocSettings is phoc's GSettings key file. Windows keep their own size, as on a desktop
// compositor (phoc maximizes every window by default, as a phone shell does). Keys do not
// repeat: Wayland clients repeat a held key themselves, and a release delayed on a loaded
// machine would type it again (platformtest.HeldKeyTypesOnce).
const phocSettings = `[sm/puri/phoc]
auto-maximize=false

[org/gnome/desktop/peripherals/keyboard]
repeat=false
`

// phocDesktopNames is XDG_CURRENT_DESKTOP in a Phosh session (its session file's DesktopNames):
// it names GNOME too, though GNOME Shell is not there.
const phocDesktopNames = "Phosh:GNOME"

// startPhoc starts phoc and waits until its Wayland socket accepts connections.
func (d *Desktop) startPhoc(ctx context.Context, opts Options) error {
	phoc, err := lookProgram("phoc")
	if err != nil {
		return &StartError{Step: StepCompositor, Err: err}
	}
	cfg := filepath.Join(d.dir, "phoc.ini")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, phocConfig, opts.Width, opts.Height), 0o600); err != nil {
		return &StartError{Step: StepCompositor, Err: err}
	}
	settings := filepath.Join(d.ConfigHome(), "glib-2.0", "settings")
	if err := os.MkdirAll(settings, 0o700); err != nil {
		return &StartError{Step: StepCompositor, Err: err}
	}
	if err := os.WriteFile(filepath.Join(settings, "keyfile"), []byte(phocSettings), 0o600); err != nil {
		return &StartError{Step: StepCompositor, Err: err}
	}
	env := append(swayBaseEnv(os.Environ(), d.dir), swayEnv...)
	env = append(env, "XDG_CONFIG_HOME="+d.ConfigHome(), "GSETTINGS_BACKEND=keyfile")
	c, err := spawn(d.log, "phoc", []string{phoc, "-C", cfg}, env, nil, syscall.SIGTERM, nil)
	if err != nil {
		return &StartError{Step: StepCompositor, Program: "phoc", Err: err}
	}
	d.procs = append(d.procs, c)
	d.guard.watch(c.pid)
	d.compositor = c
	err = poll(ctx, pollEvery, func() (bool, error) {
		if c.exited() {
			return false, c.exitError()
		}
		wl, _ := d.findSwaySockets(c.pid)
		if wl == "" || !answers(wl) {
			return false, nil
		}
		d.waylandSocket = wl
		return true, nil
	})
	if err != nil {
		return d.fail(ctx, StepCompositor, c, fmt.Errorf("waiting for phoc's socket: %w", err))
	}
	return nil
}

// claimPhocXFiles makes the X socket and lock file of phoc's Xwayland the desktop's, found by
// the pid phoc writes in the lock (it binds them after its Wayland socket answers): phoc leaves
// them behind when it is stopped, and Stop removes them as it removes Xvfb's (removeXFiles).
func (d *Desktop) claimPhocXFiles() {
	if d.kind != Phoc || d.compositor == nil || d.displayNum >= 0 {
		return
	}
	if n, ok := xLockOf(d.compositor.pid); ok {
		d.displayNum, d.lockPID = n, d.compositor.pid
	}
}

// xLockOf finds the display whose X lock file holds pid: the one a wlroots compositor claimed
// for its Xwayland, started only when an X11 program connects.
func xLockOf(pid int) (int, bool) {
	locks, _ := filepath.Glob("/tmp/.X*-lock")
	for _, l := range locks {
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(l, "/tmp/.X"), "-lock"))
		if err != nil {
			continue
		}
		if b, err := os.ReadFile(l); err == nil {
			if p, ok := lockFilePID(b); ok && p == pid {
				return n, true
			}
		}
	}
	return 0, false
}
