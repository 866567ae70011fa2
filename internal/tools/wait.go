package tools

import (
	"context"
	"errors"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/progress"
)

// maxWait bounds every wait so one call cannot hold a connection for ever.
const maxWait = 10 * time.Minute

// checkTimeout validates a wait's timeout in milliseconds: bad-arguments outside 0 to maxWait.
func checkTimeout(ms int) error {
	if ms < 0 || time.Duration(ms)*time.Millisecond > maxWait {
		return contract.Errorf(contract.CodeBadArguments, "timeout must be 0 to %d ms, got %d", maxWait.Milliseconds(), ms)
	}
	return nil
}

// pollFallback is how often a wait re-checks when no event woke it: events are the fast path,
// polling only covers changes a toolkit does not announce.
const pollFallback = 250 * time.Millisecond

// WaitStats tells how a wait went; eventWakeups shows the event path at work.
type WaitStats struct {
	WaitedMs     int64 `json:"waitedMs"`
	Checks       int   `json:"checks"`
	EventWakeups int   `json:"eventWakeups"`
}

// checkFunc is one attempt: done when the condition holds; pid is the process whose
// accessibility events should wake the next attempt (0 while unknown).
type checkFunc func(ctx context.Context) (done bool, pid int, err error)

// waitFor runs check until it holds or timeout passes, re-checking on window events and on the
// accessibility events of the process check names, and polling as a fallback. Transient
// failures (the window not there yet, an app not answering) keep the wait going; the last one is
// returned with a timeout so the caller can say what it saw. Other errors end the wait at once.
// A wait the agent asked for names what it waits for ("waiting for …"), which progress reports
// carry with what the checks last saw (progress.Seen; a transient failure's detail by
// default); internal waits pass "".
func waitFor(ctx context.Context, d desktopReader, timeout time.Duration, what string, check checkFunc) (ok bool, stats WaitStats, err error) {
	start := time.Now()
	if what != "" {
		var stop func()
		ctx, stop = progress.Track(ctx, what, timeout)
		defer stop()
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	defer func() { stats.WaitedMs = time.Since(start).Milliseconds() }()

	windowEvents, err := d.WatchWindows(ctx)
	if err != nil {
		windowEvents = nil // polling still works
	}
	var (
		tree    treeWatch
		lastErr error
	)
	defer tree.stop()
	poll := time.NewTicker(pollFallback)
	defer poll.Stop()
	for {
		stats.Checks++
		began := time.Now()
		done, pid, err := check(ctx)
		if cause := stopCause(ctx); cause != nil {
			return false, stats, cause
		}
		if err != nil && (ctx.Err() != nil || nearDeadline(ctx)) {
			return false, stats, lastErr // the wait's own deadline cut this attempt short
		}
		if err != nil && !transient(err) {
			return false, stats, err
		}
		lastErr = err
		if err != nil && progress.Tracked(ctx) {
			progress.Seen(ctx, "last attempt: "+err.Error())
		}
		if done {
			return true, stats, nil
		}
		tree.follow(ctx, d, pid)
		if !rest(ctx, time.Since(began)) {
			if cause := stopCause(ctx); cause != nil {
				return false, stats, cause
			}
			return false, stats, lastErr
		}
		select {
		case <-ctx.Done():
			if cause := stopCause(ctx); cause != nil {
				return false, stats, cause
			}
			return false, stats, lastErr
		case <-windowEvents:
			stats.EventWakeups++
		case _, open := <-tree.events:
			if !open { // the watch ended under us: follow starts a new one, polling covers the gap
				tree.stop()
				continue
			}
			stats.EventWakeups++
		case <-poll.C:
		}
	}
}

// rest gives the application as long to itself as the last look at it took before the next
// one starts (false: ctx ended first). A look is a walk the application answers on its main
// loop; on a loaded machine one took seconds, and with changes announcing themselves all the
// time (a list being filtered) walks ran back to back, leaving the application's own
// lower-priority work (filtering, layout) little room: a GTK 4 list watched that way was still
// unfiltered after 10 s beside a second make test. Quick looks cost nothing here: a 20 ms walk
// rests 20 ms.
func rest(ctx context.Context, took time.Duration) bool {
	t := time.NewTimer(took)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// treeWatch follows the accessibility events of the process a wait is about, which can change
// (a window that appears, a ref's owner).
type treeWatch struct {
	pid    int
	events <-chan struct{}
	cancel context.CancelFunc
}

func (tw *treeWatch) follow(ctx context.Context, d platform.TreeReader, pid int) {
	if pid <= 0 || pid == tw.pid {
		return
	}
	tw.stop()
	wctx, cancel := context.WithCancel(ctx)
	events, err := d.WatchTree(wctx, pid)
	if err != nil {
		cancel()
		return // polling covers it
	}
	tw.pid, tw.events, tw.cancel = pid, events, cancel
}

// stop ends the watch and forgets it, so a closed channel is never selected on.
func (tw *treeWatch) stop() {
	if tw.cancel != nil {
		tw.cancel()
	}
	*tw = treeWatch{}
}

// stopCause is the reason ctx was cancelled when that reason is one for the agent (a contract
// error, such as the server shutting down): the wait then ends with it, not as a timeout.
func stopCause(ctx context.Context) error {
	var ce *contract.Error
	if ctx.Err() != nil && errors.As(context.Cause(ctx), &ce) {
		return ce
	}
	return nil
}

// nearDeadline reports whether ctx's deadline is all but reached: a call that failed on its own
// timer a moment before ctx's fires was cut short by the same deadline.
func nearDeadline(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && time.Until(d) < 20*time.Millisecond
}

// transient reports failures a wait outlives: the target not there yet, or not answering.
func transient(err error) bool {
	var ce *contract.Error
	if !errors.As(err, &ce) {
		return false
	}
	switch ce.Code {
	case contract.CodeWindowNotFound, contract.CodeAppNotResponding, contract.CodeNoAccessibleTree, contract.CodeTreeNotReady:
		return true
	}
	return false
}
