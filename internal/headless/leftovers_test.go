package headless

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The sweep removes desktops whose owner is gone, after stopping what still carries their mark,
// and leaves live owners', fresh and still-used ones alone. It runs on a root of the test's own.
func TestSweepLeftovers(t *testing.T) {
	root := t.TempDir()
	mk := func(name, owner string, age time.Duration) string {
		dir := filepath.Join(root, deskPrefix+name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(owner), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if age > 0 {
			old := time.Now().Add(-age)
			if err := os.Chtimes(dir, old, old); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	start, ok := procStart(os.Getpid())
	if !ok {
		t.Fatal("no start time for this process")
	}
	live := mk("live", fmt.Sprintf("%d %d\n", os.Getpid(), start), 0)
	// pid 1 runs, but not since tick 0: a reused pid is not the owner.
	dead := mk("dead", "1 0\n", 0)
	fresh := mk("fresh", "", 0)
	legacy := mk("legacy", "", 2*legacyAge)
	used := mk("used", "", 2*legacyAge)
	other := filepath.Join(root, "not-a-desk")
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}

	// A program of the dead owner's desktop, and one of the still-used legacy desktop.
	startMarked := func(dir string) (*exec.Cmd, chan struct{}) {
		cmd := exec.Command("sleep", "60")
		cmd.Env = []string{"XDG_RUNTIME_DIR=" + dir}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			_ = cmd.Wait()
			close(done)
		}()
		t.Cleanup(func() {
			select {
			case <-done:
			default:
				_ = cmd.Process.Kill() // by its pid, not yet reaped
				<-done
			}
		})
		return cmd, done
	}
	orphan, exited := startMarked(dead)
	keep, _ := startMarked(used)
	waitMarked := func(dir string, pid int) {
		deadline := time.Now().Add(5 * time.Second)
		for !slices.Contains(deskProcs()[string(deskMark(dir))], pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d never showed its mark", pid)
			}
			time.Sleep(10 * time.Millisecond) // the child is between fork and exec
		}
	}
	waitMarked(dead, orphan.Process.Pid)
	waitMarked(used, keep.Process.Pid)

	removed := sweepLeftovers([]string{root}, testLogger(t))
	slices.Sort(removed)
	if want := []string{dead, legacy}; !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	for _, d := range []string{live, fresh, used, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Error("the dead owner's program still runs")
	}
	if _, ok := procStart(keep.Process.Pid); !ok {
		t.Error("the program of a desktop in use was stopped")
	}
}

// The watchdog, once its owner's pipe closes, ends the processes carrying the desktop's mark
// (here one outside any watched group) and removes the folder.
func TestWatchdogEndsMarkedProcesses(t *testing.T) {
	dir := t.TempDir()
	desk := filepath.Join(dir, deskPrefix+"w")
	if err := os.Mkdir(desk, 0o700); err != nil {
		t.Fatal(err)
	}
	marked := exec.Command("sleep", "60")
	marked.Env = []string{"XDG_RUNTIME_DIR=" + desk}
	if err := marked.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = marked.Wait(); close(exited) }()
	t.Cleanup(func() { _ = marked.Process.Kill(); <-exited })
	w, err := startWatchdog(desk)
	if err != nil {
		t.Fatal(err)
	}
	w.w.Close() // the owner is gone
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatal("the watchdog left a marked process running")
	}
	select {
	case <-w.proc.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the watchdog did not finish")
	}
	if _, err := os.Lstat(desk); !os.IsNotExist(err) {
		t.Errorf("the desktop folder is still there: %v", err)
	}
}
