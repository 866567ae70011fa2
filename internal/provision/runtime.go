package provision

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mcec/mcec/internal/atomicfile"
	"github.com/mcec/mcec/internal/paths"
)

// RuntimeDir is the per-user instances directory: $XDG_RUNTIME_DIR/mcec/instances, or
// $TMPDIR/mcec-UID/instances where there is no runtime directory.
func RuntimeDir() string { return filepath.Join(paths.Runtime()[0], "instances") }

// privateDir creates dir (and the parents mcec owns) with mode 0700 and checks that dir is a
// real directory owned by this user and closed to everyone else: in a shared /tmp another
// user could have created it first.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for _, d := range []string{filepath.Dir(dir), dir} {
		info, err := os.Lstat(d)
		if err != nil {
			return err
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !info.IsDir() || !ok || int(st.Uid) != os.Getuid() {
			return fmt.Errorf("%s is not a directory owned by this user", d)
		}
		if info.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(d, 0o700); err != nil {
				return fmt.Errorf("%s is open to other users: %w", d, err)
			}
		}
	}
	return nil
}

func writeRecord(dir string, rec record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return atomicfile.Replace(filepath.Join(dir, recordFile), append(b, '\n'), 0o600)
}

func readRecord(dir string) (record, error) {
	var rec record
	b, err := os.ReadFile(filepath.Join(dir, recordFile))
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, err
	}
	if rec.PID <= 1 || !ValidID(rec.ID) || rec.ID != filepath.Base(dir) {
		return rec, errors.New("malformed instance record")
	}
	return rec, nil
}

// isInstance reports whether pid is alive and its environment carries EnvInstance=id: a
// reused pid belongs to some other program and must not be killed.
func isInstance(pid int, id string) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	mark := []byte(EnvInstance + "=" + id)
	for _, kv := range bytes.Split(env, []byte{0}) {
		if bytes.Equal(kv, mark) {
			return true
		}
	}
	return false
}

// processExists reports whether pid exists (a zombie counts).
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// stopForeign stops a recorded instance that another (crashed) server started: it is not this
// process's child, so it is watched through a pidfd rather than waited for. The pidfd is
// opened before the identity check, so the pid cannot be reused between check and signal.
// It reports whether a live instance was stopped.
func (m *Manager) stopForeign(rec record) bool {
	fd, err := unix.PidfdOpen(rec.PID, 0)
	if err != nil {
		return false // already gone
	}
	defer unix.Close(fd)
	if !m.opt.IsInstance(rec.PID, rec.ID) {
		return false
	}
	signal := func(sig syscall.Signal) {
		// The instance leads its own process group; fall back to the process alone.
		if syscall.Kill(-rec.PID, sig) != nil {
			_ = unix.PidfdSendSignal(fd, sig, nil, 0)
		}
	}
	signal(syscall.SIGTERM)
	if waitPidfd(fd, m.opt.Grace) {
		return true
	}
	m.log.Warn("stale instance ignored SIGTERM; killing it", "instance", rec.ID, "pid", rec.PID)
	signal(syscall.SIGKILL)
	waitPidfd(fd, 10*time.Second)
	return true
}

// waitPidfd waits until the process behind fd has exited, at most d.
func waitPidfd(fd int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && n > 0
	}
}
