package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/mcec/mcec/internal/procgroup"
)

// proc is a program the benchmark started in a process group of its own, stopped by its PID.
type proc struct{ *procgroup.Proc }

// command prepares argv to run inside the desktop (env), in its own process group, killed with
// the benchmark (for starters outside this file too, such as the MCP client's transport).
func command(env []string, argv ...string) *exec.Cmd {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	procgroup.Prepare(cmd, syscall.SIGKILL)
	return cmd
}

func startProc(cmd *exec.Cmd) (*proc, error) {
	p, err := procgroup.Start(cmd, syscall.SIGKILL)
	if err != nil {
		return nil, err
	}
	return &proc{p}, nil
}

func (p *proc) pid() int { return p.PID }

// stop ends the process group the benchmark started: SIGTERM, then SIGKILL after a grace period.
func (p *proc) stop() {
	if p == nil {
		return
	}
	p.Stop(3 * time.Second)
}

// run runs argv to completion with stdout discarded (what a script would read and keep), and
// fails with its stderr when it fails.
func run(ctx context.Context, env []string, argv ...string) error {
	cmd := command(env, argv...)
	cmd.Stdout = io.Discard
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := runCtx(ctx, cmd); err != nil {
		return fmt.Errorf("%s: %w: %s", argv[0], err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

func runCtx(ctx context.Context, cmd *exec.Cmd) error {
	p, err := procgroup.Start(cmd, syscall.SIGKILL)
	if err != nil {
		return err
	}
	select {
	case <-p.Done():
		return p.Err()
	case <-ctx.Done():
		p.Signal(syscall.SIGKILL)
		<-p.Done()
		return ctx.Err()
	}
}

// pipeline runs `a | b` as two processes, the way a shell script would, without a shell.
func pipeline(ctx context.Context, env []string, a, b []string) error {
	ca, cb := command(env, a...), command(env, b...)
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	ca.Stdout, cb.Stdin = w, r
	cb.Stdout = io.Discard
	var ea, eb strings.Builder
	ca.Stderr, cb.Stderr = &ea, &eb
	pa, err := procgroup.Start(ca, syscall.SIGKILL)
	if err != nil {
		r.Close()
		w.Close()
		return err
	}
	w.Close()
	pb, err := procgroup.Start(cb, syscall.SIGKILL)
	if err != nil {
		r.Close()
		pa.Signal(syscall.SIGKILL)
		_ = pa.Wait()
		return err
	}
	r.Close()
	stop := context.AfterFunc(ctx, func() {
		pa.Signal(syscall.SIGKILL)
		pb.Signal(syscall.SIGKILL)
	})
	defer stop()
	errA, errB := pa.Wait(), pb.Wait()
	if err := errors.Join(errA, errB); err != nil {
		return fmt.Errorf("%s | %s: %w: %s %s", a[0], b[0], err, strings.TrimSpace(ea.String()), strings.TrimSpace(eb.String()))
	}
	return nil
}

// procStatus reads a field of /proc/PID/status in kB (VmRSS, VmHWM).
func procStatus(pid int, field string) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			var kb int
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err != nil {
				return 0, fmt.Errorf("%s: %q: %w", field, line, err)
			}
			return kb, nil
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}

// debianPython is the interpreter Debian's python3-pyatspi and python3-gi are installed for; a
// python3 earlier on PATH (pyenv, a virtualenv) would not see them.
const debianPython = "/usr/bin/python3"
