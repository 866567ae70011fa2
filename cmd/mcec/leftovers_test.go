package main_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/testdesk"
)

// Issue 17 row 7: mcec killed outright, or dying of a broken stderr, leaves nothing of its
// private desktop behind: no process, no mcec-desk-* folder.

// leftoverServer is a running `mcec serve --headless` whose temporary directory is the test's,
// so its desktop folder is found there and nothing real is looked at.
type leftoverServer struct {
	cmd    *exec.Cmd
	stderr io.ReadCloser
	desk   string        // its mcec-desk-* folder
	pids   []int         // every process of its desktop
	waited chan struct{} // closed once reaped; err is Wait's result
	err    error
}

// startLeftoverServer starts mcec serve --headless with TMPDIR=tmp (and its runtime directory,
// where its token file goes, there too) and waits until it serves.
func startLeftoverServer(t *testing.T, tmp string) *leftoverServer {
	t.Helper()
	before, _ := filepath.Glob(filepath.Join(tmp, "mcec-desk-*"))
	cmd := mcecCmd(t, "serve", "--headless", "--port", "0")
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp, "XDG_RUNTIME_DIR="+tmp, "MCEC_LOG_LEVEL=info")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &leftoverServer{cmd: cmd, stderr: stderr, waited: make(chan struct{})}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if listening.MatchString(sc.Text()) {
				close(ready)
				break
			}
		}
		// Keep reading until the test closes the pipe, so the server never blocks on stderr.
		_, _ = io.Copy(io.Discard, stderr)
	}()
	go func() {
		s.err = cmd.Wait()
		close(s.waited)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL) // a no-op once it has exited
		<-s.waited
	})
	select {
	case <-ready:
	case <-s.waited:
		t.Fatalf("mcec serve exited before serving: %v", s.err)
	case <-time.After(30 * time.Second):
		t.Fatal("mcec serve did not start")
	}
	after, _ := filepath.Glob(filepath.Join(tmp, "mcec-desk-*"))
	for _, d := range after {
		if !slices.Contains(before, d) {
			s.desk = d
		}
	}
	if s.desk == "" {
		t.Fatalf("no new desktop folder in %s (%v)", tmp, after)
	}
	s.pids = testdesk.DesktopPIDs(cmd.Process.Pid, s.desk)
	return s
}

// waitUntil polls cond every 50 ms until it holds or d has passed.
func waitUntil(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		t := time.NewTimer(50 * time.Millisecond)
		<-t.C
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// shortTemp is a temporary directory short enough that mcec makes its desktop folder in it
// (longer TMPDIRs are bypassed for /tmp, see internal/headless makeRuntimeDir).
func shortTemp(t *testing.T) string {
	dir, err := os.MkdirTemp("", "mk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestKilledServerLeavesNothing(t *testing.T) {
	tmp := shortTemp(t)
	s := startLeftoverServer(t, tmp)
	if len(s.pids) < 4 {
		t.Fatalf("desktop processes %v: want at least Xvfb, dbus-daemon, the a11y bus and openbox", s.pids)
	}
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-s.waited
	if !waitUntil(15*time.Second, func() bool { return len(testdesk.Running(s.pids)) == 0 && !exists(s.desk) }) {
		t.Fatalf("15 s after kill -9: still running %v of %v; desktop folder left: %v", testdesk.Running(s.pids), s.pids, exists(s.desk))
	}
}

func TestNextStartSweepsLeftovers(t *testing.T) {
	tmp := shortTemp(t)
	s := startLeftoverServer(t, tmp)
	// Its watchdog (a shell child of mcec) dies too, as under `kill -9 -1` or the OOM killer:
	// only the next start can clean up.
	var watchdog int
	for _, p := range testdesk.ChildPIDs(s.cmd.Process.Pid) {
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p)); strings.TrimSpace(string(comm)) == "sh" {
			watchdog = p
		}
	}
	if watchdog == 0 {
		t.Fatal("no watchdog among mcec's children")
	}
	if err := syscall.Kill(watchdog, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-s.waited
	// The parent-death signals end mcec's own children; what they forked stays.
	waitUntil(5*time.Second, func() bool { return len(testdesk.Running(testdesk.ChildPIDs(s.cmd.Process.Pid))) == 0 })
	left := testdesk.Running(s.pids)
	if !exists(s.desk) {
		t.Fatal("the desktop folder went without a watchdog: the test no longer shows the sweep")
	}
	t.Logf("left behind by kill -9 without a watchdog: %v and %s", left, s.desk)
	tokens := func() []string {
		m, _ := filepath.Glob(filepath.Join(tmp, "mcec", "token-*"))
		return m
	}
	stale := tokens()
	if len(stale) != 1 {
		t.Fatalf("token files after kill -9: %v, want the killed server's", stale)
	}

	next := startLeftoverServer(t, tmp)
	if exists(s.desk) {
		t.Errorf("the next start left %s", s.desk)
	}
	// Its token file too (the next server publishes its own under another port).
	if exists(stale[0]) {
		t.Errorf("the next start left the killed server's token file %s", stale[0])
	}
	if r := testdesk.Running(left); len(r) > 0 {
		t.Errorf("the next start left %v running", r)
	}
	if err := next.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-next.waited
	if !waitUntil(10*time.Second, func() bool { return len(testdesk.Running(next.pids)) == 0 && !exists(next.desk) }) {
		t.Errorf("after SIGTERM: still running %v; folder left: %v", testdesk.Running(next.pids), exists(next.desk))
	}
}

// A server whose stderr reader went away (its MCP client died) still shuts down cleanly
// instead of dying of SIGPIPE at its next log line.
func TestBrokenStderrIsNotFatal(t *testing.T) {
	tmp := shortTemp(t)
	s := startLeftoverServer(t, tmp)
	s.stderr.Close()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case <-s.waited:
		err = s.err
	case <-time.After(20 * time.Second):
		t.Fatal("mcec serve did not stop on SIGTERM")
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("mcec died of %v instead of shutting down", ws.Signal())
		}
	}
	if r := testdesk.Running(s.pids); len(r) > 0 || exists(s.desk) {
		t.Fatalf("after the shutdown: still running %v; folder left: %v", r, exists(s.desk))
	}
}
