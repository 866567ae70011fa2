package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"syscall"

	"github.com/mcec/mcec/internal/provision"

	"golang.org/x/sys/unix"
)

// readyPipe is serve's --ready-fd: a pipe inherited from a provisioning server (internal/
// provision), which waits on it for the port the listener actually bound.
type readyPipe struct{ f *os.File }

// openReadyFD takes over fd (0: none). It is marked close-on-exec at once, so the programs the
// private desktop starts do not inherit it and hold the pipe open after mcec exits.
func openReadyFD(fd int) (*readyPipe, error) {
	if fd <= 0 {
		return nil, nil
	}
	if fd <= 2 {
		return nil, usageError{fmt.Errorf("--ready-fd %d: want a descriptor above 2", fd)}
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil {
		return nil, usageError{fmt.Errorf("--ready-fd %d is not an open descriptor", fd)}
	}
	syscall.CloseOnExec(fd)
	return &readyPipe{f: os.NewFile(uintptr(fd), "ready")}, nil
}

// report writes one JSON line (provision.Ready) and closes the pipe.
func (r *readyPipe) report(ready provision.Ready) error {
	if r == nil {
		return nil
	}
	defer r.f.Close()
	b, _ := json.Marshal(ready)
	_, err := r.f.Write(append(b, '\n'))
	return err
}

// close releases the pipe without reporting (start-up failed); the reader sees EOF.
func (r *readyPipe) close() {
	if r != nil {
		r.f.Close()
	}
}
