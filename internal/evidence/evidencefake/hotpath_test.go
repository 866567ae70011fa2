package evidencefake_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcec/mcec/internal/daemon/daemontest"
	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/evidence"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/fake"
)

// widgetRig is the recorder behind a dispatcher on a fake desktop with a window of a few hundred
// named widgets, about the size of gtk3-widget-factory's page (issue 16's warm query).
func widgetRig(t testing.TB) *rig {
	r := &rig{Bare: daemontest.NewBare(t, fake.Options{})}
	root := &fake.Elem{Role: "frame", Name: "Widget Factory"}
	for i := range 25 {
		panel := &fake.Elem{Role: "panel", Name: fmt.Sprintf("Page %d", i)}
		for j := range 10 {
			panel.Children = append(panel.Children, &fake.Elem{Role: "push button", Name: fmt.Sprintf("Button <%d.%d> & more", i, j),
				Bounds: &platform.Rect{X: 10 * j, Y: 20 * i, Width: 80, Height: 24}, States: []string{"focusable"}})
		}
		root.Children = append(root.Children, panel)
	}
	r.Fake.AddWindow(fake.WindowSpec{Title: "Widget Factory", ProcessName: "gtk3-widget-factory", PID: 5000002,
		Bounds: platform.Rect{X: 0, Y: 0, Width: 800, Height: 600}, Root: root})
	r.rec = evidence.New(evidence.Options{Root: r.Root, Sessions: r.Sessions, Probe: r.Fake, Version: "test", Desktop: "fake"})
	r.Dispatcher.SetObserver(r.rec)
	t.Cleanup(func() { _ = r.rec.Close() })
	return r
}

var widgetQuery = json.RawMessage(`{"process":"gtk3-widget-factory","maxDepth":64,"maxNodes":20000,"maxChildren":20000}`)

// The envelope of a call is encoded once: the recorder encodes it for the trace, and the
// transport's encoding afterwards (callTool, the façade) reuses those bytes, allocating nothing.
func TestWarmQueryEncodedOnce(t *testing.T) {
	r := widgetRig(t)
	out, err := r.Dispatcher.Call(context.Background(), "query", widgetQuery)
	if err != nil || !out.Envelope.OK() {
		t.Fatalf("query: %v %+v", err, out.Envelope.Err())
	}
	// AllocsPerRun counts every goroutine's allocations: the recorder's background work (the
	// environment probe, the session.json checkpoint) must be over first. Beside a second make
	// test it was still running, and counted 2 allocations a run.
	_ = r.rec.Close()
	var size int
	if allocs := testing.AllocsPerRun(10, func() {
		b, _ := out.Envelope.MarshalJSON()
		size = len(b)
	}); allocs != 0 {
		t.Errorf("the transport's encoding of a recorded envelope allocated %v times: it encoded the envelope again", allocs)
	}
	if size < 20000 {
		t.Errorf("the query answered %d bytes, want a tree of a few hundred nodes", size)
	}
}

// BenchmarkWarmQuery is a query of an unchanged window through the dispatcher, the evidence
// recorder and the envelope's encoding for the transport: the server's share of a warm query
// (the platform's tree aside, which the fake answers from memory).
func BenchmarkWarmQuery(b *testing.B) {
	r := widgetRig(b)
	ctx := dispatch.WithTransport(context.Background(), "bench")
	b.ReportAllocs()
	for b.Loop() {
		out, err := r.Dispatcher.Call(ctx, "query", widgetQuery)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := out.Envelope.MarshalJSON(); err != nil {
			b.Fatal(err)
		}
		r.rec.Settle() // the recording, off the call's path, is still the server's work
	}
}
