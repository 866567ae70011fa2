// Package suitedesk is the shared fixture of the cross-application suites (internal/reach,
// internal/tasks): a daemon on a private headless desktop of its own, as `mcec serve --headless`
// runs it, and the processes a test must stop by PID. Each suite keeps its own call bookkeeping.
// Import it only from _test.go files.
package suitedesk

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/headless"
	"github.com/mcec/mcec/internal/safety"
)

// Main runs a suite's tests with a home of their own: HOME and the XDG directories point into a
// fresh temporary directory, removed afterwards. Some apps write their settings there on first
// start (Terminology's and Elementary's, FeatherPad's), and a fresh one shows what a new user
// sees (Terminology's scale wizard). Call it from TestMain.
func Main(m *testing.M) int {
	home, err := os.MkdirTemp("", "mcec-suite-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "suitedesk:", err)
		return 1
	}
	defer os.RemoveAll(home)
	for k, sub := range map[string]string{"HOME": "", "XDG_CONFIG_HOME": ".config", "XDG_DATA_HOME": ".local/share",
		"XDG_CACHE_HOME": ".cache", "XDG_STATE_HOME": ".local/state"} {
		os.Setenv(k, filepath.Join(home, sub))
	}
	return m.Run()
}

// Start runs a daemon on a private X11 desktop of its own with every tool allowed, closed when
// the test ends.
func Start(t testing.TB) *daemon.Daemon { return StartKind(t, headless.X11) }

// StartKind is Start on a private desktop of the given kind.
func StartKind(t testing.TB, kind headless.Kind) *daemon.Daemon { return StartWith(t, kind, nil) }

// StartWith is StartKind with the daemon's configuration changed by tune (nil: as it is).
func StartWith(t testing.TB, kind headless.Kind, tune func(*daemon.Config)) *daemon.Daemon {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cfg := daemon.Config{Headless: true, SessionsDir: t.TempDir(), Screen: headless.Options{Kind: kind},
		Safety: safety.Settings{AllowAll: true}, NoConsentDialog: true}
	if tune != nil {
		tune(&cfg)
	}
	d, err := daemon.Start(ctx, cfg)
	if err != nil {
		t.Fatalf("daemon on a private desktop: %v", err)
	}
	if d.Private == nil {
		t.Fatal("the daemon attached to a desktop instead of starting its own")
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// Procs are processes a test stops by PID when it ends: the daemon stops what it started at
// Close, these cover processes a launched program handed its window to.
type Procs struct {
	mu   sync.Mutex
	pids []int
}

// Own adds pid (not this process, not init) once.
func (p *Procs) Own(pid int) {
	if pid <= 1 || pid == os.Getpid() {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.Contains(p.pids, pid) {
		p.pids = append(p.pids, pid)
	}
}

// StopAll ends the owned processes: SIGTERM, then SIGKILL after a grace, each by PID (and its
// process group when it leads one, as every process launch starts does). It fails t when one
// outlives SIGKILL.
func (p *Procs) StopAll(t testing.TB) {
	p.mu.Lock()
	pids := slices.Clone(p.pids)
	p.mu.Unlock()
	signal := func(sig syscall.Signal) {
		for _, pid := range pids {
			if pgid, err := syscall.Getpgid(pid); err == nil && pgid == pid {
				_ = syscall.Kill(-pid, sig)
			}
			_ = syscall.Kill(pid, sig)
		}
	}
	allGone := func() bool { return !slices.ContainsFunc(pids, Alive) }
	signal(syscall.SIGTERM)
	if !WaitUntil(3*time.Second, allGone) {
		signal(syscall.SIGKILL)
		if !WaitUntil(5*time.Second, allGone) {
			t.Errorf("processes %v still running after SIGKILL", pids)
		}
	}
}

// Alive reports whether pid runs (a zombie waiting for its reaper counts as gone).
func Alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// WaitUntil polls cond every 25 ms until it holds or timeout passes; it reports whether it held.
func WaitUntil(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
}
