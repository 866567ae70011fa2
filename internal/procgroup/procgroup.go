// Package procgroup stops a process group this program started, by PID.
package procgroup

import (
	"syscall"
	"time"
)

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
