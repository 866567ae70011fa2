package provision

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// newTestManager is a manager over a temporary instances directory. The binary is never
// started by these tests.
func newTestManager(t *testing.T, isInstance func(int, string) bool) *Manager {
	t.Helper()
	m, err := NewManager(Options{Binary: "/nonexistent/mcec", Dir: filepath.Join(t.TempDir(), "instances"),
		Grace: 5 * time.Second, IsInstance: isInstance})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// startSleeper starts `sleep 300` in its own process group, with extra environment, and
// stops it by PID at the end of the test. exited closes once it has been reaped.
func startSleeper(t *testing.T, env ...string) (pid int, exited <-chan struct{}) {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
		<-done
	})
	return cmd.Process.Pid, done
}

// plant writes an instance record as a crashed server would have left it.
func plant(t *testing.T, m *Manager, rec record) string {
	t.Helper()
	dir := filepath.Join(m.Dir(), rec.ID)
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := writeRecord(dir, rec); err != nil {
		t.Fatal(err)
	}
	return dir
}

func waitClosed(t *testing.T, c <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: still running", what)
	}
}

func gone(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, os.ErrNotExist)
}

// TestReap: an instance record older than the limit whose pid is still the instance (its
// environment carries the mark) is stopped and removed; a young one is kept; a record whose
// pid now belongs to another program is removed without killing that program.
func TestReap(t *testing.T) {
	m := newTestManager(t, nil) // the real check: /proc/PID/environ
	oldID, youngID, reusedID := "inst-00000000000000a1", "inst-00000000000000a2", "inst-00000000000000a3"
	oldPID, oldExited := startSleeper(t, EnvInstance+"="+oldID)
	youngPID, youngExited := startSleeper(t, EnvInstance+"="+youngID)
	otherPID, otherExited := startSleeper(t) // a pid reused by a program that is no instance
	parent := os.Getppid()                   // alive: these are not orphans
	oldDir := plant(t, m, record{ID: oldID, PID: oldPID, Started: time.Now().Add(-13 * time.Hour), TokenHash: hashToken("x"), ParentPID: parent})
	youngDir := plant(t, m, record{ID: youngID, PID: youngPID, Started: time.Now(), TokenHash: hashToken("y"), ParentPID: parent})
	reusedDir := plant(t, m, record{ID: reusedID, PID: otherPID, Started: time.Now().Add(-13 * time.Hour), TokenHash: hashToken("z"), ParentPID: parent})

	if !isInstance(oldPID, oldID) || isInstance(otherPID, reusedID) || isInstance(oldPID, youngID) {
		t.Fatal("isInstance does not tell the marked process from others")
	}
	m.Reap(DefaultMaxAge)

	waitClosed(t, oldExited, "the old instance")
	if !gone(oldDir) {
		t.Error("the old instance's directory is still there")
	}
	select {
	case <-youngExited:
		t.Error("the young instance was killed")
	default:
	}
	if gone(youngDir) {
		t.Error("the young instance's directory was removed")
	}
	select {
	case <-otherExited:
		t.Error("a process that is not the recorded instance was killed")
	default:
	}
	if !gone(reusedDir) {
		t.Error("the stale record of a reused pid is still there")
	}
}

// TestReapOrphan: an instance whose provisioning server is gone is reaped whatever its age.
func TestReapOrphan(t *testing.T) {
	m := newTestManager(t, nil)
	id := "inst-00000000000000b1"
	pid, exited := startSleeper(t, EnvInstance+"="+id)
	// A parent that has exited and been reaped.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	dir := plant(t, m, record{ID: id, PID: pid, Started: time.Now(), TokenHash: hashToken("x"), ParentPID: dead.Process.Pid})
	m.Reap(DefaultMaxAge)
	waitClosed(t, exited, "the orphaned instance")
	if !gone(dir) {
		t.Error("the orphan's directory is still there")
	}
}

// TestEndForeign: End finds a record left by another server, checks the token against its
// hash, stops the instance and is idempotent afterwards.
func TestEndForeign(t *testing.T) {
	m := newTestManager(t, nil)
	id, token := "inst-00000000000000c1", randomHex(16)
	pid, exited := startSleeper(t, EnvInstance+"="+id)
	dir := plant(t, m, record{ID: id, PID: pid, Started: time.Now(), TokenHash: hashToken(token), ParentPID: os.Getppid()})

	if _, err := m.End(id, strings.Repeat("0", 32)); !errors.Is(err, ErrTokenInvalid) {
		t.Fatalf("End with a wrong token: %v, want ErrTokenInvalid", err)
	}
	res, err := m.End(id, token)
	if err != nil || !res.Ended {
		t.Fatalf("End = %+v, %v", res, err)
	}
	waitClosed(t, exited, "the ended instance")
	if !gone(dir) {
		t.Error("the directory is still there")
	}
	res, err = m.End(id, token)
	if err != nil || res.Ended || !res.AlreadyGone {
		t.Fatalf("second End = %+v, %v; want alreadyGone", res, err)
	}
}

func TestEndArguments(t *testing.T) {
	m := newTestManager(t, func(int, string) bool { return false })
	for _, id := range []string{"", "../etc", "inst-../../x", "default", "inst-0123"} {
		if _, err := m.End(id, "t"); !errors.Is(err, ErrBadID) {
			t.Errorf("End(%q): %v, want ErrBadID", id, err)
		}
	}
	if res, err := m.End("inst-0123456789abcdef", "t"); err != nil || !res.AlreadyGone {
		t.Errorf("End of an unknown instance = %+v, %v; want alreadyGone", res, err)
	}
}

func TestTokenMatches(t *testing.T) {
	tok := randomHex(16)
	if len(tok) != 32 || strings.Trim(tok, "0123456789abcdef") != "" {
		t.Fatalf("token %q is not 32 hex digits", tok)
	}
	for _, c := range []struct {
		stored, token string
		want          bool
	}{
		{hashToken(tok), tok, true},
		{hashToken(tok), tok + "x", false},
		{hashToken(tok), "", false},
		{"", tok, false},
		{"zz", tok, false},
	} {
		if got := tokenMatches(c.stored, c.token); got != c.want {
			t.Errorf("tokenMatches(%q, %q) = %v", c.stored, c.token, got)
		}
	}
}

func TestChildEnv(t *testing.T) {
	env := childEnv([]string{"PATH=/bin", "DISPLAY=:0", "DBUS_SESSION_BUS_ADDRESS=x", "MCEC_PROVISIONING=true",
		"MCEC_TOKEN=parent", "MCEC_ALLOW_ALL=1", "HOME=/root"}, "inst-0123456789abcdef", "tok")
	want := []string{"PATH=/bin", "HOME=/root", EnvInstance + "=inst-0123456789abcdef", "MCEC_TOKEN=tok", "MCEC_HTTP=true"}
	if strings.Join(env, " ") != strings.Join(want, " ") {
		t.Errorf("childEnv = %q, want %q", env, want)
	}
}

// TestReadReady: the readiness line, an early exit (EOF), a malformed line and the deadline.
func TestReadReady(t *testing.T) {
	for _, c := range []struct {
		name, write string
		close       bool
		want        int
		wantErr     string
	}{
		{"ok", "{\"port\":40123}\n", true, 40123, ""},
		{"eof", "", true, 0, "exited before it served"},
		{"malformed", "port 5\n", true, 0, "malformed"},
		{"with a console", "{\"port\":40123,\"consolePort\":40124,\"control\":\"/run/user/0/mcec/control-9-1.sock\"}\n", true, 40123, ""},
		{"a relative control socket", "{\"port\":40123,\"consolePort\":40124,\"control\":\"control.sock\"}\n", true, 0, "malformed"},
		{"a console port out of range", "{\"port\":40123,\"consolePort\":70000}\n", true, 0, "malformed"},
		{"deadline", "", false, 0, "deadline"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer w.Close()
			if _, err := w.WriteString(c.write); err != nil {
				t.Fatal(err)
			}
			if c.close {
				w.Close()
			}
			ready, err := readReady(context.Background(), r, time.Now().Add(200*time.Millisecond))
			port := ready.Port
			if port != c.want || (c.wantErr == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.wantErr)) {
				t.Errorf("readReady = %d, %v; want %d, %q", port, err, c.want, c.wantErr)
			}
		})
	}
}

// TestProvisionStartFailure: a binary that cannot start fails with ErrStart and leaves no
// directory behind.
func TestProvisionStartFailure(t *testing.T) {
	m := newTestManager(t, nil)
	_, err := m.Provision(context.Background())
	if !errors.Is(err, ErrStart) {
		t.Fatalf("Provision with a missing binary: %v, want ErrStart", err)
	}
	entries, _ := os.ReadDir(m.Dir())
	if len(entries) != 0 {
		t.Errorf("instances directory not empty after a failed start: %v", entries)
	}
}

func TestPrivateDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mcec", "instances")
	if err := privateDir(dir); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Dir(dir)} {
		info, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o700 {
			t.Errorf("%s mode %v, want 0700", d, info.Mode().Perm())
		}
	}
}

// TestStartSlots: with MaxStarting 1, a second instance does not start while the first has not
// reported readiness: it waits for a slot, and gives up when its context ends, never having run.
// The fake binary marks its start in the test's directory and reports readiness when the test
// writes to its FIFO.
func TestStartSlots(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake-mcec")
	script := `#!/bin/sh
echo started > "` + dir + `/started-$MCEC_INSTANCE"
read line < "` + dir + `/go"
echo '{"port":4242}' >&3
exec sleep 300
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "go"), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := NewManager(Options{Binary: fake, Dir: filepath.Join(dir, "instances"), MaxInstances: 2, MaxStarting: 1,
		Grace: 5 * time.Second, StartTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	started := func() int {
		matches, _ := filepath.Glob(filepath.Join(dir, "started-*"))
		return len(matches)
	}
	first := make(chan error, 1)
	go func() {
		_, err := m.Provision(context.Background())
		first <- err
	}()
	deadline := time.Now().Add(20 * time.Second)
	for started() < 1 {
		if time.Now().After(deadline) {
			t.Fatal("the first instance did not start")
		}
		time.Sleep(10 * time.Millisecond) // polling the marker file, under a deadline
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	_, err = m.Provision(ctx)
	cancel()
	if !errors.Is(err, ErrStart) || !strings.Contains(err.Error(), "start slot") {
		t.Errorf("second Provision while the first starts: %v, want ErrStart waiting for a start slot", err)
	}
	if n := started(); n != 1 {
		t.Errorf("%d instances ran with one start slot", n)
	}
	f, err := os.OpenFile(filepath.Join(dir, "go"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("go\n")
	f.Close()
	if err := <-first; err != nil {
		t.Fatal(err)
	}
}

// TestWarmPool: with Warm 1 the manager starts an instance before anyone asks; Provision hands
// it out (started before the call) and starts the next one; pooled instances count against
// MaxInstances; a pooled instance that died is not handed out; Close stops them all.
func TestWarmPool(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake-mcec")
	script := `#!/bin/sh
echo $$ > "` + dir + `/started-$MCEC_INSTANCE"
echo '{"port":4242}' >&3
exec sleep 300
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	m, err := NewManager(Options{Binary: fake, Dir: filepath.Join(dir, "instances"), MaxInstances: 2, Warm: 1,
		Grace: 5 * time.Second, StartTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			m.Close()
		}
	})
	pooled := func() int {
		m.mu.Lock()
		defer m.mu.Unlock()
		return len(m.pool)
	}
	waitPooled := func(n int) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for pooled() != n {
			if time.Now().After(deadline) {
				t.Fatalf("warm pool holds %d, want %d", pooled(), n)
			}
			time.Sleep(10 * time.Millisecond) // polling the pool, under a deadline
		}
	}
	waitPooled(1)
	asked := time.Now()
	a, err := m.Provision(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !a.Started.Before(asked) {
		t.Errorf("instance started at %v, after it was asked for at %v: not from the pool", a.Started, asked)
	}
	waitPooled(1) // refilled
	// The pooled one dies: it must not be handed out; a fresh one is started instead.
	m.mu.Lock()
	dead := m.pool[0]
	m.mu.Unlock()
	if err := syscall.Kill(dead.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	m.mu.Lock()
	r := m.live[dead.ID]
	m.mu.Unlock()
	waitClosed(t, r.done, "the killed pooled instance")
	b, err := m.Provision(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if b.ID == dead.ID || b.ID == a.ID {
		t.Errorf("handed out %s (dead %s, first %s)", b.ID, dead.ID, a.ID)
	}
	if _, err := m.Provision(context.Background()); !errors.Is(err, ErrLimit) {
		t.Errorf("third Provision with MaxInstances 2: %v, want ErrLimit", err)
	}
	if pooled() != 0 {
		t.Errorf("warm pool holds %d at the instance limit", pooled())
	}
	m.Close()
	closed = true
	for _, pid := range []int{a.PID, b.PID} {
		if processExists(pid) {
			if st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); !strings.Contains(string(st), ") Z ") {
				t.Errorf("instance pid %d still runs after Close", pid)
			}
		}
	}
}

// TestConsoleInstances: with Console, an instance is asked for a console and a control socket of
// its own (in its directory), its readiness report must name both, and List shows them, never
// the token; an instance that reports no console does not count as started.
func TestConsoleInstances(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake-mcec")
	// It reports what it was asked for: the socket path after --control-socket, port 4243 for
	// a console when --console is among its arguments.
	script := `#!/bin/sh
echo "$@" > "` + dir + `/args-$MCEC_INSTANCE"
sock=""; console=""
while [ $# -gt 0 ]; do
  case "$1" in
    --control-socket) sock="$2"; shift ;;
    --console) console=yes ;;
  esac
  shift
done
if [ -n "$console" ]; then
  echo "{\"port\":4242,\"consolePort\":4243,\"control\":\"$sock\"}" >&3
else
  echo '{"port":4242}' >&3
fi
exec sleep 300
`
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	start := func(console bool) (*Manager, Instance, error) {
		m, err := NewManager(Options{Binary: fake, Dir: filepath.Join(dir, "instances"), Console: console,
			Grace: 5 * time.Second, StartTimeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		inst, err := m.Provision(context.Background())
		return m, inst, err
	}
	m, inst, err := start(true)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(inst.Dir, "control.sock"); inst.Control != want || inst.ConsolePort != 4243 {
		t.Errorf("instance: control %q console port %d; want %q and 4243", inst.Control, inst.ConsolePort, want)
	}
	args, _ := os.ReadFile(filepath.Join(dir, "args-"+inst.ID))
	if !strings.Contains(string(args), "--console --console-port 0") {
		t.Errorf("started with %q: no --console --console-port 0", args)
	}
	list := m.List()
	if len(list) != 1 || list[0].ID != inst.ID || list[0].Control != inst.Control || list[0].ConsolePort != 4243 || list[0].Warm {
		t.Errorf("List = %+v", list)
	}
	if b, _ := json.Marshal(list); strings.Contains(string(b), inst.Token) {
		t.Errorf("List shows the token: %s", b)
	}

	// Without Console, the same report must not be required, and no console is asked for.
	_, plain, err := start(false)
	if err != nil {
		t.Fatal(err)
	}
	if plain.ConsolePort != 0 || plain.Control != "" {
		t.Errorf("an instance without a console: %+v", plain)
	}

	// Asked for a console, an instance whose report names none did not start right.
	silent := filepath.Join(dir, "silent-mcec")
	if err := os.WriteFile(silent, []byte("#!/bin/sh\necho '{\"port\":4242}' >&3\nexec sleep 300\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	fake = silent
	if _, _, err := start(true); !errors.Is(err, ErrStart) || !strings.Contains(err.Error(), "names no console") {
		t.Errorf("an instance that reports no console: %v, want ErrStart", err)
	}
}
