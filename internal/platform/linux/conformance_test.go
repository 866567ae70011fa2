package linux_test

import (
	"bufio"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform/platformtest"
	"github.com/mcec/mcec/internal/testdesk"
)

// TestConformance runs the backend conformance suite on the package's private desktop, with
// the scene as a GTK 3 application (testdata/conformance.py).
func TestConformance(t *testing.T) {
	platformtest.Run(t, func(t *testing.T) platformtest.Harness {
		return platformtest.Harness{Desktop: open(t), Start: startScene}
	})
}

// scene is the GTK 3 scene application, driven through its stdin.
type scene struct {
	p    *testdesk.Proc
	in   io.Writer
	acks *bufio.Scanner
	mu   sync.Mutex
}

func startScene(t *testing.T) platformtest.App {
	p := testdesk.StartPiped(t, "/usr/bin/python3", "testdata/conformance.py")
	testdesk.WaitWindow(t, p.PID, 20*time.Second)
	testdesk.WaitAccessible(t, p.PID, 20*time.Second)
	return &scene{p: p, in: p.Stdin, acks: bufio.NewScanner(p.Stdout)}
}

func (s *scene) PID() int { return s.p.PID }

// Do sends a command and waits for the application's acknowledgement.
func (s *scene) Do(t *testing.T, cmd string) {
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
