package procgroup

import (
	"bufio"
	"bytes"
	"errors"
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

// pgid reads a process's group id from /proc.
func pgid(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	g, err := strconv.Atoi(f[2]) // state, ppid, pgrp
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestStartOwnGroupAndReaped(t *testing.T) {
	cmd := exec.Command("sh", "-c", "read x; exit 3")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Start(cmd, syscall.SIGKILL)
	if err != nil {
		t.Fatal(err)
	}
	if g := pgid(t, p.PID); g != p.PID {
		t.Errorf("process group %d, want its own (%d)", g, p.PID)
	}
	select {
	case <-p.Done():
		t.Fatal("Done closed while the program runs")
	default:
	}
	in.Close()
	var exit *exec.ExitError
	if err := p.Wait(); !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("Wait: %v, want exit status 3", err)
	}
	<-p.Done()
	if p.Err() != p.Wait() {
		t.Error("Err differs from Wait")
	}
}

func TestStartNotFound(t *testing.T) {
	if _, err := Start(exec.Command("/nonexistent/mcec-procgroup-test"), 0); err == nil {
		t.Fatal("Start of a missing program succeeded")
	}
}

func TestPrepareKeepsAttributes(t *testing.T) {
	cmd := exec.Command("true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Noctty: true}
	Prepare(cmd, syscall.SIGTERM)
	a := cmd.SysProcAttr
	if !a.Setpgid || a.Pdeathsig != syscall.SIGTERM || !a.Noctty {
		t.Errorf("attributes %+v: want Setpgid, Pdeathsig SIGTERM and the caller's Noctty", a)
	}
	cmd = exec.Command("true")
	Prepare(cmd, 0)
	if !cmd.SysProcAttr.Setpgid || cmd.SysProcAttr.Pdeathsig != 0 {
		t.Errorf("attributes %+v: want Setpgid and no death signal", cmd.SysProcAttr)
	}
}

func TestProcStopEndsTheGroup(t *testing.T) {
	cmd := exec.Command("sh", "-c", `sleep 60 >/dev/null & echo $!; wait`)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p, err := Start(cmd, syscall.SIGKILL)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the script printed no pid: %v", err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() { // the death signal did not reach it: stop it by PID all the same
			_ = syscall.Kill(child, syscall.SIGKILL)
		}
	})
	if p.Stop(20 * time.Second) {
		t.Error("SIGKILL was needed for a group that ends on SIGTERM")
	}
	waitGone(t, child)
}

// helperEnv makes the test binary act as a parent that starts `sleep` with a death signal,
// prints the sleep's pid and waits to be killed (TestStartDeathSignal).
const helperEnv = "MCEC_PROCGROUP_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		p, err := Start(exec.Command("sleep", "60"), syscall.SIGTERM)
		if err != nil {
			os.Exit(2)
		}
		os.Stdout.WriteString(strconv.Itoa(p.PID) + "\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A program started with a death signal ends when its starter is killed outright (SIGKILL
// leaves no chance for clean-up code): the soak and provisioning tests rely on it.
func TestStartDeathSignal(t *testing.T) {
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), helperEnv+"=1")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = parent.Process.Kill(); _ = parent.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the helper printed no pid: %v", err)
	}
	child, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() { // the death signal did not reach it: stop it by PID all the same
			_ = syscall.Kill(child, syscall.SIGKILL)
		}
	})
	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	waitGone(t, child)
}
