// Package soak_test is the fault and soak suite (issue 17): for a while, many clients over MCP
// stdio (the bridge and a server of its own), MCP HTTP, the façade and the TCP line protocol mix
// every tool with valid and bad input, slow and abandoned connections, while the suite freezes
// (SIGSTOP/SIGCONT), crashes and restarts the desktop's applications, closes windows mid-call,
// and stops mcec with SIGTERM and SIGKILL (then starts it again). It asserts: every envelope valid
// against the schema, no panic in any log, no goroutine, fd or RSS growth past a bound, no key or
// button held on the X server at the end, no process or temporary file left behind, and every
// session's evidence hash chain intact (mcec bundle --verify).
//
// A plain `go test ./internal/soak` (and so `make test`) runs it for a minute; `make soak` runs it for
// SOAK_MINUTES and rewrites docs/reliability.md with its figures (-soak.duration, -soak.write).
// All traffic goes to loopback; every loop is bounded in count and time; every process it starts
// is stopped by PID.
package soak_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/headless"
)

var (
	duration = flag.Duration("soak.duration", time.Minute, "how long the clients and faults run")
	write    = flag.Bool("soak.write", false, "rewrite docs/reliability.md from this run")
)

func TestSoak(t *testing.T) {
	if miss := headless.MissingPrograms(); len(miss) > 0 {
		t.Fatalf("the private desktop needs %v (make test-deps)", miss)
	}
	if *duration < 45*time.Second {
		t.Fatal("-soak.duration: at least 45s (every fault needs room)")
	}
	h := newHarness(t)
	h.startServer()

	// The load: every client kind, bounded by the deadline and by a call budget.
	start := time.Now()
	deadline := start.Add(*duration)
	ctx, stop := context.WithDeadline(context.Background(), deadline)
	defer stop()
	h.deadline = deadline
	var wg sync.WaitGroup
	spawn := func(name string, f func(ctx context.Context, w *worker)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(ctx, h.worker(name))
		}()
	}
	for i := range 3 {
		spawn(fmt.Sprintf("facade-%d", i), h.facadeClient)
	}
	for i := range 2 {
		spawn(fmt.Sprintf("mcp-http-%d", i), h.mcpHTTPClient)
	}
	spawn("mcp-stdio-bridge", h.bridgeClient)
	spawn("mcp-stdio-own", h.ownStdioClient)
	spawn("stdio-raw", h.stdioRawClient)
	spawn("line-tcp-0", h.lineClient)
	spawn("line-tcp-1", h.lineClient)
	spawn("abuse", h.abuseClient)
	// Faults run in the first 75 % of the time; the last server runs the rest undisturbed, so
	// its growth is measured over a stretch of steady load.
	spawn("faults", func(ctx context.Context, w *worker) { h.faults(ctx, w, start.Add(*duration*3/4)) })
	spawn("sampler", h.sampler)
	wg.Wait()
	h.logf("load ended after %v", time.Since(start).Round(time.Second))

	h.finalChecks()
	rep := h.report(time.Since(start))
	t.Logf("soak report:\n%s", rep)
	if *write {
		if t.Failed() {
			t.Error("-soak.write: the run failed; docs/reliability.md left alone")
			return
		}
		if err := os.WriteFile("../../docs/reliability.md", []byte(rep), 0o644); err != nil {
			t.Error(err)
		}
	}
}
