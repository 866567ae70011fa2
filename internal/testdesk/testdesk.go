// Package testdesk is the shared test fixture: one private headless desktop
// per test package, and helpers that wait on it by condition, never by time.
// Import it only from _test.go files:
//
//	func TestMain(m *testing.M) { os.Exit(testdesk.Main(m)) }
//
// Set MCEC_TESTDESK_LOG=1 to see the desktop's processes' output on stderr.
package testdesk

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/headless"
	"github.com/mcec/mcec/internal/paths"
	"github.com/mcec/mcec/internal/procgroup"
	"github.com/mcec/mcec/internal/sysload"
	"github.com/mcec/mcec/internal/wayland/gnome"
	"github.com/mcec/mcec/internal/wayland/kwin"
	"github.com/mcec/mcec/internal/wayland/swayipc"
	"github.com/mcec/mcec/internal/wayland/wlclient"
)

// desk is set by Main before any test runs and only read afterwards.
var desk *headless.Desktop

// Main starts a private desktop for the whole test package, exports its
// DISPLAY, DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR and TMPDIR into the process
// environment (and unsets AT_SPI_BUS_ADDRESS, which would redirect an AT-SPI
// client), so code under test that reads the environment attaches to it,
// runs m.Run(), stops the desktop, and returns the exit code. If required
// programs are missing it says which Debian packages to install and
// returns 1.
func Main(m *testing.M) int { return run(m, headless.X11) }

// MainWayland is Main with a private Wayland desktop (headless sway): it exports
// WAYLAND_DISPLAY, SWAYSOCK, DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR and unsets DISPLAY.
func MainWayland(m *testing.M) int { return run(m, headless.Wayland) }

// MainKWin is Main on a private KWin desktop (KDE's compositor, headless.KWin).
func MainKWin(m *testing.M) int { return run(m, headless.KWin) }

// MainGNOME is Main on a private GNOME Shell desktop with mcec's extension (headless.GNOME).
func MainGNOME(m *testing.M) int { return run(m, headless.GNOME) }

// MainPhoc is Main on a private phoc desktop (Phosh's wlroots compositor, headless.Phoc).
func MainPhoc(m *testing.M) int { return run(m, headless.Phoc) }

func run(m *testing.M, kind headless.Kind) int {
	if miss := headless.MissingFor(kind); len(miss) > 0 {
		var progs, pkgs []string
		for _, p := range miss {
			progs = append(progs, p.Program)
			if !slices.Contains(pkgs, p.DebianPackage) {
				pkgs = append(pkgs, p.DebianPackage)
			}
		}
		fmt.Fprintf(os.Stderr, "testdesk: missing %s; install with: apt-get install %s\n",
			strings.Join(progs, ", "), strings.Join(pkgs, " "))
		return 1
	}
	logger := slog.New(slog.DiscardHandler)
	if os.Getenv("MCEC_TESTDESK_LOG") != "" {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	// Generous: every package of a `go test ./...` starts its desktop at once.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	d, err := headless.Start(ctx, headless.Options{Kind: kind, Logger: logger})
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testdesk:", err)
		return 1
	}
	desk = d
	for _, kv := range d.Env() {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		// TMPDIR too: the desktop's own, removed with it, so what the tests' programs leave in
		// their temp folder (Chromium's singleton sockets, LibreOffice's lu*.tmp) goes with it.
		case "DISPLAY", "WAYLAND_DISPLAY", "SWAYSOCK", "DBUS_SESSION_BUS_ADDRESS", paths.RuntimeVar, "TMPDIR":
			os.Setenv(k, v)
		}
	}
	if kind.IsWayland() {
		os.Unsetenv("DISPLAY")
	}
	os.Unsetenv("AT_SPI_BUS_ADDRESS")

	// On Ctrl-C, stop the desktop before dying so its temp dir goes too
	// (its processes would die with us anyway).
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-sigs; ok {
			_ = d.Stop()
			os.Exit(1)
		}
	}()
	code := m.Run()
	signal.Stop(sigs)
	close(sigs)
	if err := d.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "testdesk:", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// Desktop is the package's desktop, valid while tests run.
func Desktop() *headless.Desktop {
	if desk == nil {
		panic("testdesk: no desktop; call testdesk.Main from TestMain")
	}
	return desk
}

// Proc is a process started in the desktop. Stdin and Stdout are set by StartPiped.
type Proc struct {
	Cmd    *exec.Cmd
	PID    int
	Stdin  io.WriteCloser
	Stdout io.Reader
}

// Start launches argv inside the desktop (with its Env) in a process group
// of its own. A cleanup kills the group and reaps the process; if the test
// failed it logs the process's last output. The test may Wait on Cmd itself.
func Start(t testing.TB, argv ...string) *Proc {
	t.Helper()
	if len(argv) == 0 {
		t.Fatal("testdesk.Start: no command")
	}
	return start(t, exec.Command(argv[0], argv[1:]...), false)
}

// StartPiped is Start for a test that talks to the program: its stdin and stdout are pipes
// (Proc.Stdin, Proc.Stdout); stderr is kept for the failure log.
func StartPiped(t testing.TB, argv ...string) *Proc {
	t.Helper()
	if len(argv) == 0 {
		t.Fatal("testdesk.StartPiped: no command")
	}
	return start(t, exec.Command(argv[0], argv[1:]...), true)
}

func start(t testing.TB, cmd *exec.Cmd, piped bool) *Proc {
	t.Helper()
	argv := cmd.Args
	cmd.Env = Desktop().Env()
	out := &tailBuffer{}
	p := &Proc{Cmd: cmd}
	cmd.Stdout, cmd.Stderr = out, out
	if piped {
		var err error
		cmd.Stdout = nil
		if p.Stdin, err = cmd.StdinPipe(); err != nil {
			t.Fatal(err)
		}
		if p.Stdout, err = cmd.StdoutPipe(); err != nil {
			t.Fatal(err)
		}
	}
	cmd.WaitDelay = time.Second // helpers holding the output pipe must not block the cleanup
	// Its own group, killed with the test binary; the test may Wait itself (or read its pipes
	// first), so the cleanup below reaps it rather than a procgroup.Start goroutine.
	procgroup.Prepare(cmd, syscall.SIGKILL)
	if err := cmd.Start(); err != nil {
		t.Fatalf("testdesk.Start %v: %v", argv, err)
	}
	p.PID = cmd.Process.Pid
	t.Cleanup(func() {
		_ = syscall.Kill(-p.PID, syscall.SIGKILL)
		done := make(chan struct{})
		go func() {
			_ = cmd.Wait() // "already called" if the test waited: fine
			close(done)
		}()
		timer := time.NewTimer(5 * time.Second)
		defer timer.Stop()
		select {
		case <-done:
		case <-timer.C:
			t.Errorf("testdesk: %s (pid %d) did not exit after SIGKILL", argv[0], p.PID)
		}
		if t.Failed() {
			t.Logf("%s (pid %d) output:\n%s", argv[0], p.PID, out.String())
		}
	})
	return p
}

// Kill stops a process the test did not start through Start (e.g. one a tool launched) by
// killing its process group, and waits until it has exited.
func Kill(t testing.TB, pid int) {
	t.Helper()
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = syscall.Kill(pid, syscall.SIGKILL)
	WaitFor(t, 5*time.Second, fmt.Sprintf("process %d did not exit", pid), func() bool {
		return gone(pid)
	})
}

// gone reports whether pid has exited (a zombie waiting for its reaper counts as gone).
func gone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] == "Z"
}

// tailBuffer keeps the last 64 KiB written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if over := b.buf.Len() - 64<<10; over > 0 {
		b.buf.Next(over)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// WaitFor polls cond every 20 ms until it returns true or timeout passes,
// then fails the test with msg. The timeout stretches with the load (sysload.Scale): beside a
// second make test, desktops and apps answer several times slower, and a wait that fails only
// makes the test fail, never pass.
func WaitFor(t testing.TB, timeout time.Duration, msg string, cond func() bool) {
	t.Helper()
	timeout = sysload.Scale(timeout)
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			if !cond() {
				t.Fatalf("after %v: %s", timeout, msg)
			}
			return
		case <-tick.C:
		}
	}
}

// WaitWindow waits until a top-level window in _NET_CLIENT_LIST whose
// _NET_WM_PID is pid is mapped, and returns its X window id; on a Wayland
// desktop, until sway's tree holds a window of pid, and returns its con_id. The desktop's
// X server is local and ours, so its replies are not given deadlines here.
func WaitWindow(t testing.TB, pid int, timeout time.Duration) uint32 {
	t.Helper()
	switch Desktop().Kind() {
	case headless.Wayland:
		return waitView(t, pid, timeout)
	case headless.KWin:
		waitKWinWindow(t, pid, timeout)
		return 0
	case headless.GNOME:
		waitGNOMEWindow(t, pid, timeout)
		return 0
	case headless.Phoc:
		waitToplevel(t, pid, timeout)
		return 0
	}
	// headless (through internal/xgbext) has already silenced xgb's logger.
	x, err := xgb.NewConnDisplay(Desktop().Display())
	if err != nil {
		t.Fatalf("testdesk: connect to X: %v", err)
	}
	defer x.Close()
	root := xproto.Setup(x).DefaultScreen(x).Root
	atom := func(name string) xproto.Atom {
		r, err := xproto.InternAtom(x, false, uint16(len(name)), name).Reply()
		if err != nil {
			t.Fatalf("testdesk: intern %s: %v", name, err)
		}
		return r.Atom
	}
	clientList, wmPid := atom("_NET_CLIENT_LIST"), atom("_NET_WM_PID")
	var found uint32
	WaitFor(t, timeout, fmt.Sprintf("no mapped window of pid %d in _NET_CLIENT_LIST", pid), func() bool {
		list, err := xproto.GetProperty(x, false, root, clientList, xproto.AtomWindow, 0, 4096).Reply()
		if err != nil || list.Format != 32 {
			return false
		}
		for i := 0; i+4 <= len(list.Value); i += 4 {
			w := xproto.Window(xgb.Get32(list.Value[i:]))
			p, err := xproto.GetProperty(x, false, w, wmPid, xproto.AtomCardinal, 0, 1).Reply()
			if err != nil || len(p.Value) < 4 || int(xgb.Get32(p.Value)) != pid {
				continue
			}
			a, err := xproto.GetWindowAttributes(x, w).Reply()
			if err == nil && a.MapState == xproto.MapStateViewable {
				found = uint32(w)
				return true
			}
		}
		return false
	})
	return found
}

// WaitAccessible waits until an application of process pid is registered
// on the AT-SPI registry and has at least one child (its frame).
func WaitAccessible(t testing.TB, pid int, timeout time.Duration) {
	t.Helper()
	waitFrameNames(t, pid, timeout)
}

// waitFrameNames waits until an application of process pid is registered on the AT-SPI
// registry with at least one child, and returns its children's names (its windows' titles).
func waitFrameNames(t testing.TB, pid int, timeout time.Duration) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	a11y, err := dbus.Connect(Desktop().A11yAddress(), dbus.WithContext(ctx))
	if err != nil {
		t.Fatalf("testdesk: a11y bus: %v", err)
	}
	defer a11y.Close()
	type ref struct {
		Name string
		Path dbus.ObjectPath
	}
	var names []string
	WaitFor(t, timeout, fmt.Sprintf("pid %d has no accessible application with a child", pid), func() bool {
		// Each round is bounded: an app that is still starting may not answer yet.
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		var apps []ref
		err := a11y.Object("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root").
			CallWithContext(cctx, "org.a11y.atspi.Accessible.GetChildren", 0).Store(&apps)
		if err != nil {
			return false
		}
		for _, app := range apps {
			var p uint32
			err := a11y.BusObject().CallWithContext(cctx, "org.freedesktop.DBus.GetConnectionUnixProcessID", 0, app.Name).Store(&p)
			if err != nil || int(p) != pid {
				continue
			}
			var frames []ref
			err = a11y.Object(app.Name, app.Path).CallWithContext(cctx, "org.a11y.atspi.Accessible.GetChildren", 0).Store(&frames)
			if err != nil || len(frames) == 0 {
				continue
			}
			names = names[:0]
			for _, f := range frames {
				var n dbus.Variant
				err := a11y.Object(f.Name, f.Path).CallWithContext(cctx, "org.freedesktop.DBus.Properties.Get", 0,
					"org.a11y.atspi.Accessible", "Name").Store(&n)
				if name, ok := n.Value().(string); err == nil && ok {
					names = append(names, name)
				}
			}
			return true
		}
		return false
	})
	return names
}

// waitToplevel waits until a wlroots compositor lists, through wlr-foreign-toplevel, a window
// titled as one of pid's accessible frames: the protocol tells no pid, and the backend finds a
// window's owner by that title.
func waitToplevel(t testing.TB, pid int, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	names := waitFrameNames(t, pid, timeout)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	wl, err := wlclient.Dial(ctx, Desktop().WaylandSocket())
	if err != nil {
		t.Fatalf("testdesk: wayland: %v", err)
	}
	defer wl.Close()
	WaitFor(t, time.Until(deadline), fmt.Sprintf("no toplevel titled as pid %d's frames %q", pid, names), func() bool {
		tops, err := wl.Toplevels(ctx)
		return err == nil && slices.ContainsFunc(tops, func(tl wlclient.Toplevel) bool { return slices.Contains(names, tl.Title) })
	})
}

// waitKWinWindow waits until KWin lists a window of pid. KWin names windows by UUID; their
// handles are given by the backend's connection, so there is none to return.
func waitKWinWindow(t testing.TB, pid int, timeout time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	k, err := kwin.Dial(ctx, Desktop().DBusAddress())
	if err != nil {
		t.Fatalf("testdesk: KWin: %v", err)
	}
	defer k.Close()
	WaitFor(t, timeout, fmt.Sprintf("no window of pid %d in KWin", pid), func() bool {
		ws, err := k.Windows(ctx)
		return err == nil && slices.ContainsFunc(ws, func(w kwin.Window) bool { return w.PID == pid && w.Frame.Width > 0 })
	})
}

// waitGNOMEWindow waits until GNOME Shell (through mcec's extension) lists a window of pid.
func waitGNOMEWindow(t testing.TB, pid int, timeout time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	g, err := gnome.Dial(ctx, Desktop().DBusAddress())
	if err != nil {
		t.Fatalf("testdesk: GNOME Shell: %v", err)
	}
	defer g.Close()
	WaitFor(t, timeout, fmt.Sprintf("no window of pid %d in GNOME Shell", pid), func() bool {
		ws, err := g.Windows(ctx)
		return err == nil && slices.ContainsFunc(ws, func(w gnome.Window) bool { return w.PID == pid && w.Frame.Width > 0 })
	})
}

// waitView waits until sway's tree holds an application window of pid and returns its con_id.
func waitView(t testing.TB, pid int, timeout time.Duration) uint32 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	ipc, err := swayipc.Dial(ctx, Desktop().SwaySocket())
	if err != nil {
		t.Fatalf("testdesk: sway IPC: %v", err)
	}
	defer ipc.Close()
	var found uint32
	WaitFor(t, timeout, fmt.Sprintf("no window of pid %d in sway's tree", pid), func() bool {
		tree, err := ipc.Tree(ctx)
		if err != nil {
			return false
		}
		for _, v := range tree.Views() {
			if v.Node.PID == pid && v.Node.Rect.Width > 0 {
				found = uint32(v.Node.ID)
				return true
			}
		}
		return false
	})
	return found
}
