package inputgate

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform/fake"
)

var errStopped = errors.New("emergency-stopped")

// latch is a minimal emergency stop: Trip cancels the gestures it handed out.
type latch struct {
	mu       sync.Mutex
	stopped  bool
	gestures []context.CancelFunc
}

func (l *latch) Gesture(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		cancel()
	}
	l.gestures = append(l.gestures, cancel)
	return ctx, cancel
}

func (l *latch) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return errStopped
	}
	return nil
}

func (l *latch) Trip() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
	for _, c := range l.gestures {
		c()
	}
}

func TestGesturesNeverOverlap(t *testing.T) {
	g := New(nil, nil)
	var inside, overlaps atomic.Int32
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			h, err := g.Gesture(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			if inside.Add(1) > 1 {
				overlaps.Add(1)
			}
			inside.Add(-1)
			h.Release()
		})
	}
	wg.Wait()
	if overlaps.Load() != 0 {
		t.Fatalf("%d overlapping holders", overlaps.Load())
	}
}

func TestHoldHonoursDeadline(t *testing.T) {
	g := New(nil, nil)
	release, _ := g.Freeze(context.Background())
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := g.Gesture(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}

// The hold is the way to input, and the stop reaches every hold: a trip cancels the gesture in
// progress (which reports the stop), refuses new gestures, and still lets clean-up release keys.
func TestTheStopReachesEveryHold(t *testing.T) {
	d := fake.New(fake.Options{})
	defer d.Close()
	stop := &latch{}
	g := New(d.Input(), stop)
	h, err := g.Gesture(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h.Input() == nil {
		t.Fatal("a hold without input")
	}
	stop.Trip()
	select {
	case <-h.Context().Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the trip did not cancel the gesture in progress")
	}
	if err := h.Stopped(h.Context().Err()); !errors.Is(err, errStopped) {
		t.Errorf("a gesture the stop cut reports %v", err)
	}
	h.Release()
	if _, err := g.Gesture(context.Background()); !errors.Is(err, errStopped) {
		t.Errorf("a gesture while stopped: %v", err)
	}
	c, err := g.Cleanup(context.Background())
	if err != nil {
		t.Fatalf("clean-up while stopped: %v", err)
	}
	if c.Context().Err() != nil || c.Input() == nil {
		t.Error("the clean-up hold is cut or has no input")
	}
	c.Release()
}

func TestStoppedPassesOtherFailures(t *testing.T) {
	g := New(nil, &latch{})
	h, err := g.Gesture(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	boom := errors.New("boom")
	if err := h.Stopped(boom); err != boom {
		t.Errorf("got %v", err)
	}
}
