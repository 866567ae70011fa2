package evidence

import (
	"bytes"
	"runtime/debug"

	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/session"
)

// Calls are recorded off their path: CallFinished queues a call for its session, and one
// goroutine per session with calls queued records them in the order they finished, so a
// response no longer waits for its evidence (a warm query's pair of trace lines is ≈ 50 KB to
// redact, hash and append: about a tenth of the call). Two calls are recorded before
// CallFinished returns, after everything queued for their session: a call that ended its
// session (session-end answers with the session's evidence final) and any call once Close has
// begun. Settle, Flush and Close wait for the queues. A server killed outright loses the calls
// still queued, at most the few finished in the last moments, as it could lose a write cut
// short before.

// callQueue is one session's calls waiting to be recorded; its fields are guarded by
// Recorder.qmu.
type callQueue struct {
	calls   []queuedCall
	running bool          // a goroutine is recording them
	idle    chan struct{} // closed when the goroutine stops; nil while none ever ran
}

type queuedCall struct {
	f  dispatch.Finished
	st session.Status // the session as it was when the call finished
}

// enqueue queues f, or records it at once after its session's queue when it ended the session
// or the recorder is closing.
func (r *Recorder) enqueue(f dispatch.Finished, st session.Status) {
	// The transport may reuse the request's buffer once the call has returned.
	f.Args = bytes.Clone(f.Args)
	id := f.Session.ID()
	if st.Ended || r.final.Load() {
		r.settle(id)
		r.recordSafely(f, st)
		return
	}
	r.qmu.Lock()
	defer r.qmu.Unlock()
	if r.queues == nil {
		r.queues = map[string]*callQueue{}
	}
	q := r.queues[id]
	if q == nil {
		q = &callQueue{}
		r.queues[id] = q
	}
	q.calls = append(q.calls, queuedCall{f: f, st: st})
	if q.running {
		return
	}
	q.running, q.idle = true, make(chan struct{})
	r.pending.Add(1)
	go r.drain(id, q)
}

// drain records q's calls until none is left, then forgets q.
func (r *Recorder) drain(id string, q *callQueue) {
	defer r.pending.Done()
	for {
		r.qmu.Lock()
		if len(q.calls) == 0 {
			q.running = false
			close(q.idle)
			delete(r.queues, id)
			r.qmu.Unlock()
			return
		}
		c := q.calls[0]
		q.calls[0] = queuedCall{}
		q.calls = q.calls[1:]
		r.qmu.Unlock()
		r.recordSafely(c.f, c.st)
	}
}

// recordSafely records one call; a panic costs that call's evidence, never the server (the
// dispatcher's own recovery does not reach the queue's goroutine).
func (r *Recorder) recordSafely(f dispatch.Finished, st session.Status) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("evidence: recording a call panicked", "tool", f.Tool, "panic", p, "stack", string(debug.Stack()))
		}
	}()
	r.recordCall(f, st)
}

// settle waits until the calls queued for session id so far are recorded.
func (r *Recorder) settle(id string) {
	r.qmu.Lock()
	q := r.queues[id]
	var idle chan struct{}
	if q != nil && q.running {
		idle = q.idle
	}
	r.qmu.Unlock()
	if idle != nil {
		<-idle
	}
}

// Settle waits until every call finished so far is recorded (session.json still follows its
// checkpoints; Flush writes it too).
func (r *Recorder) Settle() {
	r.qmu.Lock()
	var idle []chan struct{}
	for _, q := range r.queues {
		if q.running {
			idle = append(idle, q.idle)
		}
	}
	r.qmu.Unlock()
	for _, c := range idle {
		<-c
	}
}
