package headless

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcec/mcec/internal/procgroup"
)

const (
	tailLines   = 20   // stderr lines kept per child for error messages
	maxLineLen  = 1024 // longer lines are cut before logging and keeping
	pollEvery   = 10 * time.Millisecond
	termGrace   = 2 * time.Second // SIGTERM → SIGKILL
	killGrace   = 2 * time.Second // SIGKILL → give up
	drainWindow = 200 * time.Millisecond
)

// child is one process the desktop started. It leads its own process group
// (pgid == pid), so signalling the group also reaches whatever it forked:
// the launcher's a11y dbus-daemon and the registryd that bus activates.
type child struct {
	name string
	pid  int
	done <-chan struct{} // closed once the process has been reaped
	proc *procgroup.Proc
	out  *lineLog
}

// waitErr is what Wait returned; read only after done.
func (c *child) waitErr() error { return c.proc.Err() }

// spawn starts argv as a child in its own process group. Its stdout and
// stderr go to the logger line by line (never to our stdout). extra become
// fds 3, 4, … in the child. deathSig is delivered if we die first. attr, when not nil, carries
// further attributes of the child (sway's user namespace).
func spawn(log *slog.Logger, name string, argv, env []string, extra []*os.File, deathSig syscall.Signal, attr *syscall.SysProcAttr) (*child, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	// An *os.File is handed to the child as is, so Wait does not also wait
	// for grandchildren that inherited the pipe (the a11y bus does).
	cmd.Stdout, cmd.Stderr = pw, pw
	cmd.ExtraFiles = extra
	cmd.SysProcAttr = attr
	p, err := procgroup.Start(cmd, deathSig)
	if err != nil {
		pr.Close()
		pw.Close()
		return nil, err
	}
	pw.Close()
	c := &child{name: name, pid: p.PID, done: p.Done(), proc: p}
	c.out = readLines(pr, log.With("proc", name, "pid", c.pid))
	log.Debug("started", "proc", name, "pid", c.pid, "argv", argv)
	return c, nil
}

func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// exitError is the error for a child that should still be running; the
// StartError built from it adds the exit status.
func (c *child) exitError() error {
	return fmt.Errorf("%s exited", c.name)
}

// signal signals the child's whole process group.
func (c *child) signal(sig syscall.Signal) {
	// The group id is only reused once every member is gone and the pid space
	// wrapped, so signalling it after the leader was reaped is safe.
	_ = syscall.Kill(-c.pid, sig)
}

// tail returns the child's last output lines. Only for errors: a child
// that is exiting (its readiness pipe just closed) gets a moment to be
// reaped and have its last words read.
func (c *child) tail() []string {
	t := time.NewTimer(drainWindow)
	defer t.Stop()
	select {
	case <-c.done:
		select {
		case <-c.out.done:
		case <-t.C:
		}
	case <-t.C:
	}
	return c.out.snapshot()
}

// lineLog logs a child's output and keeps its last lines.
type lineLog struct {
	mu    sync.Mutex
	lines []string
	done  chan struct{} // closed at EOF, i.e. when every writer is gone
}

func readLines(r io.ReadCloser, log *slog.Logger) *lineLog {
	l := &lineLog{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		defer r.Close()
		br := bufio.NewReader(r)
		for {
			line, err := br.ReadString('\n')
			if line = strings.TrimRight(line, "\r\n"); line != "" {
				if len(line) > maxLineLen {
					line = line[:maxLineLen] + "…"
				}
				log.Debug(line)
				if !isNoise(line) {
					l.add(line)
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return l
}

// isNoise recognises output that every healthy start prints and that would
// only mislead in an error message.
func isNoise(line string) bool {
	// dbus-daemon cannot raise RLIMIT_NOFILE without CAP_SYS_RESOURCE.
	return strings.Contains(line, "Failed to set fd limit")
}

func (l *lineLog) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) == tailLines {
		copy(l.lines, l.lines[1:])
		l.lines = l.lines[:tailLines-1]
	}
	l.lines = append(l.lines, line)
}

func (l *lineLog) snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// stopChildren ends children and everything in their process groups:
// SIGTERM to every group at once (each leader cleans up after itself on
// SIGTERM, and nothing here needs an ordered shutdown), SIGKILL to what is
// left after termGrace. It returns an error naming processes still alive.
func stopChildren(procs []*child) error {
	if len(procs) == 0 {
		return nil
	}
	for _, c := range procs {
		c.signal(syscall.SIGTERM)
	}
	if waitGone(procs, termGrace) == nil {
		return nil
	}
	for _, c := range procs {
		c.signal(syscall.SIGKILL)
	}
	return waitGone(procs, killGrace)
}

// waitOutput waits up to timeout for the children's output readers to
// reach EOF, which they do once every process holding the pipe is gone.
func waitOutput(procs []*child, timeout time.Duration) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for _, c := range procs {
		if c.out == nil {
			continue
		}
		select {
		case <-c.out.done:
		case <-t.C:
			return
		}
	}
}

// waitGone waits until every child is reaped and no live process is left in
// their process groups. Zombies do not count: orphans are reaped by init, on
// its own schedule.
func waitGone(procs []*child, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	pgids := make(map[int]bool, len(procs))
	for _, c := range procs {
		pgids[c.pid] = true
	}
	var live []int
	err := poll(ctx, pollEvery, func() (bool, error) {
		for _, c := range procs {
			if !c.exited() {
				live = []int{c.pid}
				return false, nil
			}
		}
		live = groupMembers(pgids)
		return len(live) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("processes still alive after %v: %v", timeout, live)
	}
	return nil
}

// groupMembers lists the live (not zombie) processes whose process group is
// in pgids, from /proc.
func groupMembers(pgids map[int]bool) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		state, pgrp, ok := procStat(pid)
		if ok && pgids[pgrp] && state != 'Z' && state != 'X' {
			out = append(out, pid)
		}
	}
	return out
}

// procStat reads a process's state and process group from /proc/PID/stat.
func procStat(pid int) (state byte, pgrp int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command name may contain spaces and parentheses: fields start after the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err = strconv.Atoi(f[2])
	return f[0][0], pgrp, err == nil
}

// poll calls cond, then again every interval, until it reports done, fails,
// or ctx ends.
func poll(ctx context.Context, every time.Duration, cond func() (bool, error)) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		ok, err := cond()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-t.C:
		}
	}
}

// readLineFD reads one newline-terminated line from r, which the child
// writes when it is ready (Xvfb's -displayfd, dbus-daemon's --print-address).
// It gives up when ctx ends or the child exits (EOF).
func readLineFD(ctx context.Context, r *os.File) (string, error) {
	if dl, ok := ctx.Deadline(); ok {
		_ = r.SetReadDeadline(dl)
	}
	// Cancellation without a deadline: wake the read by moving the deadline.
	stop := context.AfterFunc(ctx, func() { _ = r.SetReadDeadline(time.Now()) })
	defer stop()
	var sb strings.Builder
	buf := make([]byte, 256)
	for {
		n, err := r.Read(buf)
		sb.Write(buf[:n])
		if s := sb.String(); strings.Contains(s, "\n") {
			return strings.TrimSpace(s[:strings.IndexByte(s, '\n')]), nil
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				// Only ctx sets deadlines here; its timer may fire a hair later.
				<-ctx.Done()
			}
			if ctx.Err() != nil {
				return "", context.Cause(ctx)
			}
			if errors.Is(err, io.EOF) {
				return "", errors.New("closed before ready")
			}
			return "", err
		}
	}
}
