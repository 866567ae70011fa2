package headless

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

func TestMain(m *testing.M) {
	if miss := MissingPrograms(); len(miss) > 0 {
		fmt.Fprintf(os.Stderr, "headless tests need: %v\n", miss)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// testLogger sends desktop logs to the test log, which shows them on failure.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func startDesktop(t *testing.T, opts Options) *Desktop {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	began := time.Now()
	d, err := Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("desktop %s up in %v", d.Display(), time.Since(began).Round(time.Millisecond))
	t.Cleanup(func() {
		if err := d.Stop(); err != nil {
			t.Error(err)
		}
	})
	return d
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	state, _, ok := procStat(pid)
	return ok && state != 'Z' && state != 'X'
}

// waitUntil polls cond every 10 ms until it holds or timeout passes.
func waitUntil(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := poll(ctx, 10*time.Millisecond, func() (bool, error) { return cond(), nil }); err != nil {
		t.Fatalf("%s: not true after %v", what, timeout)
	}
}

func TestStartStopLeavesNothing(t *testing.T) {
	d := startDesktop(t, Options{})
	pids := d.PIDs()
	if len(pids) != 4 {
		t.Fatalf("PIDs = %v, want Xvfb, dbus-daemon, launcher, openbox", pids)
	}
	pgids := map[int]bool{}
	for _, p := range pids {
		pgids[p] = true
	}
	// The launcher's a11y bus and the registryd it activates live in its group.
	members := groupMembers(pgids)
	if len(members) < 6 {
		t.Errorf("group members %v: expected at least the a11y bus and registryd beyond %v", members, pids)
	}
	fi, err := os.Stat(d.dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("runtime dir %s: %v %v", d.dir, fi.Mode(), err)
	}
	lock := lockPath(d.displayNum)
	if b, err := os.ReadFile(lock); err != nil || strings.TrimSpace(string(b)) != fmt.Sprint(pids[0]) {
		t.Fatalf("X lock %s = %q, %v; want Xvfb's pid %d", lock, b, err, pids[0])
	}

	began := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() { errs[i] = d.Stop() })
	}
	wg.Wait()
	t.Logf("stopped in %v", time.Since(began).Round(time.Millisecond))
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("pid %d: kill 0 = %v, want ESRCH", pid, err)
		}
	}
	for _, pid := range members {
		if alive(pid) {
			t.Errorf("pid %d still alive", pid)
		}
	}
	for _, p := range []string{d.dir, lock, fmt.Sprintf("/tmp/.X11-unix/X%d", d.displayNum)} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there (%v)", p, err)
		}
	}
}

// TestDisplayTakenDetected checks the retry trigger against the real Xvfb:
// a second server on a number that is in use must be recognised.
func TestDisplayTakenDetected(t *testing.T) {
	d := startDesktop(t, Options{NoWindowManager: true})
	xvfb, err := lookProgram("Xvfb")
	if err != nil {
		t.Fatal(err)
	}
	c, err := spawn(slog.New(slog.DiscardHandler), "Xvfb", []string{xvfb, d.Display(), "-displayfd", "1", "-nolisten", "tcp"}, os.Environ(), nil, syscall.SIGKILL, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stopChildren([]*child{c}) })
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	select {
	case <-c.done:
	case <-timer.C:
		t.Fatal("second Xvfb on the same display did not exit")
	}
	if tail := c.tail(); !displayTaken(tail) {
		t.Fatalf("not recognised as taken: %q", tail)
	}
}

func TestStopAfterXvfbKilled(t *testing.T) {
	d := startDesktop(t, Options{NoWindowManager: true})
	// SIGKILL leaves Xvfb's lock and socket: Stop removes them because they are ours.
	d.xvfb.signal(syscall.SIGKILL)
	<-d.xvfb.done
	lock := fmt.Sprintf("/tmp/.X%d-lock", d.displayNum)
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("expected a stale lock: %v", err)
	}
	if err := d.Stop(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(lock); err == nil && strings.TrimSpace(string(b)) == fmt.Sprint(d.xvfb.pid) {
		t.Errorf("our lock %s is still there", lock)
	}
	// Another -displayfd server (a parallel test package) may have taken the
	// number meanwhile: then the socket is its, and must be left alone.
	sock := fmt.Sprintf("/tmp/.X11-unix/X%d", d.displayNum)
	if _, err := os.Stat(sock); err == nil {
		if c, err := net.Dial("unix", sock); err != nil {
			t.Errorf("stale socket %s left: %v", sock, err)
		} else {
			c.Close()
			t.Logf("%s now belongs to another server", sock)
		}
	}
}

func TestConcurrentDesktops(t *testing.T) {
	var (
		wg sync.WaitGroup
		ds [2]*Desktop
	)
	for i := range ds {
		wg.Go(func() { ds[i] = startDesktopNoFatal(t) })
	}
	wg.Wait()
	if ds[0] == nil || ds[1] == nil {
		t.FailNow()
	}
	if ds[0].Display() == ds[1].Display() {
		t.Fatalf("both desktops on %s", ds[0].Display())
	}
	if ds[0].DBusAddress() == ds[1].DBusAddress() || ds[0].A11yAddress() == ds[1].A11yAddress() {
		t.Fatalf("buses shared: %q %q", ds[0].A11yAddress(), ds[1].A11yAddress())
	}
}

func startDesktopNoFatal(t *testing.T) *Desktop {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	d, err := Start(ctx, Options{Logger: testLogger(t)})
	if err != nil {
		t.Error(err)
		return nil
	}
	t.Cleanup(func() {
		if err := d.Stop(); err != nil {
			t.Error(err)
		}
	})
	return d
}

func envMap(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if _, dup := m[k]; dup {
			m[k+" (duplicate)"] = v
		}
		m[k] = v
	}
	return m
}

func TestEnv(t *testing.T) {
	t.Setenv("NO_AT_BRIDGE", "1")
	t.Setenv("AT_SPI_BUS_ADDRESS", "unix:path=/nonexistent")
	t.Setenv("WAYLAND_DISPLAY", "wayland-0")
	t.Setenv("DISPLAY", ":9999")
	t.Setenv("MCEC_TEST_KEEP", "kept")
	d := startDesktop(t, Options{NoWindowManager: true})
	env := envMap(d.Env())
	for k, v := range env {
		if strings.HasSuffix(k, " (duplicate)") {
			t.Errorf("%s=%s", k, v)
		}
	}
	want := map[string]string{
		"DISPLAY":                          d.Display(),
		"DBUS_SESSION_BUS_ADDRESS":         d.DBusAddress(),
		"XDG_RUNTIME_DIR":                  d.RuntimeDir(),
		"TMPDIR":                           filepath.Join(d.RuntimeDir(), "tmp"),
		"GDK_BACKEND":                      "x11",
		"GSETTINGS_BACKEND":                "memory",
		"QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
		"QT_ACCESSIBILITY":                 "1",
		"GNOME_ACCESSIBILITY":              "1",
		"ACCESSIBILITY_ENABLED":            "1",
		"MCEC_TEST_KEEP":                   "kept",
	}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	for _, k := range []string{"NO_AT_BRIDGE", "AT_SPI_BUS_ADDRESS", "WAYLAND_DISPLAY"} {
		if v, ok := env[k]; ok {
			t.Errorf("%s=%q should be removed", k, v)
		}
	}
	if fi, err := os.Stat(env["TMPDIR"]); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("TMPDIR %s: %v %v, want a private folder", env["TMPDIR"], fi, err)
	}
	if !strings.HasPrefix(d.DBusAddress(), "unix:path="+d.RuntimeDir()+"/bus") {
		t.Errorf("bus %q is not at $XDG_RUNTIME_DIR/bus", d.DBusAddress())
	}
	// Env returns a copy.
	e := d.Env()
	e[0] = "X=y"
	if d.Env()[0] == "X=y" {
		t.Error("Env shares its slice")
	}
}

// a11yConns connects to the desktop's session bus and AT-SPI bus.
func a11yConns(t *testing.T, ctx context.Context, d *Desktop) (session, a11y *dbus.Conn) {
	t.Helper()
	session, err := dbus.Connect(d.DBusAddress(), dbus.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	var addr string
	if err := session.Object("org.a11y.Bus", "/org/a11y/bus").CallWithContext(ctx, "org.a11y.Bus.GetAddress", 0).Store(&addr); err != nil {
		t.Fatal(err)
	}
	a11y, err = dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a11y.Close() })
	return session, a11y
}

func TestA11yStatus(t *testing.T) {
	d := startDesktop(t, Options{NoWindowManager: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	session, _ := a11yConns(t, ctx, d)
	for _, prop := range []string{"IsEnabled", "ScreenReaderEnabled"} {
		var v dbus.Variant
		err := session.Object("org.a11y.Bus", "/org/a11y/bus").CallWithContext(ctx,
			"org.freedesktop.DBus.Properties.Get", 0, "org.a11y.Status", prop).Store(&v)
		if err != nil {
			t.Fatal(err)
		}
		if on, _ := v.Value().(bool); !on {
			t.Errorf("%s = %v", prop, v)
		}
	}
	// With -noreset the launcher's AT_SPI_BUS root property survives; libatspi reads it first.
	x, err := xgb.NewConnDisplay(d.Display())
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	root := xproto.Setup(x).DefaultScreen(x).Root
	a, err := xproto.InternAtom(x, false, 10, "AT_SPI_BUS").Reply()
	if err != nil {
		t.Fatal(err)
	}
	p, err := xproto.GetProperty(x, false, root, a.Atom, xproto.AtomString, 0, 1024).Reply()
	if err != nil {
		t.Fatal(err)
	}
	if string(p.Value) != d.A11yAddress() {
		t.Errorf("AT_SPI_BUS root property = %q, want %q", p.Value, d.A11yAddress())
	}
}

// TestAutolaunchJoinsPrivateBus runs what libdbus and GLib run when an app
// has DISPLAY but no session bus address: it must find ours.
func TestAutolaunchJoinsPrivateBus(t *testing.T) {
	launch, err := exec.LookPath("dbus-launch")
	if err != nil {
		t.Skip("dbus-launch (dbus-x11) not installed")
	}
	if machineID() == "" {
		t.Skip("no machine id")
	}
	d := startDesktop(t, Options{NoWindowManager: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, launch, "--autolaunch="+machineID(), "--sh-syntax")
	cmd.Env = []string{"DISPLAY=" + d.Display(), "HOME=" + t.TempDir(), "XDG_RUNTIME_DIR=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dbus-launch: %v", err)
	}
	if !strings.Contains(string(out), "DBUS_SESSION_BUS_ADDRESS='"+d.DBusAddress()+"'") {
		// It autolaunched a new bus: do not leak it.
		for _, line := range strings.Split(string(out), "\n") {
			var pid int
			if _, err := fmt.Sscanf(line, "DBUS_SESSION_BUS_PID=%d;", &pid); err == nil && pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		t.Fatalf("dbus-launch --autolaunch did not find our bus %s:\n%s", d.DBusAddress(), out)
	}
}

func TestGTKAppRegisters(t *testing.T) {
	factory, err := exec.LookPath("gtk3-widget-factory")
	if err != nil {
		t.Skip("gtk3-widget-factory (gtk-3-examples) not installed")
	}
	d := startDesktop(t, Options{})
	cmd := exec.Command(factory)
	cmd.Env = d.Env()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	began := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("gtk3-widget-factory output:\n%s", out.String())
		}
	})

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_, a11y := a11yConns(t, ctx, d)
	registered := func() bool {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		var apps []struct {
			Name string
			Path dbus.ObjectPath
		}
		err := a11y.Object("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root").
			CallWithContext(cctx, "org.a11y.atspi.Accessible.GetChildren", 0).Store(&apps)
		if err != nil {
			return false
		}
		for _, app := range apps {
			var p uint32
			if a11y.BusObject().CallWithContext(cctx, "org.freedesktop.DBus.GetConnectionUnixProcessID", 0, app.Name).Store(&p) == nil && int(p) == pid {
				return true
			}
		}
		return false
	}
	waitUntil(t, 15*time.Second, "gtk3-widget-factory on the AT-SPI registry", registered)
	t.Logf("registered on AT-SPI after %v", time.Since(began).Round(time.Millisecond))

	x, err := xgb.NewConnDisplay(d.Display())
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	root := xproto.Setup(x).DefaultScreen(x).Root
	atom := func(name string) xproto.Atom {
		r, err := xproto.InternAtom(x, false, uint16(len(name)), name).Reply()
		if err != nil {
			t.Fatal(err)
		}
		return r.Atom
	}
	clientList, wmPid := atom("_NET_CLIENT_LIST"), atom("_NET_WM_PID")
	waitUntil(t, 15*time.Second, "window in _NET_CLIENT_LIST", func() bool {
		r, err := xproto.GetProperty(x, false, root, clientList, xproto.AtomWindow, 0, 1024).Reply()
		if err != nil || r.Format != 32 {
			return false
		}
		for i := 0; i+4 <= len(r.Value); i += 4 {
			w := xproto.Window(xgb.Get32(r.Value[i:]))
			p, err := xproto.GetProperty(x, false, w, wmPid, xproto.AtomCardinal, 0, 1).Reply()
			if err == nil && len(p.Value) >= 4 && int(xgb.Get32(p.Value)) == pid {
				return true
			}
		}
		return false
	})
	t.Logf("window managed after %v", time.Since(began).Round(time.Millisecond))
}

func TestRunExitCodeAndDisplay(t *testing.T) {
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code, err := Run(ctx, Options{NoWindowManager: true, Logger: testLogger(t)},
		[]string{"sh", "-c", `echo "display=$DISPLAY"; xdpyinfo >/dev/null 2>&1 || echo "no X" >&2; exit 3`},
		nil, &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if code != 3 {
		t.Errorf("exit code %d, want 3", code)
	}
	if !strings.HasPrefix(stdout.String(), "display=:") {
		t.Errorf("stdout %q", stdout.String())
	}
	if _, err := exec.LookPath("xdpyinfo"); err == nil && stderr.Len() > 0 {
		t.Errorf("stderr %q", stderr.String())
	}
}

func TestRunNotFound(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	code, err := Run(ctx, Options{NoWindowManager: true}, []string{"/nonexistent/mcec-test"}, nil, io.Discard, io.Discard)
	if err == nil || code != 127 {
		t.Fatalf("code %d err %v, want 127 and an error", code, err)
	}
}

func TestRunCancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	pr, pw := io.Pipe()
	go func() {
		// Cancel once the command runs.
		buf := make([]byte, 16)
		if _, err := pr.Read(buf); err == nil {
			cancel()
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	code, err := Run(ctx, Options{NoWindowManager: true}, []string{"sh", "-c", "echo ready; exec sleep 30"}, nil, pw, io.Discard)
	pw.Close()
	if err != nil {
		t.Fatal(err)
	}
	if code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit code %d, want %d", code, 128+int(syscall.SIGTERM))
	}
}

func TestRunForwardsSIGTERM(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	pr, pw := io.Pipe()
	go func() {
		buf := make([]byte, 16)
		if _, err := pr.Read(buf); err == nil {
			// Run has registered its handler before starting the command.
			_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	code, err := Run(ctx, Options{NoWindowManager: true},
		[]string{"sh", "-c", "trap 'exit 7' TERM; echo ready; while :; do sleep 0.05; done"}, nil, pw, io.Discard)
	pw.Close()
	if err != nil {
		t.Fatal(err)
	}
	if code != 7 {
		t.Errorf("exit code %d, want 7 (the trap's)", code)
	}
}

func TestStartCancelledCleansUp(t *testing.T) {
	for _, step := range []string{StepXvfb, StepSessionBus, StepWindowManager, StepA11yBus} {
		t.Run(step, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var d *Desktop
			opts := Options{Logger: testLogger(t), stepHook: func(dd *Desktop, s string) {
				d = dd
				if s == step {
					cancel()
				}
			}}
			_, err := Start(ctx, opts)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			var se *StartError
			if !errors.As(err, &se) {
				t.Fatalf("err %T is not a *StartError", err)
			}
			t.Logf("err: %v", err)
			checkGone(t, d)
		})
	}
}

func TestStartDeadline(t *testing.T) {
	// A deadline too short for anything: the error names the step.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	var d *Desktop
	_, err := Start(ctx, Options{stepHook: func(dd *Desktop, _ string) { d = dd }})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	t.Logf("err: %v", err)
	checkGone(t, d)
}

func checkGone(t *testing.T, d *Desktop) {
	t.Helper()
	for _, pid := range d.PIDs() {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("pid %d: kill 0 = %v, want ESRCH", pid, err)
		}
	}
	pgids := map[int]bool{}
	for _, pid := range d.PIDs() {
		pgids[pid] = true
	}
	if left := groupMembers(pgids); len(left) > 0 {
		t.Errorf("processes left: %v", left)
	}
	if d.dir != "" {
		if _, err := os.Stat(d.dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there (%v)", d.dir, err)
		}
	}
}

func TestStartErrorNamesStepAndStderr(t *testing.T) {
	// An impossible screen depth makes Xvfb exit at once.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Start(ctx, Options{Depth: 7})
	var se *StartError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v", err)
	}
	if se.Step != StepXvfb || len(se.Stderr) == 0 {
		t.Fatalf("step %q stderr %q", se.Step, se.Stderr)
	}
	t.Logf("err: %v", err)
}

func TestMissingPrograms(t *testing.T) {
	if m := MissingPrograms(); len(m) != 0 {
		t.Fatalf("missing on this machine: %v", m)
	}
	t.Setenv("PATH", t.TempDir())
	var got []string
	for _, m := range MissingPrograms() {
		got = append(got, m.Program+"/"+m.DebianPackage)
	}
	for _, want := range []string{"Xvfb/xvfb", "dbus-daemon/dbus", "openbox/openbox"} {
		if !slices.Contains(got, want) {
			t.Errorf("MissingPrograms() = %v, want %s in it", got, want)
		}
	}
}

func TestDesktopEnvPure(t *testing.T) {
	env := desktopEnv([]string{"A=1", "DISPLAY=:0", "NO_AT_BRIDGE=1", "GDK_BACKEND=wayland", "MCEC_TOKEN=secret"}, ":5", "unix:path=/r/bus", "/r")
	m := envMap(env)
	if m["A"] != "1" || m["DISPLAY"] != ":5" || m["GDK_BACKEND"] != "x11" || m["XDG_RUNTIME_DIR"] != "/r" {
		t.Errorf("env %v", env)
	}
	if _, ok := m["NO_AT_BRIDGE"]; ok {
		t.Error("NO_AT_BRIDGE kept")
	}
	if _, ok := m["MCEC_TOKEN"]; ok {
		t.Error("MCEC_TOKEN passed on to the desktop's programs")
	}
	if got := dbusEscape("/tmp/a b,c=d"); got != "/tmp/a%20b%2cc%3dd" {
		t.Errorf("dbusEscape = %q", got)
	}
}

func TestWindowManagerFailureReported(t *testing.T) {
	fake := t.TempDir()
	script := "#!/bin/sh\necho 'openbox: cannot do this' >&2\nexit 2\n"
	if err := os.WriteFile(fake+"/openbox", []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", fake+":"+os.Getenv("PATH"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var d *Desktop
	_, err := Start(ctx, Options{stepHook: func(dd *Desktop, _ string) { d = dd }})
	var se *StartError
	if !errors.As(err, &se) || se.Step != StepWindowManager || !slices.Contains(se.Stderr, "openbox: cannot do this") {
		t.Fatalf("err = %#v", err)
	}
	if !strings.Contains(err.Error(), "exit status 2") {
		t.Errorf("no exit status in %q", err)
	}
	t.Logf("err: %v", err)
	checkGone(t, d)
}

// Check passes on a started desktop and fails, naming it, once a process of the desktop dies.
func TestCheck(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Stop()
	if err := d.Check(ctx); err != nil {
		t.Fatalf("Check on a fresh desktop: %v", err)
	}
	var wm *child
	for _, c := range d.procs {
		if c.name == "openbox" {
			wm = c
		}
	}
	if wm == nil {
		t.Fatal("no openbox among the desktop's processes")
	}
	wm.signal(syscall.SIGKILL)
	deadline := time.Now().Add(10 * time.Second)
	for !wm.exited() {
		if time.Now().After(deadline) {
			t.Fatal("openbox did not exit on SIGKILL")
		}
		time.Sleep(10 * time.Millisecond) // polling the reaper, under a deadline
	}
	if err := d.Check(ctx); err == nil || !strings.Contains(err.Error(), "openbox") {
		t.Fatalf("Check after openbox died: %v, want an error naming openbox", err)
	}
}
