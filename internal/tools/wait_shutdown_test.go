package tools

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/platform"
)

// eventlessDesktop has no window or tree events: waits poll.
type eventlessDesktop struct{ platform.Desktop }

func (eventlessDesktop) WatchWindows(context.Context) (<-chan struct{}, error) {
	return nil, errors.New("no events")
}

func (eventlessDesktop) WatchTree(context.Context, int) (<-chan struct{}, error) {
	return nil, errors.New("no events")
}

// Issue 17 row 11: a wait whose call is cancelled with a reason for the agent (the server
// shutting down) ends with that reason, not as its own timeout (wait-for) or as a wait that
// merely did not hold (windows' satisfied: false).
func TestWaitEndsWithTheCancellationsReason(t *testing.T) {
	shutdown := contract.Errorf(contract.CodeServerShuttingDown, "stopping")
	ctx, cancel := context.WithCancelCause(context.Background())
	checks := 0
	ok, _, err := waitFor(ctx, eventlessDesktop{}, 10*time.Second, "", func(context.Context) (bool, int, error) {
		checks++
		if checks == 1 {
			cancel(shutdown)
		}
		return false, 0, nil
	})
	if ok || !errors.Is(err, shutdown) {
		t.Fatalf("ok=%v err=%v, want the shutdown as the error", ok, err)
	}
	// A plain cancellation (the client went away) is still no error of its own.
	ctx, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	if ok, _, err := waitFor(ctx, eventlessDesktop{}, 10*time.Second, "", func(context.Context) (bool, int, error) { return false, 0, nil }); ok || err != nil {
		t.Fatalf("ok=%v err=%v after the caller's deadline", ok, err)
	}
}
