package evidencefake_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/daemon/daemontest"
	"github.com/mcec/mcec/internal/evidence"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/fake"
)

// rig is the tools on a fake desktop behind a dispatcher whose observer is the recorder: the
// daemon's evidence path without the daemon's sockets (which a synctest bubble cannot hold).
type rig struct {
	*daemontest.Bare
	rec *evidence.Recorder
}

func newRig(t *testing.T) *rig {
	r := &rig{Bare: daemontest.NewBare(t, fake.Options{})}
	r.Fake.AddWindow(fake.WindowSpec{Title: "Notes", ProcessName: "notes", PID: 5000001, Bounds: platform.Rect{X: 10, Y: 10, Width: 300, Height: 200},
		Root: &fake.Elem{Role: "frame", Name: "Notes"}})
	r.rec = evidence.New(evidence.Options{Root: r.Root, Sessions: r.Sessions, Probe: r.Fake, Version: "test", Desktop: "fake"})
	r.Dispatcher.SetObserver(r.rec)
	t.Cleanup(func() { _ = r.rec.Close() })
	return r
}

// call runs a tool and returns its schema-checked envelope once the call is recorded.
func (r *rig) call(t *testing.T, tool string, args any) contract.Envelope {
	env := r.Call(t, tool, args)
	r.rec.Settle()
	return env
}

// session reads the session's directory as bundle --verify does.
func (r *rig) session(t *testing.T, id string) *evidence.Bundle {
	t.Helper()
	dir, err := evidence.Locate(r.Root, id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := evidence.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func calls(b *evidence.Bundle) int {
	if b.Session == nil {
		return -1
	}
	return b.Session.Calls
}

// session.json is a checkpoint on a timer: the first call writes it at once, calls right after
// share the next write, which comes within the checkpoint interval without a flush; the trace
// has every call at once and verifies against any checkpoint.
func TestCheckpointTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		id := r.call(t, "windows", map[string]any{}).SessionID()
		synctest.Wait()
		if got := calls(r.session(t, id)); got != 1 {
			t.Fatalf("after the first call session.json shows %d calls, want 1", got)
		}
		for range 4 {
			r.call(t, "windows", map[string]any{})
		}
		synctest.Wait() // no time has passed: the next checkpoint is still pending
		b := r.session(t, id)
		if got := calls(b); got != 1 {
			t.Errorf("at once, session.json shows %d calls, want still 1", got)
		}
		if v, err := b.Verify(); err != nil || v.Beyond != 8 {
			t.Errorf("the trace against the lagging checkpoint: %v, %d lines beyond, want 8", err, v.Beyond)
		}
		time.Sleep(time.Second) // the bubble's clock: the pending checkpoint fires
		synctest.Wait()
		b = r.session(t, id)
		if got := calls(b); got != 5 || b.Session.Trace.Lines != 10 {
			t.Errorf("a second later session.json shows %d calls, %d lines; want 5 and 10", got, b.Session.Trace.Lines)
		}
		if v, err := b.Verify(); err != nil || v.Beyond != 0 {
			t.Errorf("verify: %v, %d lines beyond", err, v.Beyond)
		}
	})
}

// A failed call is in the trace with its code, counted as a failure, and summarized.
func TestFailureRecorded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t)
		env := r.call(t, "find", map[string]any{"window": "Nowhere", "element": map[string]any{"name": "x"}})
		if env.OK() || env.Err().Code != contract.CodeWindowNotFound {
			t.Fatalf("want window-not-found, got %+v", env.Err())
		}
		r.call(t, "windows", map[string]any{})
		_ = r.rec.Close()
		b := r.session(t, env.SessionID())
		if b.Session == nil || b.Session.Calls != 2 || b.Session.Failures != 1 {
			t.Fatalf("session.json %+v, want 2 calls, 1 failure", b.Session)
		}
		if !strings.Contains(string(b.Trace), `"code":"window-not-found"`) {
			t.Errorf("the trace misses the failure's code:\n%s", b.Trace)
		}
		dir, _ := evidence.Locate(r.Root, env.SessionID())
		summary, err := os.ReadFile(filepath.Join(dir, evidence.SummaryFile))
		if err != nil || !strings.Contains(string(summary), "window-not-found") {
			t.Errorf("failure summary (%v):\n%s", err, summary)
		}
		if _, err := os.Stat(filepath.Join(dir, evidence.EnvironmentFile)); err != nil {
			t.Errorf("no environment.json: %v", err)
		}
	})
}
