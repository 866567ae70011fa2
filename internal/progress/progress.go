// Package progress carries a long call's progress from the tool doing the work to the transport
// that can tell the client (MCP notifications/progress). Tools say what they wait for, with
// what budget, and what they last saw; a transport that has somewhere to send it installs a
// Reporter. Without one every function here costs a context lookup and nothing more.
package progress

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Update is one report: Elapsed grows from one report to the next, as MCP requires.
type Update struct {
	Elapsed time.Duration
	Budget  time.Duration // 0 when the call has no bound of its own
	Message string        // what the call waits for, elapsed and budget, and what it last saw
}

// Reporter receives a call's updates, on a goroutine of this package; it must not block long.
type Reporter func(Update)

// Interval is how often a tracked call reports.
const Interval = time.Second

type reporterKey struct{}
type trackerKey struct{}

// WithReporter returns a context whose tracked work reports to r.
func WithReporter(ctx context.Context, r Reporter) context.Context {
	return context.WithValue(ctx, reporterKey{}, r)
}

// tracker is one tracked piece of work.
type tracker struct {
	what   string
	budget time.Duration
	start  time.Time

	mu   sync.Mutex
	seen string
}

// Track reports, every Interval until stop is called or ctx ends, that the call is doing what
// (a phrase: "waiting for button \"OK\" to appear") with budget (0: none), and the last state
// given to Seen. Nested tracking keeps the outer one: the call reports one thing at a time.
func Track(ctx context.Context, what string, budget time.Duration) (context.Context, func()) {
	r, _ := ctx.Value(reporterKey{}).(Reporter)
	if r == nil || ctx.Value(trackerKey{}) != nil {
		return ctx, func() {}
	}
	t := &tracker{what: what, budget: budget, start: time.Now()}
	ctx = context.WithValue(ctx, trackerKey{}, t)
	done, exited := make(chan struct{}), make(chan struct{})
	var once sync.Once
	go func() {
		defer close(exited)
		tick := time.NewTicker(Interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				r(t.update())
			}
		}
	}()
	// stop returns once no report is being sent: none follows the call's answer.
	return ctx, func() {
		once.Do(func() { close(done) })
		<-exited
	}
}

// Seen records the state a tracked call last saw, as a phrase that says so ("last seen: 2
// windows, none titled Save"); the next report carries it. It does nothing when ctx is not tracked.
func Seen(ctx context.Context, state string) {
	if t, ok := ctx.Value(trackerKey{}).(*tracker); ok {
		t.mu.Lock()
		t.seen = state
		t.mu.Unlock()
	}
}

// Tracked reports whether someone listens: callers skip building a costly state otherwise.
func Tracked(ctx context.Context) bool {
	return ctx.Value(trackerKey{}) != nil
}

func (t *tracker) update() Update {
	t.mu.Lock()
	seen := t.seen
	t.mu.Unlock()
	el := time.Since(t.start)
	msg := fmt.Sprintf("%s: %.1f s", t.what, el.Seconds())
	if t.budget > 0 {
		msg += fmt.Sprintf(" of %.1f s", t.budget.Seconds())
	}
	if seen != "" {
		msg += "; " + seen
	}
	return Update{Elapsed: el, Budget: t.budget, Message: msg}
}
