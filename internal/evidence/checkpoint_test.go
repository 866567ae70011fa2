package evidence

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/testdesk"
)

// readSessionJSON reads session.json through Open, as bundle --verify does.
func readSessionJSON(t *testing.T, dir string) *Bundle {
	t.Helper()
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if b.Session == nil {
		t.Fatal("no readable session.json")
	}
	return b
}

// session.json is a checkpoint: it catches up with the trace within checkpointEvery without
// a flush, a lagging anchor still verifies (the lines after it are counted), and Close and
// session end write it at once.
func TestSessionJSONCheckpoints(t *testing.T) {
	r := newRig(t, Options{})
	s := r.store.Start()
	dir := r.dir(s)
	const n = 30
	for i := range n {
		r.call(s, "windows", `{}`, contract.Success(s.ID(), map[string]any{"i": i}), nil)
	}

	// Whatever the checkpoint shows now, the trace verifies against it.
	if _, err := os.Stat(filepath.Join(dir, SessionFile)); err == nil {
		b := readSessionJSON(t, dir)
		v, err := b.Verify()
		if err != nil {
			t.Fatalf("trace against a checkpoint: %v", err)
		}
		if v.Beyond != 2*n-b.Session.Trace.Lines {
			t.Errorf("beyond %d, anchor %d of %d lines", v.Beyond, b.Session.Trace.Lines, 2*n)
		}
	}

	// Without further calls, the pending checkpoint is written (the deadline is generous: the
	// machine is shared).
	testdesk.WaitFor(t, 10*time.Second, "session.json did not catch up with the trace", func() bool {
		if _, err := os.Stat(filepath.Join(dir, SessionFile)); err != nil {
			return false
		}
		b := readSessionJSON(t, dir)
		return b.Session.Calls == n && b.Session.Trace.Lines == 2*n
	})

	// Session end is written at once.
	r.call(s, "windows", `{}`, contract.Success(s.ID(), map[string]any{}), nil)
	r.store.End(s.ID())
	r.call(s, "session-end", `{}`, contract.Success(s.ID(), map[string]any{"ended": true}), nil)
	b := readSessionJSON(t, dir)
	if !b.Session.Ended || b.Session.Trace.Lines != 2*(n+2) {
		t.Errorf("after session end: ended %v, %d lines, want %d", b.Session.Ended, b.Session.Trace.Lines, 2*(n+2))
	}
	if v, err := b.Verify(); err != nil || v.Beyond != 0 {
		t.Errorf("verify after end: %v, beyond %d", err, v.Beyond)
	}

	// Close writes a live session's pending checkpoint.
	live := r.store.Start()
	for range 5 {
		r.call(live, "windows", `{}`, contract.Success(live.ID(), map[string]any{}), nil)
	}
	r.rec.Close()
	b = readSessionJSON(t, r.dir(live))
	if b.Session.Calls != 5 || b.Session.Trace.Lines != 10 {
		t.Errorf("after Close: %d calls, %d lines", b.Session.Calls, b.Session.Trace.Lines)
	}
	// A call after Close is written with its session.json.
	r.call(live, "windows", `{}`, contract.Success(live.ID(), map[string]any{}), nil)
	if b = readSessionJSON(t, r.dir(live)); b.Session.Trace.Lines != 12 {
		t.Errorf("after a call past Close: %d lines", b.Session.Trace.Lines)
	}
}
