package atspi

import (
	"context"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/testdesk"
)

// factoryWalker connects, starts gtk3-widget-factory and returns a walker on it with its
// frame, once the application serves its cache.
func factoryWalker(tb testing.TB) (*walker, *node) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Connect(ctx, "", Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.Close() })
	p := testdesk.Start(tb, "gtk3-widget-factory")
	testdesk.WaitWindow(tb, p.PID, 20*time.Second)
	testdesk.WaitAccessible(tb, p.PID, 20*time.Second)
	var (
		w     *walker
		frame *node
	)
	testdesk.WaitFor(tb, 10*time.Second, "the application's cache and frame", func() bool {
		apps, err := c.appsOf(ctx, p.PID)
		if err != nil || len(apps) != 1 {
			return false
		}
		w = &walker{c: c, sem: make(chan struct{}, maxInFlight), app: apps[0], limits: platform.TreeLimits{MaxDepth: 100, MaxNodes: 100000}}
		tops, err := w.topLevels(ctx)
		if err != nil || w.snap == nil || len(tops) == 0 {
			return false
		}
		frame = tops[0]
		return true
	})
	return w, frame
}

// BenchmarkGetItems is one Cache.GetItems call and its decoding.
func BenchmarkGetItems(b *testing.B) {
	w, _ := factoryWalker(b)
	ctx := context.Background()
	items := 0
	for b.Loop() {
		snap, err := w.c.snapshot(ctx, w.app)
		if err != nil || snap == nil {
			b.Fatal(err)
		}
		items = len(snap)
	}
	b.ReportMetric(float64(items), "items")
}

// BenchmarkExtents is GetExtents, pipelined, for every showing object with a Component.
func BenchmarkExtents(b *testing.B) {
	w, _ := factoryWalker(b)
	ctx := context.Background()
	var nodes []*node
	for r, info := range w.snap {
		if info.ifaces&hasComponent != 0 && info.states.has(stateShowing) {
			nodes = append(nodes, &node{ref: r, info: info})
		}
	}
	for b.Loop() {
		jobs := make([]job, len(nodes))
		for i, n := range nodes {
			jobs[i] = w.extentsJob(n)
		}
		if err := run(ctx, w.sem, jobs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(nodes)), "calls")
}
