// Package dispatch is the one path every tool call takes, whatever the transport: it finds the
// tool, routes the call to its session, runs the handler with panics contained, and turns the
// outcome into the contract's envelope with the session's memory attached.
package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/errmap"
	"github.com/mcec/mcec/internal/session"
)

// transportKey carries the name of the transport a call arrived on.
type transportKey struct{}

// WithTransport names the transport ("stdio", "http", "facade", "tcp", …) calls made with the
// returned context arrived on, for the audit log.
func WithTransport(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, transportKey{}, name)
}

// TransportOf is the transport named by WithTransport, or "" when none was.
func TransportOf(ctx context.Context) string {
	s, _ := ctx.Value(transportKey{}).(string)
	return s
}

// sessionKey carries the id of the session a call runs in.
type sessionKey struct{}

// WithSessionID names the session calls made with the returned context run in (the dispatcher
// does so for each call before admission).
func WithSessionID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, sessionKey{}, id)
}

// SessionIDOf is the id of the session the call runs in, "" outside a tool call (the line
// protocol) and for the tools that manage sessions. The admission chain reads it: the
// operator's consent may be granted to one session.
func SessionIDOf(ctx context.Context) string {
	s, _ := ctx.Value(sessionKey{}).(string)
	return s
}

// ErrUnknownTool is a protocol fault (JSON-RPC error, HTTP 404), not a tool outcome.
var ErrUnknownTool = errors.New("unknown tool")

// ErrShuttingDown is the cause Shutdown cancels the calls in flight with, and the refusal of
// calls that arrive after it: internal / server-shutting-down. A wait cut short by it must not
// read as a timeout, nor a D-Bus call it interrupts as a hung app.
var ErrShuttingDown = contract.Errorf(contract.CodeServerShuttingDown,
	"mcec is shutting down, so the call was stopped (or not started); reconnect when it runs again and observe before retrying")

// Outcome is an envelope plus what only some transports carry.
type Outcome struct {
	Envelope contract.Envelope
	Image    *catalog.Image
	// Link, when set, is an artifact the transport may answer with as a link (MCP
	// resource_link) instead of inline bytes.
	Link *catalog.Link
	// Session is the session the call ran in (nil when it named an unknown one): MCP serves
	// its artifacts as resources to the client that called in it.
	Session *session.Session
}

// Dispatcher runs tool calls. It is safe for concurrent use; observation calls run concurrently.
type Dispatcher struct {
	catalog  *catalog.Catalog
	sessions *session.Store
	log      *slog.Logger
	observer Observer
	audit    Observer
	watchers []Observer // told after the two above (the operator console's narration)
	admit    Admission
	notices  Notices
	framer   Framer

	life     context.Context // ends, with ErrShuttingDown as its cause, at Shutdown
	stop     context.CancelCauseFunc
	mu       sync.Mutex
	stopping bool
	calls    sync.WaitGroup // calls in flight, counted only before Shutdown
	drained  chan struct{}  // closed once the calls in flight at Shutdown have returned
	gaveUp   bool           // a Shutdown's wait ran out before they did
}

// Finished describes one finished call for an Observer.
type Finished struct {
	// Session is the session the call ran in (the new one for session-start); nil when the call
	// named an unknown or ended session.
	Session *session.Session
	Tool    string
	// Args are the arguments as received, sessionId included.
	Args     json.RawMessage
	Outcome  Outcome
	Start    time.Time
	Duration time.Duration
	// Frames are the pictures of the screen kept just before and after an acting call, when
	// the operator asked for them (SetFramer); the evidence recorder writes them.
	Frames []Frame
}

// Frame is a small picture of the screen kept as evidence of what an acting call saw and did.
type Frame struct {
	When string // "before" or "after"
	JPEG []byte
	// X and Y are the screen position of the picture's top-left pixel, and Scale its size
	// relative to the screen, so that a point on the screen can be drawn on it.
	X, Y  int
	Scale float64
}

// Framer takes the frames kept around acting calls.
type Framer interface {
	Frame(ctx context.Context) (*Frame, error)
}

// SetFramer makes every acting call (a tool not marked read-only, in a session) keep a frame
// just before and just after it runs; nil keeps none. Call it before serving.
func (d *Dispatcher) SetFramer(f Framer) { d.framer = f }

// frameBudget bounds one frame's grab and encoding: a slow screen costs the call at most this,
// twice, and the frame is then left out.
const frameBudget = 2 * time.Second

// keepFrame appends a frame taken now to frames; a frame that cannot be taken is left out.
func (d *Dispatcher) keepFrame(ctx context.Context, when string, frames []Frame) []Frame {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), frameBudget)
	defer cancel()
	f, err := d.framer.Frame(ctx)
	if err != nil || f == nil {
		d.log.Debug("no frame kept", "when", when, "err", err)
		return frames
	}
	f.When = when
	return append(frames, *f)
}

// Observer is told about every finished call (unknown tools aside): evidence recording is
// middleware here, so tools and transports never repeat it, and the dispatcher knows nothing of
// files. It runs on the caller's goroutine once the envelope is final and the session has
// recorded the call; it must be safe for concurrent use and must not block for long.
type Observer interface {
	CallFinished(ctx context.Context, f Finished)
}

// SetObserver installs o (nil removes it). Call it before serving.
func (d *Dispatcher) SetObserver(o Observer) { d.observer = o }

// Watch adds o to the observers told about every finished call, after the audit log and the
// evidence recorder. Call it before serving.
func (d *Dispatcher) Watch(o Observer) { d.watchers = append(d.watchers, o) }

// Admission judges a call before anything of it runs (internal/admission: the emergency stop,
// the consent freeze, the operator's policy, in that order, the same chain raw commands pass).
// A refusal (a *contract.Error) becomes the envelope without the handler ever being called.
// Judging here, once, means no tool and no transport can forget it.
type Admission interface {
	Admit(ctx context.Context, tool *catalog.Tool) error
}

// SetAdmission installs a (nil admits everything). Call it before serving.
func (d *Dispatcher) SetAdmission(a Admission) { d.admit = a }

// Notices are warnings owed to a session about what happened outside its calls (the operator's
// take-over, internal/takeover): each is given once, on the session's next call, whatever it is.
type Notices interface {
	For(session string, started time.Time) []contract.Warning
}

// SetNotices installs n (nil: none). Call it before serving.
func (d *Dispatcher) SetNotices(n Notices) { d.notices = n }

// SetAudit installs the audit log's observer (internal/safety), told about every finished call,
// refused or not, before the evidence observer. Call it before serving.
func (d *Dispatcher) SetAudit(o Observer) { d.audit = o }

// New returns a dispatcher over a built catalog and a session store.
func New(cat *catalog.Catalog, sessions *session.Store, log *slog.Logger) *Dispatcher {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	life, stop := context.WithCancelCause(context.Background())
	return &Dispatcher{catalog: cat, sessions: sessions, log: log, life: life, stop: stop}
}

// Shutdown ends the calls in flight, whose contexts are cancelled with ErrShuttingDown as the
// cause, and refuses later calls with it; it returns once the calls in flight have returned
// (their envelopes say server-shutting-down) or ctx ends. Transports call it before they close,
// so the answers still reach the clients. It may be called more than once: once a wait has run
// out, a later one waits at most lateDrain, so the waits of a shutdown's steps (the transport's,
// then the daemon's) do not add up behind a call that ignores its cancellation.
func (d *Dispatcher) Shutdown(ctx context.Context) error {
	d.mu.Lock()
	d.stopping = true
	if d.drained == nil {
		d.drained = make(chan struct{})
		go func() {
			d.calls.Wait()
			close(d.drained)
		}()
	}
	drained, gaveUp := d.drained, d.gaveUp
	d.mu.Unlock()
	d.stop(ErrShuttingDown)
	if gaveUp {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lateDrain)
		defer cancel()
	}
	select {
	case <-drained:
		return nil
	case <-ctx.Done():
		d.mu.Lock()
		d.gaveUp = true
		d.mu.Unlock()
		return ctx.Err()
	}
}

// lateDrain bounds a Shutdown's wait once an earlier one has run out.
const lateDrain = time.Second

// enter counts a call in flight, or reports that the dispatcher is shutting down.
func (d *Dispatcher) enter() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopping {
		return false
	}
	d.calls.Add(1)
	return true
}

// Catalog is the tool catalog the dispatcher serves.
func (d *Dispatcher) Catalog() *catalog.Catalog { return d.catalog }

// Call runs the named tool with raw JSON arguments. The only error it returns is ErrUnknownTool;
// every other outcome, including malformed arguments, is an envelope.
func (d *Dispatcher) Call(ctx context.Context, name string, args json.RawMessage) (Outcome, error) {
	tool, ok := d.catalog.Lookup(name)
	if !ok {
		return Outcome{}, fmt.Errorf("%w %q", ErrUnknownTool, name)
	}
	start := time.Now()
	var refused error
	if d.enter() {
		defer d.calls.Done()
	} else {
		refused = ErrShuttingDown
	}
	// The call ends with the dispatcher's life too, and sees why (context.Cause).
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(d.life, func() { cancel(context.Cause(d.life)) })()
	requested, rest, argErr := splitSessionID(args)
	call := &catalog.Call{RequestedSessionID: requested}
	var unknownSession error
	if !tool.ManagesSessions {
		// Resolved before admission, which may know grants of this session only.
		call.Session, unknownSession = d.sessions.Resolve(requested)
		if call.Session != nil {
			ctx = WithSessionID(ctx, call.Session.ID())
		}
	}
	if refused == nil {
		refused = d.allow(ctx, tool)
	}
	if !tool.ManagesSessions {
		if unknownSession != nil && refused == nil {
			env := contract.Failure(requested, contract.Errorf(contract.CodeUnknownSession,
				"session %q is unknown or has ended; omit sessionId for the default session or call session-start", requested))
			out := Outcome{Envelope: env}
			d.notify(ctx, Finished{Tool: name, Args: args, Outcome: out, Start: start, Duration: time.Since(start)})
			return out, nil
		}
	}
	var (
		resp *catalog.Response
		err  = argErr
	)
	if refused != nil {
		err = refused
	}
	var frames []Frame
	keepFrames := err == nil && d.framer != nil && !tool.Annotations.ReadOnly && call.Session != nil
	if keepFrames {
		frames = d.keepFrame(ctx, "before", frames)
	}
	if err == nil {
		resp, err = d.run(ctx, tool, call, rest)
	}
	if keepFrames {
		frames = d.keepFrame(ctx, "after", frames)
	}
	sess := call.Session
	if resp != nil && resp.Session != nil {
		sess = resp.Session
	}
	out := d.envelope(ctx, sess, requested, resp, err)
	out.Session = sess
	elapsed := time.Since(start)
	if sess != nil {
		sess.RecordAction(session.Action{Tool: name, OK: out.Envelope.OK(), Code: codeOf(out.Envelope),
			DurationMs: float64(elapsed.Microseconds()) / 1000}, out.Envelope.Err())
	}
	d.notify(ctx, Finished{Session: sess, Tool: name, Args: args, Outcome: out, Start: start, Duration: elapsed, Frames: frames})
	d.log.Debug("tool call", "tool", name, "session", out.Envelope.SessionID(), "ok", out.Envelope.OK(),
		"code", codeOf(out.Envelope), "ms", elapsed.Milliseconds())
	return out, nil
}

// allow asks the admission chain.
func (d *Dispatcher) allow(ctx context.Context, tool *catalog.Tool) error {
	if d.admit == nil {
		return nil
	}
	return d.admit.Admit(ctx, tool)
}

// notify hands a finished call to the observer; a panicking observer never fails the call.
func (d *Dispatcher) notify(ctx context.Context, f Finished) {
	for _, o := range append([]Observer{d.audit, d.observer}, d.watchers...) {
		if o != nil {
			d.notifyOne(ctx, o, f)
		}
	}
}

func (d *Dispatcher) notifyOne(ctx context.Context, o Observer, f Finished) {
	defer func() {
		if p := recover(); p != nil {
			d.log.Error("call observer panicked", "tool", f.Tool, "panic", p, "stack", string(debug.Stack()))
		}
	}()
	o.CallFinished(ctx, f)
}

// run calls the handler and contains panics: one broken call never takes the server down.
func (d *Dispatcher) run(ctx context.Context, tool *catalog.Tool, call *catalog.Call, args json.RawMessage) (resp *catalog.Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			d.log.Error("tool panicked", "tool", tool.Name, "panic", p, "stack", string(debug.Stack()))
			resp, err = nil, contract.Errorf(contract.CodeUnhandledException, "%s failed unexpectedly: %v", tool.Name, p)
		}
	}()
	return tool.Handler(ctx, call, args)
}

// envelope builds the contract envelope. sess is nil only when a session-managing tool failed
// before binding one; the envelope then carries the requested id (or the default session's).
func (d *Dispatcher) envelope(ctx context.Context, sess *session.Session, requested string, resp *catalog.Response, err error) Outcome {
	if sess == nil && requested == "" {
		sess, _ = d.sessions.Resolve("")
	}
	id := requested
	if sess != nil {
		id = sess.ID()
	}
	var warnings []contract.Warning
	if resp != nil {
		warnings = resp.Warnings
	}
	if d.notices != nil && sess != nil {
		warnings = append(warnings, d.notices.For(sess.ID(), sess.Started())...)
	}
	if err != nil {
		cerr := asContractError(ctx, err)
		if cerr.LastObservation == nil && sess != nil {
			cerr.LastObservation = sess.LastObservation()
		}
		return Outcome{Envelope: contract.Failure(id, cerr, warnings...)}
	}
	if resp == nil {
		resp = &catalog.Response{}
	}
	if resp.Observation != nil && sess != nil {
		sess.Observe(resp.Observation)
	}
	return Outcome{Envelope: contract.Success(id, resp.Result, warnings...), Image: resp.Image, Link: resp.Link}
}

// asContractError finds the contract error in err's chain, or files err under internal. A call
// whose context was cancelled with a contract error as the cause (ErrShuttingDown) failed for
// that reason, whatever the tool made of the cancellation (a wait's timeout, a D-Bus call's
// deadline). The returned error is a copy, so attaching lastObservation never mutates a shared
// value.
//
// A call whose caller cancelled it (MCP notifications/cancelled, an HTTP client gone: the
// context ends with plain context.Canceled) and that failed failed for that reason: a wait cut
// short is not a timeout. One that succeeded all the same keeps its result: what it did is
// done.
func asContractError(ctx context.Context, err error) *contract.Error {
	var ce *contract.Error
	if ctx.Err() != nil && errors.As(context.Cause(ctx), &ce) {
		c := *ce
		if !errors.Is(err, ce) {
			c.Detail += fmt.Sprintf(" (the call ended with: %v)", err)
		}
		return &c
	}
	if errors.Is(context.Cause(ctx), context.Canceled) {
		return contract.Errorf(contract.CodeCallCancelled,
			"the client cancelled the call before it finished (it ended with: %v); what it did before may have taken effect: observe before retrying", err)
	}
	return errmap.ToContract(err, errmap.Tools)
}

// splitSessionID removes sessionId from the arguments object so tools never see it.
func splitSessionID(args json.RawMessage) (string, json.RawMessage, error) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return "", json.RawMessage("{}"), nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &fields); err != nil {
		return "", nil, contract.Errorf(contract.CodeBadArguments, "arguments must be a JSON object: %v", err)
	}
	raw, ok := fields["sessionId"]
	if !ok {
		return "", trimmed, nil
	}
	var id string
	if err := json.Unmarshal(raw, &id); err != nil {
		return "", nil, contract.Errorf(contract.CodeBadArguments, "argument \"sessionId\" must be a string")
	}
	delete(fields, "sessionId")
	rest, err := json.Marshal(fields)
	if err != nil {
		return "", nil, contract.Errorf(contract.CodeBadArguments, "%v", err)
	}
	return id, rest, nil
}

func codeOf(env contract.Envelope) string {
	if e := env.Err(); e != nil {
		return string(e.Code)
	}
	return ""
}
