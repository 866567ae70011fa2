package headless

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"strings"
)

// Display numbers are claimed the way X servers do it, with a lock file, at
// random in a range nobody scans. Xvfb's -displayfd alone would scan from :0
// without writing a lock file; with many desktops starting and stopping at
// once (parallel test packages) a number freed by one Xvfb is taken by the
// next before the first has unlinked its socket path, which the first then
// deletes from under the second, and clients that only dial the path (xgb)
// fail with "no such file".
const (
	minDisplay = 100
	maxDisplay = 10000
)

func lockPath(n int) string { return fmt.Sprintf("/tmp/.X%d-lock", n) }

// claimDisplay picks a display number with neither a lock file nor a socket
// and creates its lock file, exclusively, holding our pid for now.
func claimDisplay() (int, *os.File, error) {
	for range 100 {
		n := minDisplay + rand.IntN(maxDisplay-minDisplay)
		if _, err := os.Lstat(fmt.Sprintf("/tmp/.X11-unix/X%d", n)); err == nil {
			continue
		}
		f, err := os.OpenFile(lockPath(n), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return 0, nil, fmt.Errorf("claim display: %w", err)
		}
		if err := writeLockPID(f, os.Getpid()); err != nil {
			f.Close()
			os.Remove(lockPath(n))
			return 0, nil, fmt.Errorf("claim display: %w", err)
		}
		return n, f, nil
	}
	return 0, nil, errors.New("claim display: no free display number")
}

// writeLockPID writes pid in the X lock file format: 10 columns and a newline.
func writeLockPID(f *os.File, pid int) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt(fmt.Appendf(nil, "%10d\n", pid), 0)
	return err
}

// displayTaken recognises Xvfb's complaint that another server listens on
// the display.
func displayTaken(stderr []string) bool {
	for _, l := range stderr {
		if strings.Contains(l, "server already running") || strings.Contains(l, "Cannot establish any listening sockets") {
			return true
		}
	}
	return false
}
