package tools

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
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

// A slow look is followed by as long a rest before the next one: waiting never keeps the
// application busy answering walks more than half the time, whatever wakes it meanwhile.
func TestWaitRestsAsLongAsItLooked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var began, ended []time.Time
		ok, stats, err := waitFor(context.Background(), eventlessDesktop{}, 10*time.Second, "", func(context.Context) (bool, int, error) {
			began = append(began, time.Now())
			time.Sleep(time.Second) // a walk of a big tree on a loaded machine
			ended = append(ended, time.Now())
			return false, 0, nil
		})
		if ok || err != nil {
			t.Fatalf("ok=%v err=%v, want a plain timeout", ok, err)
		}
		for i := 1; i < len(began); i++ {
			if gap := began[i].Sub(ended[i-1]); gap < time.Second {
				t.Errorf("look %d began %v after look %d, which took 1 s, ended", i+1, gap, i)
			}
		}
		if stats.Checks < 4 || stats.Checks > 6 {
			t.Errorf("%d looks of 1 s each in 10 s, want about 5", stats.Checks)
		}
	})
}
