package atspi

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcec/mcec/internal/platform/atspi/dbuswire"
)

// Call jobs: a walk's most frequent calls (GetState, the Accessible properties, GetExtents,
// short texts) are handed to the fast connection with a reply handler that runs on its reader,
// which sends the next call from there. A job run on a goroutine of its own costs a goroutine
// wake-up per call; on this kind of machine (a VM on two cores) waking threads was most of the
// client's CPU in a cold 1,500-row list (internal/dev/bench/findings.md). The reader also
// writes the calls its handlers send in one write per burst of replies (dbuswire).

// callJob is one call on the fast path and what to do with its outcome.
type callJob struct {
	ref           objRef
	iface, member string
	args          []any
	// handle gets the reply or the failure as the synchronous helpers return them; it runs on a
	// connection's reader or a timer, so it must not block. An error ends the batch (fatal
	// failures, as jobs return them).
	handle func(r *dbuswire.Reply, f failure, err error) error
}

// batch is a set of independent jobs: calls handled on the reader where the fast connection is
// up, and jobs that need a goroutine (several calls in sequence, godbus).
type batch struct {
	jobs  []job
	calls []callJob
}

// size is the number of jobs and calls in b.
func (b batch) size() int { return len(b.jobs) + len(b.calls) }

// useCalls reports whether call jobs can run: they need the fast connection.
func (c *Client) useCalls() bool { return c.fastConn() != nil }
func (w *walker) useCalls() bool { return w.c.useCalls() }

// runBatch runs b's jobs and calls at once; both share sem's bound on calls in flight (nil: a
// bound of their own). The first error ends the batch and is returned.
func (c *Client) runBatch(ctx context.Context, sem chan struct{}, b batch) error {
	if len(b.calls) == 0 {
		return run(ctx, sem, b.jobs)
	}
	if len(b.jobs) == 0 {
		return c.runCalls(ctx, sem, b.calls)
	}
	if sem == nil {
		sem = make(chan struct{}, maxInFlight)
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		jobsErr  error
		callsErr error
	)
	wg.Go(func() {
		if jobsErr = run(ctx, sem, b.jobs); jobsErr != nil {
			cancel()
		}
	})
	if callsErr = c.runCalls(ctx, sem, b.calls); callsErr != nil {
		cancel()
	}
	wg.Wait()
	return firstFailure(parent, callsErr, jobsErr)
}

// firstFailure is the error that ended a batch's two halves: when one half failed and the
// other then stopped on the cancellation that followed, the first half's. Only the caller's own
// cancellation comes back as context.Canceled (under load, a job's "window closed" once came
// back as the calls' "context canceled", answered unhandled-exception).
func firstFailure(parent context.Context, a, b error) error {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case errors.Is(a, context.Canceled) && parent.Err() == nil:
		return b
	}
	return a
}

// callRun is one runCalls in progress.
type callRun struct {
	c       *Client
	calls   []callJob
	timeout time.Duration // each call's, CallTimeout as the load stretched it when the run began
	next    atomic.Int64  // the next call to send
	left    atomic.Int64  // calls not finished (handled, abandoned or never sent)
	done    chan struct{}

	mu      sync.Mutex
	err     error            // the first error; no call is sent after it
	waiting map[int]sentCall // sent calls not answered yet, by index, to abandon on cancel
}

// runCalls sends calls on the fast connection (an application's own socket where it has one),
// keeping a window of them in flight: the window's slots come from sem, at least one and as
// many as are free, and each answered call's slot sends the next call from the reader.
func (c *Client) runCalls(ctx context.Context, sem chan struct{}, calls []callJob) error {
	if len(calls) == 0 {
		return nil
	}
	if sem == nil {
		sem = make(chan struct{}, maxInFlight)
	}
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	window := 1
fill:
	for window < len(calls) {
		select {
		case sem <- struct{}{}:
			window++
		default:
			break fill
		}
	}
	defer func() {
		for range window {
			<-sem
		}
	}()
	r := &callRun{c: c, calls: calls, timeout: c.callTimeout(), done: make(chan struct{}), waiting: make(map[int]sentCall)}
	r.left.Store(int64(len(calls)))
	for range window {
		r.sendNext()
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		r.stop(ctx.Err())
		<-r.done
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// sendNext sends the next call not yet sent, if any; a call that cannot be sent is handled at
// once, and the one after it tried.
func (r *callRun) sendNext() {
	for {
		i := int(r.next.Add(1) - 1)
		if i >= len(r.calls) {
			return
		}
		r.mu.Lock()
		failed := r.err != nil
		r.mu.Unlock()
		if failed {
			r.finish()
			continue
		}
		if r.send(i, false) {
			return
		}
	}
}

// send sends call i, to the application's socket unless viaBus; false when it could not be sent
// (it was then handled as failed).
func (r *callRun) send(i int, viaBus bool) bool {
	cj := r.calls[i]
	c := r.c
	conn, dest := c.fastConn(), cj.ref.Bus
	if pc := c.peerFor(cj.ref.Bus); pc != nil && !viaBus {
		conn, dest = pc, ""
	}
	if conn == nil {
		r.handle(i, nil, dbuswire.ErrClosed)
		return false
	}
	c.calls.Add(1)
	// The reply may come before Send returns: whichever of the two comes second keeps waiting
	// in step (a call is listed in waiting only while it has not been answered).
	var replied atomic.Bool
	serial, err := conn.Send(r.timeout, dest, string(cj.ref.Path), cj.iface, cj.member, func(rep *dbuswire.Reply, err error) {
		replied.Store(true)
		r.mu.Lock()
		delete(r.waiting, i)
		r.mu.Unlock()
		if err == dbuswire.ErrClosed && dest == "" && r.send(i, true) {
			return // the application's socket closed: the bus's answer says what became of it
		}
		if err != dbuswire.ErrClosed || dest != "" {
			r.handle(i, rep, err)
		}
		r.sendNext()
	}, cj.args...)
	if err != nil {
		if err == dbuswire.ErrClosed && dest == "" {
			return r.send(i, true)
		}
		r.handle(i, nil, err)
		return false
	}
	r.mu.Lock()
	if !replied.Load() {
		r.waiting[i] = sentCall{conn, serial}
	}
	r.mu.Unlock()
	return true
}

// sentCall is a call that waits for its reply.
type sentCall struct {
	conn   *dbuswire.Conn
	serial uint32
}

// handle converts call i's outcome as the synchronous helpers do, runs its handler and counts
// it finished.
func (r *callRun) handle(i int, rep *dbuswire.Reply, err error) {
	cj := r.calls[i]
	rep, f, err := r.c.fastResult(rep, err, r.timeout, cj.ref.Bus, cj.ref.Path, cj.iface, cj.member)
	if herr := cj.handle(rep, f, err); herr != nil {
		r.stop(herr)
	}
	r.finish()
}

// finish counts one call finished; the last one ends the run.
func (r *callRun) finish() {
	if r.left.Add(-1) == 0 {
		close(r.done)
	}
}

// stop records err (the first one wins), sends nothing more and abandons the calls still
// waiting; their handlers will not run.
func (r *callRun) stop(err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	waiting := r.waiting
	r.waiting = make(map[int]sentCall)
	r.mu.Unlock()
	for _, sc := range waiting {
		if sc.conn.Abandon(sc.serial) {
			r.finish()
		}
	}
	// Calls not sent yet are finished without sending: their slots are free now.
	for {
		i := int(r.next.Add(1) - 1)
		if i >= len(r.calls) {
			return
		}
		r.finish()
	}
}

// Helpers building the call jobs of a walk; each mirrors a synchronous helper of fastcall.go.

// statesCall reads GetState into n.info.states; onFail classifies a refused call.
func (c *Client) statesCall(n *node, onFail func(failure) failure) callJob {
	return callJob{ref: n.ref, iface: ifAccessible, member: "GetState",
		handle: func(rep *dbuswire.Reply, f failure, err error) error {
			if err != nil {
				return nodeFailure(n, onFail(f), err)
			}
			words, _ := rep.Uint32s()
			n.info.states = c.knownBridge(n.ref.Bus).normalize(bitsFrom(words))
			return nil
		}}
}

// extentsCall reads GetExtents into n.extents.
func (w *walker) extentsCall(n *node) callJob {
	n.extDone = true
	return callJob{ref: n.ref, iface: ifComponent, member: "GetExtents", args: []any{w.bridgeAt(n).coordType()},
		handle: func(rep *dbuswire.Reply, f failure, err error) error {
			if err != nil {
				return nodeFailure(n, f, err)
			}
			if r, derr := rep.Int32x4(); derr == nil {
				n.setExtents(r)
			}
			return nil
		}}
}
