package tasks_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/daemon/daemontest"
	"github.com/mcec/mcec/internal/headless"
	"github.com/mcec/mcec/internal/suitedesk"
)

// desk is one task's private desktop: a daemon on a headless display, as `mcec serve --headless`
// runs it, driven through its dispatcher as an MCP client would (the approach of internal/reach;
// internal/suitedesk holds what the two share).
type desk struct {
	t *testing.T
	d *daemon.Daemon

	mu    sync.Mutex
	calls []call
	procs suitedesk.Procs // processes to stop at the end, by PID
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

func newDesk(t *testing.T, kind headless.Kind, toplevels, xwayland bool) *desk {
	t.Helper()
	k := &desk{t: t, d: suitedesk.StartWith(t, kind, func(c *daemon.Config) {
		c.WaylandToplevels, c.Screen.XWayland = toplevels, xwayland
	})}
	// Registered after the daemon's Close, so it runs first: the apps go before their desktop.
	t.Cleanup(func() { k.procs.StopAll(t) })
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
	daemontest.CheckOutput(k.t, k.d.Dispatcher.Catalog(), tool, env)
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

// own registers a process to stop by PID when the test ends.
func (k *desk) own(pid int) { k.procs.Own(pid) }

func waitUntil(timeout time.Duration, cond func() bool) bool {
	return suitedesk.WaitUntil(timeout, cond)
}
