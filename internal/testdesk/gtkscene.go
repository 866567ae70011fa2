package testdesk

import (
	"bufio"
	"io"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform/platformtest"
)

// GTKScene starts platformtest's scene as a GTK 3 application (testdata/conformance.py) on the
// test package's private desktop (X11 or Wayland), once its window maps and its tree is ready.
// It is stopped at the test's cleanup.
func GTKScene(t *testing.T) platformtest.App {
	_, self, _, _ := runtime.Caller(0)
	p := StartPiped(t, "/usr/bin/python3", filepath.Join(filepath.Dir(self), "testdata", "conformance.py"))
	WaitWindow(t, p.PID, 20*time.Second)
	WaitAccessible(t, p.PID, 20*time.Second)
	return &gtkScene{p: p, in: p.Stdin, acks: bufio.NewScanner(p.Stdout)}
}

// gtkScene is the GTK 3 scene application, driven through its stdin.
type gtkScene struct {
	p    *Proc
	in   io.Writer
	acks *bufio.Scanner
	mu   sync.Mutex
}

func (s *gtkScene) PID() int { return s.p.PID }

// Do sends a command and waits for the application's acknowledgement.
func (s *gtkScene) Do(t *testing.T, cmd string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := io.WriteString(s.in, cmd+"\n"); err != nil {
		t.Fatal(err)
	}
	for s.acks.Scan() {
		if s.acks.Text() == "ok "+cmd {
			return
		}
	}
	t.Fatalf("the scene did not acknowledge %q", cmd)
}
