package headless

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// officePipeDir is where LibreOffice makes its single-instance socket, OSL_PIPE_<uid>_…: in
// /tmp whatever TMPDIR says (its pipe code names the folder outright), and it leaves the socket
// behind when it is killed, or even ended by SIGTERM. The desktop's TMPDIR holds everything
// else its programs make, so this is the one thing they leave outside it.
const officePipeDir = "/tmp"

// removeDeadOfficePipes removes this user's LibreOffice sockets in dir made since began that
// nobody answers on: a dead socket serves no one (LibreOffice replaces it at its next start),
// while a live one may be another desktop's or the user's own office and stays.
func removeDeadOfficePipes(dir string, began time.Time) error {
	prefix := fmt.Sprintf("OSL_PIPE_%d_", os.Getuid())
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // nothing to tidy where there is no folder to read
	}
	var errs []error
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) || e.Type()&os.ModeSocket == 0 {
			continue
		}
		path := filepath.Join(dir, e.Name())
		fi, err := e.Info()
		if err != nil || fi.ModTime().Before(began) {
			continue
		}
		if c, err := net.DialTimeout("unix", path, 100*time.Millisecond); err == nil {
			c.Close()
			continue
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
