package queue

import (
	"context"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/testdesk"
)

// Drop (the emergency stop) abandons the running command and the queue, releases held input,
// and leaves the engine serving.
func TestDrop(t *testing.T) {
	f := newFake()
	e := newEngine(t, f, Options{})
	ctx := context.Background()
	for _, l := range []string{"shiftdown:ctrl", "mouse:down"} {
		if _, err := e.Run(ctx, l, OriginAgent); err != nil {
			t.Fatal(err)
		}
	}
	running, err := e.Submit("pause:60000", OriginAgent)
	if err != nil {
		t.Fatal(err)
	}
	testdesk.WaitFor(t, 10*time.Second, "the pause running", func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.abortRun != nil
	})
	queued, err := e.Submit("chars:never", OriginAgent)
	if err != nil {
		t.Fatal(err)
	}
	if n := e.Drop("the operator's emergency stop"); n != 1 {
		t.Errorf("dropped %d queued commands, want 1", n)
	}
	for _, tk := range []*Ticket{running, queued} {
		select {
		case <-tk.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("a dropped command did not end")
		}
		_, err := tk.Result()
		wantCode(t, err, contract.CodeCommandDropped)
	}
	testdesk.WaitFor(t, 10*time.Second, "held input released", func() bool { return len(f.heldNow()) == 0 })
	if res, err := e.Run(ctx, "mcec:ver", OriginAgent); err != nil || res.Output != "mcec test" {
		t.Errorf("after Drop: %+v %v", res, err)
	}
	for _, c := range f.log() {
		if c == "type never" {
			t.Error("a dropped command ran")
		}
	}
}
