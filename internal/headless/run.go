package headless

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
	"unsafe"

	"github.com/mcec/mcec/internal/procgroup"
)

// Run starts a desktop, runs argv inside it (with Env()), stops the desktop
// and returns argv's exit code: its status, or 128+N if signal N killed it.
// SIGINT and SIGTERM sent to us are forwarded to the command's process
// group; cancelling ctx sends it SIGTERM, then SIGKILL after 2 s. When stdin
// is our controlling terminal the command gets the terminal's foreground, so
// Ctrl-C and job control reach it directly. Anything the command leaves
// running in its process group is ended before the desktop stops.
//
// err is non-nil if the desktop or the command could not start (exitCode is
// then 1, or 127/126 for a command not found/not executable, as a shell
// would say) or if stopping the desktop failed (exitCode is the command's).
func Run(ctx context.Context, opts Options, argv []string, stdin io.Reader, stdout, stderr io.Writer) (exitCode int, err error) {
	if len(argv) == 0 {
		return 1, errors.New("headless: run: no command")
	}
	d, err := Start(ctx, opts)
	if err != nil {
		return 1, err
	}
	code, err := runIn(ctx, d, argv, stdin, stdout, stderr)
	if serr := d.Stop(); serr != nil {
		err = errors.Join(err, serr)
	}
	return code, err
}

func runIn(ctx context.Context, d *Desktop, argv []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = d.Env()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	// Output still held open by the command's leftovers must not keep us.
	cmd.WaitDelay = termGrace
	ttyFd, tty := foregroundTTY(stdin)
	if tty {
		cmd.SysProcAttr = &syscall.SysProcAttr{Foreground: true, Ctty: ttyFd}
	}

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)

	p, err := procgroup.Start(cmd, syscall.SIGTERM)
	if err != nil {
		code := 126
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			code = 127
		}
		return code, fmt.Errorf("headless: run %s: %w", argv[0], err)
	}
	if tty {
		defer takeForeground(ttyFd)
	}
	pgid := p.PID
	d.log.Debug("running", "argv", argv, "pid", pgid, "display", d.display)

	var waitErr error
	ctxDone := ctx.Done()
	var kill <-chan time.Time
wait:
	for {
		select {
		case s := <-sigs:
			_ = syscall.Kill(-pgid, s.(syscall.Signal))
		case <-ctxDone:
			ctxDone = nil
			_ = syscall.Kill(-pgid, syscall.SIGTERM)
			t := time.NewTimer(termGrace)
			defer t.Stop()
			kill = t.C
		case <-kill:
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		case <-p.Done():
			waitErr = p.Err()
			break wait
		}
	}
	// Leftovers in the command's group would lose their display anyway.
	leader := &child{name: argv[0], pid: pgid, done: p.Done(), proc: p}
	if err := stopChildren([]*child{leader}); err != nil {
		d.log.Warn("command left processes behind", "err", err)
	}

	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) && !errors.Is(waitErr, exec.ErrWaitDelay) {
		return exitCode(cmd.ProcessState), fmt.Errorf("headless: run %s: %w", argv[0], waitErr)
	}
	return exitCode(cmd.ProcessState), nil
}

// exitCode is the shell's view of how a process ended.
func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// foregroundTTY reports whether stdin is a terminal whose foreground process
// group is ours, i.e. we were started in the foreground of an interactive
// shell.
func foregroundTTY(stdin io.Reader) (int, bool) {
	f, ok := stdin.(*os.File)
	if !ok {
		return 0, false
	}
	fd := int(f.Fd())
	var pgrp int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCGPGRP, uintptr(unsafe.Pointer(&pgrp))); e != 0 {
		return 0, false
	}
	return fd, int(pgrp) == syscall.Getpgrp()
}

// takeForeground makes our process group the terminal's foreground again.
func takeForeground(fd int) {
	// A background group calling tcsetpgrp gets SIGTTOU, which would stop us.
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	pgrp := int32(syscall.Getpgrp())
	_, _, _ = syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCSPGRP, uintptr(unsafe.Pointer(&pgrp)))
}
