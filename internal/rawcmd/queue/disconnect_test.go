package queue_test

import (
	"context"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/testdesk"
	"github.com/mcec/mcec/internal/transport/line"
)

// heldNow reads what the X server has down.
func (r *rig) heldNow() []string {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h, err := r.d.Desktop.Input().Held(ctx)
	if err != nil {
		r.t.Fatal(err)
	}
	return h
}

// A line client that hangs up, or whose connection breaks, takes what it holds with it; what
// another connection holds stays down until that one ends too (issue 17 row 6).
func TestLineClientDisconnectReleases(t *testing.T) {
	r := newRig(t)
	defer r.assertNothingHeld()
	srv, err := line.Listen("127.0.0.1:0", r.d.LineCommands(), line.ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	t.Cleanup(func() { srv.Close() })
	holds := func(names ...string) func() bool {
		return func() bool {
			h := r.heldNow()
			for _, n := range names {
				if !slices.Contains(h, n) {
					return false
				}
			}
			return true
		}
	}
	// The pointer rests in a corner no window covers, so the held button presses nothing.
	r.send("mouse:mtp,1270,790")

	// A clean close: the commands are sent and the client hangs up at once, as controllers do.
	a := dialLines(t, srv.Addr().String())
	a.write("shiftdown:ctrl\nmouse:lbd\n")
	testdesk.WaitFor(t, 10*time.Second, "ctrl and button 1 held by the first client", holds("Control_L", "button1"))
	b := dialLines(t, srv.Addr().String())
	b.write("shiftdown:shift\n")
	testdesk.WaitFor(t, 10*time.Second, "shift held by the second client", holds("Shift_L"))
	a.c.Close()
	testdesk.WaitFor(t, 10*time.Second, "ctrl and button 1 released after the first client hung up", func() bool {
		h := r.heldNow()
		return !slices.Contains(h, "Control_L") && !slices.Contains(h, "button1")
	})
	if !slices.Contains(r.heldNow(), "Shift_L") {
		t.Fatal("the second client's shift was released when the first one hung up")
	}

	// A broken connection (reset, no FIN): the same.
	b.c.(*net.TCPConn).SetLinger(0)
	b.c.Close()
	testdesk.WaitFor(t, 10*time.Second, "everything released after the second connection was reset", func() bool {
		return len(r.heldNow()) == 0
	})

	// Sent and gone before the commands ran: they still run, then what they hold is released.
	st := r.d.Commands.Stats()
	c := dialLines(t, srv.Addr().String())
	c.write("pause:300\nshiftdown:alt\nmouse:lbd\n")
	testdesk.WaitFor(t, 10*time.Second, "the three commands queued", func() bool {
		return r.d.Commands.Stats().Accepted >= st.Accepted+3
	})
	c.c.Close()
	testdesk.WaitFor(t, 10*time.Second, "the hung-up client's commands ran", func() bool {
		return r.d.Commands.Stats().Completed >= st.Completed+3
	})
	testdesk.WaitFor(t, 10*time.Second, "alt and button 1 released after their client had gone", func() bool {
		return len(r.heldNow()) == 0
	})
}
