package inputgate

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestGesturesNeverOverlap(t *testing.T) {
	g := New()
	var inside, overlaps atomic.Int32
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			release, err := g.Hold(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			if inside.Add(1) > 1 {
				overlaps.Add(1)
			}
			inside.Add(-1)
			release()
		})
	}
	wg.Wait()
	if overlaps.Load() != 0 {
		t.Fatalf("%d overlapping holders", overlaps.Load())
	}
}

func TestHoldHonoursDeadline(t *testing.T) {
	g := New()
	release, _ := g.Hold(context.Background())
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := g.Hold(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}
