package tools_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

func TestTmpWarmQueryProfile(t *testing.T) {
	h := newHarness(t)
	startFactory(t)
	args := map[string]any{"process": "gtk3-widget-factory", "maxDepth": 64, "maxNodes": 20000, "maxChildren": 20000, "timeBudget": 30000}
	raw, _ := json.Marshal(args)
	for i := 0; i < 40; i++ {
		h.call("query", args)
	}
	start := time.Now()
	const n = 200
	for i := 0; i < n; i++ {
		if _, err := h.d.Dispatcher.Call(context.Background(), "query", raw); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("per query: %v", time.Since(start)/n)
	wstart := time.Now()
	for i := 0; i < n; i++ {
		h.call("windows", map[string]any{"process": "gtk3-widget-factory"})
	}
	t.Logf("per windows: %v", time.Since(wstart)/n)
}
