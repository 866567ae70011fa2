package headless

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The Wayland desktop is headless sway (wlroots): the one compositor on Debian that offers
// everything mcec needs to any client without consent (window list and operations over its IPC,
// screencopy, virtual pointer and keyboard, data-control; shared/spec/wayland-notes.md §1.1).

// swayUID is the user sway runs as inside its user namespace when mcec runs as root: sway
// refuses to start as root ("Unable to drop root"), and only the compositor needs to think it
// is someone else. Root outside stays the owner of every file it makes (uid 0 outside maps to
// this uid inside), so mcec, the buses and the apps use its sockets as they are.
const swayUID = 1000

// swayConfig replaces the user's and Debian's configuration, whose key bindings (Mod4+Return
// opening a terminal, Mod4+Shift+e exiting), bar and autostarts would react to an agent's
// synthetic input or show things the agent did not start. Every window floats at its natural
// size, as on the X11 desktop's openbox, and no border is drawn, so a window's rectangle in
// sway's tree is its client area. Focus follows clicks only. Keys do not repeat: Wayland
// clients repeat a held key themselves, and a release delayed on a loaded machine would type
// it again (platformtest.HeldKeyTypesOnce). No Xwayland unless asked for (Options.XWayland):
// every program runs natively on Wayland.
const swayConfig = `# mcec's private desktop (internal/headless/sway.go)
output * resolution %dx%d position 0 0 scale 1
output * background #3c4c5c solid_color
default_border none
default_floating_border none
focus_follows_mouse no
focus_on_window_activation focus
input type:keyboard repeat_rate 0
for_window [app_id=".*"] floating enable
for_window [title=".*"] floating enable
xwayland %s
`

// swayEnv are the variables that make a wlroots compositor run without hardware: the headless
// backend, no libinput devices (input comes only from virtual devices), software rendering.
var swayEnv = []string{
	"WLR_BACKENDS=headless",
	"WLR_LIBINPUT_NO_DEVICES=1",
	"WLR_RENDERER=pixman",
	"WLR_RENDERER_ALLOW_SOFTWARE=1",
}

// startSway starts the compositor and waits until both its Wayland socket and its IPC socket
// accept connections.
func (d *Desktop) startSway(ctx context.Context, opts Options) error {
	sway, err := lookProgram("sway")
	if err != nil {
		return &StartError{Step: StepCompositor, Err: err}
	}
	cfg := filepath.Join(d.dir, "sway.config")
	xwayland := "disable"
	if opts.XWayland {
		xwayland = "force" // started with sway, not on the first X client: its display is known before any program
	}
	if err := os.WriteFile(cfg, fmt.Appendf(nil, swayConfig, opts.Width, opts.Height, xwayland), 0o600); err != nil {
		return &StartError{Step: StepCompositor, Err: err}
	}
	env := append(swayBaseEnv(os.Environ(), d.dir), swayEnv...)
	var attr *syscall.SysProcAttr
	if os.Geteuid() == 0 {
		attr = &syscall.SysProcAttr{
			Cloneflags:  syscall.CLONE_NEWUSER,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: swayUID, HostID: 0, Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: swayUID, HostID: 0, Size: 1}},
		}
	}
	c, err := spawn(d.log, "sway", []string{sway, "-c", cfg}, env, nil, syscall.SIGTERM, attr)
	if err != nil {
		if attr != nil && errors.Is(err, syscall.EPERM) {
			err = fmt.Errorf("%w: sway refuses to run as root and this system does not let root start it in a user namespace; run mcec as an unprivileged user", err)
		}
		return &StartError{Step: StepCompositor, Program: "sway", Err: err}
	}
	d.procs = append(d.procs, c)
	d.guard.watch(c.pid)
	d.compositor = c
	err = poll(ctx, pollEvery, func() (bool, error) {
		if c.exited() {
			return false, c.exitError()
		}
		wl, ipc := d.findSwaySockets(c.pid)
		if wl == "" || ipc == "" || !answers(wl) || !answers(ipc) {
			return false, nil
		}
		d.waylandSocket, d.swaySocket = wl, ipc
		return true, nil
	})
	if err != nil {
		return d.fail(ctx, StepCompositor, c, fmt.Errorf("waiting for sway's sockets: %w", err))
	}
	if !opts.XWayland {
		return nil
	}
	err = poll(ctx, pollEvery, func() (bool, error) {
		if c.exited() {
			return false, c.exitError()
		}
		d.xwaylandDisplay = xwaylandDisplayOf(d.dir)
		return d.xwaylandDisplay != "" && answers(filepath.Join("/tmp/.X11-unix", "X"+strings.TrimPrefix(d.xwaylandDisplay, ":"))), nil
	})
	if err == nil {
		err = registerX(ctx, d.xwaylandDisplay)
	}
	if err != nil {
		return d.fail(ctx, StepCompositor, c, fmt.Errorf("waiting for sway's Xwayland: %w", err))
	}
	return nil
}

// xwaylandDisplayOf finds the display (":N") of the Xwayland server the compositor started
// for the desktop in runtimeDir: wlroots double-forks it, so it is known by its name and the
// runtime directory in its environment, not as the compositor's child. Its first argument is
// the display.
func xwaylandDisplayOf(runtimeDir string) string {
	display, _ := xwaylandOf(runtimeDir)
	return display
}

// xwaylandOf is xwaylandDisplayOf, and the authority file the server was given ("" for none).
func xwaylandOf(runtimeDir string) (display, auth string) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return "", ""
	}
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) < 2 || filepath.Base(args[0]) != "Xwayland" || !strings.HasPrefix(args[1], ":") {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && slices.Contains(strings.Split(string(env), "\x00"), "XDG_RUNTIME_DIR="+runtimeDir) {
			if i := slices.Index(args, "-auth"); i > 0 && i+1 < len(args) {
				auth = args[i+1]
			}
			return args[1], auth
		}
	}
	return "", ""
}

// findSwaySockets looks for the compositor's sockets in the private runtime directory: the
// Wayland display socket (wayland-N, the first free name) and the IPC socket sway names after
// its uid and pid (sway-ipc.UID.PID.sock; sway runs in a user namespace, not a pid namespace).
func (d *Desktop) findSwaySockets(pid int) (wayland, ipc string) {
	ents, err := os.ReadDir(d.dir)
	if err != nil {
		return "", ""
	}
	for _, e := range ents {
		name := e.Name()
		switch {
		case e.Type()&os.ModeSocket == 0:
		case strings.HasPrefix(name, "wayland-") && wayland == "":
			wayland = filepath.Join(d.dir, name)
		case strings.HasPrefix(name, "sway-ipc.") && strings.HasSuffix(name, fmt.Sprintf(".%d.sock", pid)):
			ipc = filepath.Join(d.dir, name)
		}
	}
	return wayland, ipc
}

// answers reports whether a Unix socket accepts a connection.
func answers(path string) bool {
	c, err := net.DialTimeout("unix", path, 200*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// swayBaseEnv is the compositor's own environment: the private runtime directory, and nothing
// that would make it nest inside another display server.
func swayBaseEnv(base []string, runtimeDir string) []string {
	out := make([]string, 0, len(base)+1)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET", "SWAYSOCK", "I3SOCK", "XDG_RUNTIME_DIR",
			"WLR_BACKENDS", "WLR_RENDERER", "WLR_LIBINPUT_NO_DEVICES", "MCEC_TOKEN":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "XDG_RUNTIME_DIR="+runtimeDir)
}
