package tasks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/safety"
)

// desk is one task's private desktop: a daemon on a headless display, as `mcec serve --headless`
// runs it, driven through its dispatcher as an MCP client would (the approach of internal/reach;
// these helpers are copied from there, not shared, so that neither suite bends the other).
type desk struct {
	t *testing.T
	d *daemon.Daemon

	mu    sync.Mutex
	calls []call
	pids  []int // processes to stop at the end, by PID
}

// call is one tool call as the report counts it: the text an MCP client would see (the envelope
// JSON, the tool result's text content) and how long it took.
type call struct {
	tool string
	args string
	text string
	took time.Duration
	env  contract.Envelope
}

func newDesk(t *testing.T) *desk {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	d, err := daemon.Start(ctx, daemon.Config{Headless: true, SessionsDir: t.TempDir(),
		Safety: safety.Settings{AllowAll: true}, NoConsentDialog: true})
	if err != nil {
		t.Fatalf("daemon on a private desktop: %v", err)
	}
	if d.Private == nil {
		t.Fatal("the daemon attached to a desktop instead of starting its own")
	}
	k := &desk{t: t, d: d}
	t.Cleanup(func() { d.Close() })
	// Registered after the daemon's Close, so it runs first: the apps go before their desktop.
	t.Cleanup(k.stopAll)
	return k
}

// call runs one tool, validates the envelope against the contract's schema and records it. A
// dispatcher error (not an envelope) fails the test: it is a protocol failure.
func (k *desk) call(tool string, args map[string]any) contract.Envelope {
	k.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		k.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	start := time.Now()
	out, err := k.d.Dispatcher.Call(ctx, tool, raw)
	took := time.Since(start)
	if err != nil {
		k.t.Fatalf("%s %s: %v", tool, raw, err)
	}
	text := contracttest.CheckEnvelope(k.t, out.Envelope)
	env := contracttest.Check(k.t, text)
	if out.Image != nil {
		// Every capture in the suite is pathOnly: an image block would be tokens the report
		// does not count.
		k.t.Errorf("%s %s returned an image block; the suite's captures must be pathOnly", tool, raw)
	}
	k.mu.Lock()
	k.calls = append(k.calls, call{tool: tool, args: string(raw), text: string(text), took: took, env: env})
	k.mu.Unlock()
	return env
}

// own registers a process to stop by PID when the test ends (the daemon also stops what it
// started at Close; this covers processes a launched program handed its window to).
func (k *desk) own(pid int) {
	if pid <= 1 || pid == os.Getpid() {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, p := range k.pids {
		if p == pid {
			return
		}
	}
	k.pids = append(k.pids, pid)
}

// stopAll ends the owned processes: SIGTERM, then SIGKILL after a grace, each by PID (and its
// process group when it leads one, as every process launch starts does).
func (k *desk) stopAll() {
	k.mu.Lock()
	pids := k.pids
	k.mu.Unlock()
	signal := func(sig syscall.Signal) {
		for _, pid := range pids {
			if pgid, err := syscall.Getpgid(pid); err == nil && pgid == pid {
				_ = syscall.Kill(-pid, sig)
			}
			_ = syscall.Kill(pid, sig)
		}
	}
	allGone := func() bool {
		for _, pid := range pids {
			if alive(pid) {
				return false
			}
		}
		return true
	}
	signal(syscall.SIGTERM)
	if !waitUntil(3*time.Second, allGone) {
		signal(syscall.SIGKILL)
		if !waitUntil(5*time.Second, allGone) {
			k.t.Errorf("processes %v still running after SIGKILL", pids)
		}
	}
}

// alive reports whether pid runs (a zombie waiting for its reaper counts as gone).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// waitUntil polls cond every 50 ms until it holds or timeout passes; it reports whether it held.
func waitUntil(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(50 * time.Millisecond)
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
