package dispatch

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/session"
)

// Issue 17 row 11: a shutdown during a long wait is not reported as the wait's timeout (nor as
// a hung app): the call in flight answers internal / server-shutting-down, and so does every
// call after it, without running.
func TestShutdownIsNotATimeout(t *testing.T) {
	c := catalog.New()
	entered := make(chan struct{}, 1)
	var ran atomic.Int32
	// A wait as wait-for does it: on cancellation it reports what it makes of it, a timeout.
	c.Add(catalog.Define(catalog.Spec[noArgs, noArgs]{Name: "wait", Description: "waits until cancelled",
		Run: func(ctx context.Context, call *catalog.Call, in *noArgs, resp *catalog.Response) (*noArgs, error) {
			ran.Add(1)
			entered <- struct{}{}
			<-ctx.Done()
			return nil, contract.Errorf(contract.CodeWaitConditionTimeout, "after 990 ms, the element did not appear")
		}}))
	c.Add(catalog.Define(catalog.Spec[noArgs, noArgs]{Name: "deadline", Description: "fails as a D-Bus call cut short does",
		Run: func(ctx context.Context, call *catalog.Call, in *noArgs, resp *catalog.Response) (*noArgs, error) {
			entered <- struct{}{}
			<-ctx.Done()
			return nil, context.DeadlineExceeded
		}}))
	d := New(c, session.NewStore(session.Options{Root: t.TempDir()}), nil)

	for _, tool := range []string{"wait", "deadline"} {
		d := d
		if tool == "deadline" {
			d = New(c, session.NewStore(session.Options{Root: t.TempDir()}), nil)
		}
		out := make(chan Outcome, 1)
		go func() {
			o, err := d.Call(context.Background(), tool, json.RawMessage(`{}`))
			if err != nil {
				t.Error(err)
			}
			out <- o
		}()
		select {
		case <-entered:
		case <-time.After(10 * time.Second):
			t.Fatal("the call did not start")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := d.Shutdown(ctx); err != nil {
			t.Fatalf("Shutdown: %v (the call in flight did not return)", err)
		}
		cancel()
		o := <-out
		b, _ := json.Marshal(o.Envelope)
		e := contracttest.Fail(t, contracttest.Check(t, b), contract.Internal, contract.CodeServerShuttingDown)
		if tool == "wait" && !strings.Contains(e.Detail, "after 990 ms") {
			t.Errorf("the detail drops what the tool said: %q", e.Detail)
		}
	}
	// After the shutdown, a call is refused without reaching its tool.
	before := ran.Load()
	o, err := d.Call(context.Background(), "wait", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(o.Envelope)
	contracttest.Fail(t, contracttest.Check(t, b), contract.Internal, contract.CodeServerShuttingDown)
	if ran.Load() != before {
		t.Error("a call after the shutdown ran its tool")
	}
}

// A call cancelled for another reason (the client went away) keeps the tool's own answer.
func TestPlainCancellationKeepsTheToolsAnswer(t *testing.T) {
	c := catalog.New()
	c.Add(catalog.Define(catalog.Spec[noArgs, noArgs]{Name: "wait", Description: "waits until cancelled",
		Run: func(ctx context.Context, call *catalog.Call, in *noArgs, resp *catalog.Response) (*noArgs, error) {
			<-ctx.Done()
			return nil, contract.Errorf(contract.CodeWaitConditionTimeout, "after 10 ms")
		}}))
	d := New(c, session.NewStore(session.Options{Root: t.TempDir()}), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	o, err := d.Call(ctx, "wait", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(o.Envelope)
	contracttest.Fail(t, contracttest.Check(t, b), contract.Timeout, contract.CodeWaitConditionTimeout)
}

// TestShutdownWaitsDoNotAddUp: a call that ignores its cancellation holds the first Shutdown to
// its deadline; a later Shutdown (the daemon's, after the transport's) waits at most lateDrain,
// and once the call returns, Shutdown returns at once.
func TestShutdownWaitsDoNotAddUp(t *testing.T) {
	c := catalog.New()
	entered, release := make(chan struct{}, 1), make(chan struct{})
	c.Add(catalog.Define(catalog.Spec[noArgs, noArgs]{Name: "stuck", Description: "ignores its cancellation",
		Run: func(ctx context.Context, call *catalog.Call, in *noArgs, resp *catalog.Response) (*noArgs, error) {
			entered <- struct{}{}
			<-release
			return &noArgs{}, nil
		}}))
	d := New(c, session.NewStore(session.Options{Root: t.TempDir()}), nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = d.Call(context.Background(), "stuck", json.RawMessage(`{}`))
	}()
	<-entered
	first, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := d.Shutdown(first); err == nil {
		t.Fatal("Shutdown returned while the call was still running")
	}
	start := time.Now()
	if err := d.Shutdown(context.Background()); err == nil {
		t.Fatal("the second Shutdown returned nil while the call was still running")
	}
	if took := time.Since(start); took > lateDrain+time.Second {
		t.Errorf("the second Shutdown waited %v, want at most about %v", took, lateDrain)
	}
	close(release)
	<-done
	if err := d.Shutdown(context.Background()); err != nil {
		t.Errorf("Shutdown after the call returned: %v", err)
	}
}
