// Package procgroup starts programs as leaders of process groups of their own, with a
// parent-death signal and a reaper, and stops such a group by its leader's PID.
package procgroup

import (
	"os/exec"
	"syscall"
	"time"
)

// Prepare makes cmd start as the leader of a new process group (pgid == pid), so that
// signalling the group also reaches whatever it forks, and asks the kernel to send it deathSig
// when this program dies (even by SIGKILL); deathSig 0 sends nothing, for a process that is to
// outlive us. Other attributes the caller set (a controlling terminal) are kept. It is for a
// caller that starts and waits for cmd itself (reading its pipes before Wait); Start does both.
//
// The kernel ties the parent-death signal to the thread that forked, not the process; Go keeps
// that thread alive unless a goroutine locked to it exits, which this program's starters never
// do.
func Prepare(cmd *exec.Cmd, deathSig syscall.Signal) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = deathSig
}

// Proc is a program Start started; a goroutine of its own reaps it.
type Proc struct {
	Cmd  *exec.Cmd
	PID  int // also the process group's id
	done chan struct{}
	err  error
}

// Start starts cmd as Prepare describes and reaps it in a goroutine: Done closes once it has
// been reaped, and Err is then what cmd.Wait returned. The caller must not call cmd.Wait.
func Start(cmd *exec.Cmd, deathSig syscall.Signal) (*Proc, error) {
	Prepare(cmd, deathSig)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Proc{Cmd: cmd, PID: cmd.Process.Pid, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Done closes once the process has been reaped.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Err is what cmd.Wait returned; only meaningful once Done has closed.
func (p *Proc) Err() error { return p.err }

// Wait blocks until the process has been reaped and returns what cmd.Wait returned.
func (p *Proc) Wait() error {
	<-p.done
	return p.err
}

// Signal sends sig to the whole process group. The group id is only reused once every member
// is gone and the pid space wrapped, so this is safe even after the leader was reaped.
func (p *Proc) Signal(sig syscall.Signal) { _ = syscall.Kill(-p.PID, sig) }

// Stop ends the process group as the package-level Stop does and waits until the leader has
// been reaped; it reports whether SIGKILL was needed.
func (p *Proc) Stop(grace time.Duration) (killed bool) { return Stop(p.PID, p.done, grace) }

// Stop ends the process group led by pid: SIGTERM to the group, SIGKILL to the group if done
// has not closed after grace, then it waits for done. done must close once the leader has
// been reaped (the goroutine that calls cmd.Wait closes it), so that when Stop returns the PID
// cannot be reused under a later signal. Stop reports whether SIGKILL was needed. A pid below 1
// names no group this program started (kill(0) and kill(-1) would reach far more): nothing is
// signalled and Stop only waits for done.
func Stop(pid int, done <-chan struct{}, grace time.Duration) (killed bool) {
	if pid < 1 {
		<-done
		return false
	}
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
		return false
	case <-t.C:
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	<-done
	return true
}
