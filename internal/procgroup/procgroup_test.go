package procgroup

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startGroup runs script in sh as the leader of a new process group, waits until it prints
// its child's pid, and closes done once the leader has been reaped.
func startGroup(t *testing.T, script string) (leader, child int, done chan struct{}) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done = make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the script printed no pid: %v", err)
	}
	if child, err = strconv.Atoi(strings.TrimSpace(line)); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid, child, done
}

// waitGone waits until pid has ended: no such process, or a zombie its new parent has not
// reaped yet.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:])); len(f) > 0 && f[0] == "Z" {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d of the group is still alive", pid)
		}
		<-tick.C
	}
}

func TestStop(t *testing.T) {
	for _, c := range []struct {
		name, script string
		grace        time.Duration
		wantKilled   bool
	}{
		// The leader and its child end on SIGTERM, well within the grace period.
		{"terminated", `sleep 60 >/dev/null & echo $!; wait`, 20 * time.Second, false},
		// Both ignore SIGTERM (sleep inherits the ignored disposition): SIGKILL ends the group.
		{"killed", `trap "" TERM; sleep 60 >/dev/null & echo $!; wait`, 100 * time.Millisecond, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			leader, child, done := startGroup(t, c.script)
			stopped := make(chan bool, 1)
			go func() { stopped <- Stop(leader, done, c.grace) }()
			select {
			case killed := <-stopped:
				if killed != c.wantKilled {
					t.Errorf("killed = %v, want %v", killed, c.wantKilled)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("Stop did not return")
			}
			select {
			case <-done:
			default:
				t.Fatal("Stop returned before the leader was reaped")
			}
			waitGone(t, child) // the signal went to the group, not only to the leader
		})
	}
}

func TestStopNoPID(t *testing.T) {
	done := make(chan struct{})
	close(done)
	if Stop(0, done, time.Second) {
		t.Fatal("Stop(0) reported a kill")
	}
}
