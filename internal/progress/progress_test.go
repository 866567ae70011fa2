package progress

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTrackReportsUntilStopped(t *testing.T) {
	var (
		mu      sync.Mutex
		updates []Update
	)
	got := make(chan struct{}, 10)
	ctx := WithReporter(context.Background(), func(u Update) {
		mu.Lock()
		updates = append(updates, u)
		mu.Unlock()
		got <- struct{}{}
	})
	tctx, stop := Track(ctx, "waiting for x", 30*time.Second)
	if !Tracked(tctx) {
		t.Fatal("not tracked")
	}
	Seen(tctx, "last seen: 2 windows")
	inner, stopInner := Track(tctx, "inner", time.Second) // the outer one keeps reporting
	Seen(inner, "last seen: 3 windows")
	stopInner()
	for range 2 {
		select {
		case <-got:
		case <-time.After(5 * Interval):
			t.Fatal("no report")
		}
	}
	stop()
	stop() // twice is fine
	mu.Lock()
	defer mu.Unlock()
	if len(updates) < 2 || updates[1].Elapsed <= updates[0].Elapsed {
		t.Fatalf("updates %+v: want two with growing elapsed", updates)
	}
	u := updates[1]
	if u.Budget != 30*time.Second || !strings.HasPrefix(u.Message, "waiting for x: ") ||
		!strings.Contains(u.Message, " of 30.0 s; last seen: 3 windows") {
		t.Errorf("update %+v", u)
	}
}

func TestUntrackedIsFree(t *testing.T) {
	ctx, stop := Track(context.Background(), "x", 0)
	defer stop()
	if Tracked(ctx) {
		t.Fatal("tracked without a reporter")
	}
	Seen(ctx, "nothing") // no panic, no effect
}
