package atspi

import (
	"context"
	"sync"
	"sync/atomic"
)

// maxInFlight bounds the calls one operation keeps outstanding. Toolkits answer on their main
// loop one call at a time, so more in flight only hides round-trip latency; measured on a GTK
// app, gains stop before 32. A variable only so that BenchmarkColdList can measure others.
var maxInFlight = 32

// job is one unit of pipelined work, usually one D-Bus call. It returns an error only for
// failures that end the whole operation (see failure.fatal).
type job func(ctx context.Context) error

// run executes jobs with at most maxInFlight running at once; batches that share sem (a
// walker runs several at once) share that bound. The first error cancels the rest and is
// returned; so is the caller's cancellation if it left jobs undone.
func run(parent context.Context, sem chan struct{}, jobs []job) error {
	if len(jobs) == 0 {
		return nil
	}
	if sem == nil {
		sem = make(chan struct{}, maxInFlight)
	}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	var (
		next, done atomic.Int64
		once       sync.Once
		firstErr   error
		wg         sync.WaitGroup
	)
	for range min(len(jobs), cap(sem)) {
		wg.Go(func() {
			for {
				select {
				case sem <- struct{}{}:
				case <-ctx.Done():
					return
				}
				i := int(next.Add(1) - 1)
				if i >= len(jobs) || ctx.Err() != nil {
					<-sem
					return
				}
				err := jobs[i](ctx)
				<-sem
				if err != nil {
					once.Do(func() { firstErr = err; cancel() })
					return
				}
				done.Add(1)
			}
		})
	}
	wg.Wait()
	if firstErr == nil && done.Load() < int64(len(jobs)) {
		return parent.Err()
	}
	return firstErr
}
