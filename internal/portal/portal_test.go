package portal

import (
	"bufio"
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// privateBus starts a dbus-daemon of the test's own and returns its address; it is stopped by
// PID when the test ends.
func privateBus(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--nopidfile", "--nosyslog", "--print-address=1",
		"--address=unix:dir="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("dbus-daemon: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(line)
}

// fakePortal answers RemoteDesktop's calls on a bus as the portal would: each request's result
// as its Response signal, on the path the caller's token names.
type fakePortal struct {
	conn *dbus.Conn
	// start is Start's answer: its response code and the devices allowed; silent sends none.
	startCode    uint32
	startDevices uint32
	silent       bool

	mu       sync.Mutex
	keys     []string // "sym:down" as notified
	closed   []dbus.ObjectPath
	sessions []dbus.ObjectPath
}

func (f *fakePortal) respond(sender dbus.Sender, opts map[string]dbus.Variant, code uint32, res map[string]dbus.Variant) dbus.ObjectPath {
	tok, _ := opts["handle_token"].Value().(string)
	path := dbus.ObjectPath(objectPath + "/request/" + strings.ReplaceAll(strings.TrimPrefix(string(sender), ":"), ".", "_") + "/" + tok)
	if res != nil {
		f.conn.Emit(path, requestIface+".Response", code, res)
	}
	return path
}

func (f *fakePortal) CreateSession(sender dbus.Sender, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	tok, _ := opts["session_handle_token"].Value().(string)
	session := dbus.ObjectPath(objectPath + "/session/" + strings.ReplaceAll(strings.TrimPrefix(string(sender), ":"), ".", "_") + "/" + tok)
	f.mu.Lock()
	f.sessions = append(f.sessions, session)
	f.mu.Unlock()
	f.conn.Export(sessionObject{f, session}, session, sessionIface)
	return f.respond(sender, opts, 0, map[string]dbus.Variant{"session_handle": dbus.MakeVariant(string(session))}), nil
}

func (f *fakePortal) SelectDevices(sender dbus.Sender, _ dbus.ObjectPath, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	return f.respond(sender, opts, 0, map[string]dbus.Variant{}), nil
}

func (f *fakePortal) Start(sender dbus.Sender, _ dbus.ObjectPath, _ string, opts map[string]dbus.Variant) (dbus.ObjectPath, *dbus.Error) {
	f.mu.Lock()
	silent, code, devices := f.silent, f.startCode, f.startDevices
	f.mu.Unlock()
	if silent {
		path := f.respond(sender, opts, 0, nil)
		f.conn.Export(requestObject{f, path}, path, requestIface)
		return path, nil
	}
	return f.respond(sender, opts, code, map[string]dbus.Variant{"devices": dbus.MakeVariant(devices)}), nil
}

func (f *fakePortal) NotifyKeyboardKeysym(_ dbus.ObjectPath, _ map[string]dbus.Variant, sym int32, state uint32) *dbus.Error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys = append(f.keys, strings.Join([]string{string(rune(sym)), map[uint32]string{0: "up", 1: "down"}[state]}, ":"))
	return nil
}

// Get answers org.freedesktop.DBus.Properties.Get for the interface's version.
type properties struct{}

func (properties) Get(iface, name string) (dbus.Variant, *dbus.Error) {
	if iface == remoteIface && name == "version" {
		return dbus.MakeVariant(uint32(1)), nil
	}
	return dbus.Variant{}, dbus.MakeFailedError(errors.New("no such property"))
}

type sessionObject struct {
	f    *fakePortal
	path dbus.ObjectPath
}

func (s sessionObject) Close() *dbus.Error {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.f.closed = append(s.f.closed, s.path)
	return nil
}

type requestObject struct {
	f    *fakePortal
	path dbus.ObjectPath
}

func (r requestObject) Close() *dbus.Error {
	r.f.mu.Lock()
	defer r.f.mu.Unlock()
	r.f.closed = append(r.f.closed, r.path)
	return nil
}

// serve puts f on the bus at address as the portal.
func serve(t *testing.T, address string, f *fakePortal) {
	t.Helper()
	conn, err := dbus.Connect(address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	f.conn = conn
	if err := conn.Export(f, objectPath, remoteIface); err != nil {
		t.Fatal(err)
	}
	if err := conn.Export(properties{}, objectPath, "org.freedesktop.DBus.Properties"); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName(busName, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("own %s: %v %v", busName, reply, err)
	}
}

func (f *fakePortal) snapshot() (keys []string, closed []dbus.ObjectPath) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.keys...), append([]dbus.ObjectPath(nil), f.closed...)
}

// waitFor polls cond until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSession(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	bus := privateBus(t)
	f := &fakePortal{startDevices: uint32(Keyboard | Pointer)}
	serve(t, bus, f)
	s, err := Start(ctx, bus, Keyboard)
	if err != nil {
		t.Fatal(err)
	}
	if s.Devices()&Keyboard == 0 {
		t.Errorf("devices %d", s.Devices())
	}
	if err := s.Keysym(ctx, 'a', true); err != nil {
		t.Fatal(err)
	}
	if err := s.Keysym(ctx, 'a', false); err != nil {
		t.Fatal(err)
	}
	if keys, _ := f.snapshot(); strings.Join(keys, " ") != "a:down a:up" {
		t.Errorf("keys %v", keys)
	}
	// The portal ends the session (the user stopped it): Closed closes, and keys fail.
	f.conn.Emit(s.handle, sessionIface+".Closed", map[string]dbus.Variant{})
	select {
	case <-s.Closed():
	case <-time.After(5 * time.Second):
		t.Fatal("Closed did not close after the portal's Closed signal")
	}
	if err := s.Keysym(ctx, 'b', true); !errors.Is(err, ErrClosed) {
		t.Errorf("Keysym on a closed session: %v", err)
	}
	// Close does not wait on anything, also twice.
	done := make(chan struct{})
	go func() { s.Close(); s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hangs")
	}
}

func TestStartRefused(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	bus := privateBus(t)
	f := &fakePortal{startCode: 1}
	serve(t, bus, f)
	if _, err := Start(ctx, bus, Keyboard); !errors.Is(err, ErrDenied) {
		t.Errorf("a cancelled dialog: %v, want ErrDenied", err)
	}
	f.mu.Lock()
	f.startCode, f.startDevices = 0, uint32(Pointer)
	f.mu.Unlock()
	if _, err := Start(ctx, bus, Keyboard); !errors.Is(err, ErrDenied) {
		t.Errorf("a dialog answered without the keyboard: %v, want ErrDenied", err)
	}
	waitFor(t, 5*time.Second, "the refused sessions were not closed", func() bool {
		_, closed := f.snapshot()
		return len(closed) == 2
	})
}

func TestStartUnanswered(t *testing.T) {
	bus := privateBus(t)
	f := &fakePortal{silent: true}
	serve(t, bus, f)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if _, err := Start(ctx, bus, Keyboard); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("an unanswered dialog: %v, want DeadlineExceeded", err)
	}
	// The dialog's request and the session are closed, so no dialog stays on screen.
	waitFor(t, 5*time.Second, "the unanswered request and its session were not closed", func() bool {
		_, closed := f.snapshot()
		return len(closed) == 2
	})
}

func TestNoPortal(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	bus := privateBus(t)
	if _, err := Start(ctx, bus, Keyboard); !errors.Is(err, ErrUnavailable) {
		t.Errorf("a bus without the portal: %v, want ErrUnavailable", err)
	}
	if _, err := Probe(ctx, bus); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Probe on a bus without the portal: %v, want ErrUnavailable", err)
	}
}
