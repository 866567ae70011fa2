// Package evidence records what happens in each session so that a failed run can be understood
// without rerunning it: the call trace (tool-calls.jsonl, hash-chained), session.json,
// environment.json and failure-summary.md in the session's artifact directory. It also bundles a
// session directory into a zip, verifies a trace's hash chain, and prunes old session
// directories. Replaying a recording is internal/evidence/replay's; when the default session rolls
// over is the session store's (it asks the store to roll a session whose trace is full).
//
// The Recorder is dispatch middleware (a dispatch.Observer): the daemon installs it, tools and
// transports never call it. Every evidence file but the append-only trace is written atomically.
package evidence

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcec/mcec/internal/atomicfile"
	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/session"
)

// Evidence file names in a session directory.
const (
	SessionFile     = "session.json"
	EnvironmentFile = "environment.json"
	SummaryFile     = "failure-summary.md"
)

// Defaults (PRODUCT.md §8: trace cap 8 MB per session).
const (
	DefaultMaxTraceBytes = 8 << 20
	// recentActions is how many calls session.json and failure-summary.md list.
	recentActions = 10
	// reprobeEvery bounds how often a failure re-reads the environment (toolkits seen).
	reprobeEvery = 10 * time.Second
	probeTimeout = 5 * time.Second
	// checkpointEvery bounds how often session.json is rewritten while a session runs: encoding
	// and replacing it after every call was most of a trivial call's cost under load
	// (internal/dev/bench/findings.md). It is written at once when the session ends and at Close.
	checkpointEvery = 250 * time.Millisecond
)

// Probe is what the environment record reads from the desktop; platform.Desktop satisfies it.
type Probe interface {
	Displays(ctx context.Context) (platform.Displays, error)
	WindowManager(ctx context.Context) (string, error)
	Apps(ctx context.Context) ([]platform.App, error)
}

// Options configures a Recorder. Zero values mean the defaults.
type Options struct {
	// Root is the sessions directory (pruned by Retention).
	Root string
	// Sessions is told when the default session's trace is full, so that it rolls over (the
	// store also rolls it over after a number of calls, session.Options.RolloverCalls); nil: a
	// full trace stays full.
	Sessions *session.Store
	// Probe reads displays, window manager and toolkits for environment.json; nil leaves them out.
	Probe Probe
	// Version is mcec's version; Desktop says "private" or "attached".
	Version, Desktop string
	// MaxTraceBytes caps tool-calls.jsonl (default 8 MiB).
	MaxTraceBytes int64
	// WithholdTypedText leaves every typed and pasted text out of the evidence (the fields
	// tools mark with a catalog.Withhold note), not only what went into password fields.
	WithholdTypedText bool
	Retention         Retention
	Log               *slog.Logger
	Now               func() time.Time
}

// Recorder writes each session's evidence. It is safe for concurrent use.
type Recorder struct {
	opts Options
	log  *slog.Logger
	now  func() time.Time

	mu      sync.Mutex
	logs    map[string]*sessionLog // live sessions seen so far, by id
	closed  bool
	final   atomic.Bool    // Close began: session.json is written with every call again
	pending sync.WaitGroup // environment probes, prunes, checkpoints and call queues in flight
	pruning atomic.Bool

	qmu    sync.Mutex
	queues map[string]*callQueue // sessions with calls waiting to be recorded, by id (queue.go)
}

var _ dispatch.Observer = (*Recorder)(nil)

// New returns a recorder and prunes the sessions directory once (start-up retention).
func New(opts Options) *Recorder {
	if opts.MaxTraceBytes <= 0 {
		opts.MaxTraceBytes = DefaultMaxTraceBytes
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	r := &Recorder{opts: opts, log: opts.Log, now: opts.Now, logs: map[string]*sessionLog{}}
	r.prune()
	return r
}

// Close writes every session's pending session.json checkpoint and waits for background work
// (environment probes, pruning) so that the desktop can be closed after it. Calls recorded
// afterwards are still written, session.json with each; no probe starts.
func (r *Recorder) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.final.Store(true)
	r.Flush()
	r.pending.Wait()
	return nil
}

// Flush records every call finished so far and writes session.json now for every live session
// with calls not yet in it.
func (r *Recorder) Flush() {
	r.Settle()
	r.mu.Lock()
	logs := make([]*sessionLog, 0, len(r.logs))
	for _, lg := range r.logs {
		logs = append(logs, lg)
	}
	r.mu.Unlock()
	for _, lg := range logs {
		r.checkpoint(lg)
	}
}

// sessionLog is the recorder's state for one session. mu serializes its writes: the trace's
// lines are in the order calls reach the recorder, which is completion order.
type sessionLog struct {
	mu     sync.Mutex
	gone   bool // finalized and dropped from the map; look the session up again
	id     string
	dir    string
	sess   *session.Session
	state  fileState
	env    *Environment
	probed time.Time

	// session.json checkpoints. gen counts changes to the recording; timer is the pending
	// checkpoint (nil when none); lastWrite is when the latest one was taken.
	gen       uint64
	timer     *time.Timer
	lastWrite time.Time
	// wmu orders session.json writes, which happen outside mu; written is the gen on disk.
	wmu     sync.Mutex
	written atomic.Uint64
}

// fileState is what session.json keeps about the recording, enough to resume it.
type fileState struct {
	Trace         TraceState    `json:"trace"`
	RecentActions []ActionEntry `json:"recentActions,omitempty"`
	Artifacts     []string      `json:"artifacts"`
	EndedReason   string        `json:"endedReason,omitempty"`
	LastFailure   *Failure      `json:"lastFailure,omitempty"`
}

// TraceState describes tool-calls.jsonl.
type TraceState struct {
	File     string `json:"file"`
	Anchor          // lines and head
	Bytes    int64  `json:"bytes"`
	MaxBytes int64  `json:"maxBytes"`
	// Truncated is set once the cap was reached; later calls are counted but not written.
	Truncated bool `json:"truncated"`
	// Seq is the number of the last call recorded (or counted, once truncated).
	Seq int `json:"seq"`
}

// ActionEntry is one call in the recent-actions list.
type ActionEntry struct {
	Seq        int       `json:"seq"`
	At         time.Time `json:"at"`
	Tool       string    `json:"tool"`
	OK         bool      `json:"ok"`
	Category   string    `json:"category,omitempty"`
	Code       string    `json:"code,omitempty"`
	DurationMs float64   `json:"durationMs"`
	// Line is the request's line in tool-calls.jsonl (0 once the trace was truncated).
	Line int `json:"line,omitempty"`
}

// Failure is the latest failing call, as failure-summary.md reports it.
type Failure struct {
	ActionEntry
	Args   json.RawMessage `json:"args,omitempty"`
	Error  json.RawMessage `json:"error"`
	Detail string          `json:"detail"`
}

// SessionJSON is the content of session.json.
type SessionJSON struct {
	SessionID       string          `json:"sessionId"`
	StartedAt       time.Time       `json:"startedAt"`
	UpdatedAt       time.Time       `json:"updatedAt"`
	Ended           bool            `json:"ended"`
	Calls           int             `json:"calls"`
	Failures        int             `json:"failures"`
	Truncated       bool            `json:"truncated"`
	MCECVersion     string          `json:"mcecVersion"`
	ActiveTarget    json.RawMessage `json:"activeTarget,omitempty"`
	LastObservation json.RawMessage `json:"lastObservation,omitempty"`
	LastAction      *session.Action `json:"lastAction,omitempty"`
	LastError       json.RawMessage `json:"lastError,omitempty"`
	fileState
}

// CallFinished implements dispatch.Observer: it queues the call for its session's trace,
// session.json and, on a failure, failure-summary.md (queue.go). Evidence never fails a call:
// problems are logged.
func (r *Recorder) CallFinished(_ context.Context, f dispatch.Finished) {
	if f.Session == nil {
		// The call named an unknown session: there is no session directory to put it in.
		return
	}
	r.enqueue(f, f.Session.Status())
}

// recordCall records one call with the session's status as it was when the call finished.
func (r *Recorder) recordCall(f dispatch.Finished, st session.Status) {
	for {
		lg, fresh, err := r.logFor(f.Session, st)
		if err != nil {
			r.log.Debug("no evidence for session", "session", f.Session.ID(), "err", err)
			return
		}
		if r.recordLocked(lg, f, st, fresh) {
			return
		}
	}
}

// recordLocked records f under lg's lock (released even if recording panics, so a bug costs one
// call's evidence, never the session). It reports false when lg was dropped meanwhile.
func (r *Recorder) recordLocked(lg *sessionLog, f dispatch.Finished, st session.Status, fresh bool) bool {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	if lg.gone {
		return false
	}
	r.record(lg, f, st, fresh)
	return true
}

// logFor returns the session's log, creating (or resuming, from session.json) it. fresh is true
// when the session was never recorded before. st is the session's status when the call being
// recorded finished: a session that ended since still keeps its log for the calls queued.
func (r *Recorder) logFor(s *session.Session, st session.Status) (*sessionLog, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if lg, ok := r.logs[s.ID()]; ok {
		return lg, false, nil
	}
	dir, err := s.ArtifactDir()
	if err != nil {
		return nil, false, err
	}
	lg := &sessionLog{id: s.ID(), dir: dir, sess: s}
	lg.state.Trace = TraceState{File: TraceFile, Anchor: Anchor{Head: genesis}, MaxBytes: r.opts.MaxTraceBytes}
	fresh := true
	if b, err := os.ReadFile(filepath.Join(dir, SessionFile)); err == nil {
		// A call that finished after its session ended: continue the recording where it stopped.
		var prev SessionJSON
		if json.Unmarshal(b, &prev) == nil && prev.Trace.Head != "" {
			lg.state = prev.fileState
			fresh = false
		}
	}
	if !st.Ended {
		r.logs[s.ID()] = lg
	}
	if fresh && !r.closed {
		r.pending.Add(1)
		go func() {
			defer r.pending.Done()
			r.prune()
		}()
	}
	return lg, fresh, nil
}

// record writes one call; lg.mu is held.
func (r *Recorder) record(lg *sessionLog, f dispatch.Finished, st session.Status, fresh bool) {
	env := f.Outcome.Envelope
	// MarshalJSON's output is compact already: json.Marshal and redactJSON would each scan it
	// again (≈ 150 KB for a capture).
	envJSON, err := env.MarshalJSON()
	if err != nil {
		r.log.Warn("evidence: envelope does not encode", "err", err)
		return
	}
	var sc scrubbed
	envRed := redactCompact(envJSON, &sc)
	args := redactJSON(f.Args, nil)
	if args == nil {
		args = json.RawMessage("{}")
	}
	if sc.password {
		args = withholdText(args)
	}
	if n, ok := noteOf(env); ok && (n.Reason != "" || r.opts.WithholdTypedText) {
		// The tool said these fields are typed text: a password field's always, any where the
		// operator asked (the recorder knows no tool).
		marker := "[withheld: " + typedTextNote + "]"
		if n.Reason != "" {
			marker = "[withheld: " + n.Reason + "]"
		}
		args, envRed = applyWithhold(args, envRed, n, marker)
	}
	var image *Redacted
	if img := f.Outcome.Image; img != nil {
		image = &Redacted{Redacted: "image", MIMEType: img.MIMEType, Bytes: len(img.Data)}
		if len(sc.artifacts) > 0 {
			image.Artifact = sc.artifacts[0]
		}
	}
	ok := env.OK()
	ms := float64(f.Duration.Microseconds()) / 1000

	ts := &lg.state.Trace
	ts.Seq++
	entry := ActionEntry{Seq: ts.Seq, At: f.Start.UTC(), Tool: f.Tool, OK: ok, DurationMs: ms}
	if e := env.Err(); e != nil {
		entry.Category, entry.Code = e.Category.String(), string(e.Code)
	}
	if !ts.Truncated {
		req := Line{Seq: ts.Seq, Kind: KindRequest, At: f.Start.UTC(), Tool: f.Tool, Args: args}
		resp := Line{Seq: ts.Seq, Kind: KindResponse, At: f.Start.Add(f.Duration).UTC(), Tool: f.Tool,
			DurationMs: &ms, OK: &ok, Envelope: envRed, Image: image, Frames: r.writeFrames(lg, ts.Seq, f.Frames)}
		if line, err := r.appendPair(lg, req, resp); err != nil {
			r.log.Warn("evidence: trace not written", "session", lg.id, "err", err)
		} else {
			entry.Line = line
		}
	}
	lg.state.RecentActions = append(lg.state.RecentActions, entry)
	if n := len(lg.state.RecentActions); n > recentActions {
		lg.state.RecentActions = slices.Clone(lg.state.RecentActions[n-recentActions:])
	}
	for _, a := range sc.artifacts {
		rel := relArtifact(lg.dir, a)
		if !slices.Contains(lg.state.Artifacts, rel) {
			lg.state.Artifacts = append(lg.state.Artifacts, rel)
		}
	}

	if !ok {
		errJSON, _ := DecodeExact(envRed)
		var errObj json.RawMessage
		if m, isMap := errJSON.(map[string]any); isMap {
			errObj, _ = json.Marshal(m["error"])
		}
		lg.state.LastFailure = &Failure{ActionEntry: entry, Args: args, Error: errObj, Detail: env.Err().Detail}
	}

	// Session end (by session-end, or the store's rollover after its call count) and the
	// rollover a full trace asks of the store: finalize before session.json is written.
	if !st.Ended && ts.Truncated && r.opts.Sessions != nil && r.opts.Sessions.RollDefault(lg.id) {
		st = f.Session.Status()
	}
	ended := st.Ended
	if ended && lg.state.EndedReason == "" {
		lg.state.EndedReason = f.Session.EndReason()
		if lg.state.EndedReason == "" {
			lg.state.EndedReason = session.EndedBySessionEnd
		}
		if lg.state.EndedReason == session.EndedByRollover {
			r.log.Info("default session rolled over", "session", lg.id, "calls", st.Calls, "traceFull", ts.Truncated)
		}
	}
	if !ok || (ended && st.Failures == 0) {
		r.writeSummary(lg, st)
	}
	lg.gen++
	if ended || r.final.Load() {
		// The session's last state (or a call after Close): written now, nothing is left pending.
		if lg.timer != nil && lg.timer.Stop() {
			r.pending.Done()
		}
		lg.timer = nil
		r.writeSession(lg, st, lg.state, lg.gen)
	} else {
		r.scheduleCheckpoint(lg)
	}
	if ended {
		r.drop(lg)
	}
	if fresh || ended || (!ok && r.now().Sub(lg.probed) > reprobeEvery) {
		lg.probed = r.now()
		r.probe(lg)
	}
}

// writeFrames writes the frames kept with call seq into the session directory and returns their
// references for its response line. A frame that cannot be written is left out (and logged).
func (r *Recorder) writeFrames(lg *sessionLog, seq int, frames []dispatch.Frame) []FrameRef {
	var refs []FrameRef
	for _, f := range frames {
		name := FrameName(seq, f.When)
		if err := atomicfile.WriteFile(filepath.Join(lg.dir, name), f.JPEG, 0o600); err != nil {
			r.log.Warn("evidence: frame not written", "session", lg.id, "file", name, "err", err)
			continue
		}
		sum := sha256.Sum256(f.JPEG)
		refs = append(refs, FrameRef{When: f.When, File: name, SHA256: hex.EncodeToString(sum[:]), X: f.X, Y: f.Y, Scale: f.Scale})
	}
	return refs
}

// Operator writes what the operator did (take control, hand back, stop, re-arm: the Event*
// constants) into the trace of every live session that has one, between the calls it came
// between, in the same hash chain. how is through what ("console", "hotkey", "control socket").
func (r *Recorder) Operator(event, how string) {
	at := r.now().UTC()
	// The calls that finished before the act are still being written in the background: the
	// act's line goes after them, where it happened.
	r.Settle()
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	logs := make([]*sessionLog, 0, len(r.logs))
	for _, lg := range r.logs {
		logs = append(logs, lg)
	}
	r.mu.Unlock()
	for _, lg := range logs {
		lg.mu.Lock()
		ts := &lg.state.Trace
		if !lg.gone && !ts.Truncated {
			l := Line{Seq: ts.Seq + 1, Kind: KindOperator, At: at, Event: event, How: how, Prev: ts.Head}
			if err := r.appendLine(lg, l); err != nil {
				r.log.Warn("evidence: operator line not written", "session", lg.id, "err", err)
			} else {
				lg.gen++
				r.scheduleCheckpoint(lg)
			}
		}
		lg.mu.Unlock()
	}
}

// markerRoom is kept free under the cap so that a full trace always ends with its marker.
const markerRoom = 512

// appendLine appends one line that is not part of a call pair, if it fits under the cap with the
// room the truncation marker needs (else it is left out: a full trace ends with its marker).
func (r *Recorder) appendLine(lg *sessionLog, l Line) error {
	ts := &lg.state.Trace
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	if ts.Bytes+int64(len(b)+1)+markerRoom > ts.MaxBytes {
		return fmt.Errorf("the trace is nearly full (%d of %d bytes)", ts.Bytes, ts.MaxBytes)
	}
	if err := appendFile(filepath.Join(lg.dir, TraceFile), append(b, '\n')); err != nil {
		return err
	}
	ts.Lines++
	ts.Bytes += int64(len(b) + 1)
	ts.Head = lineHash(b)
	return nil
}

// appendPair appends a request and its response (never one without the other) and returns the
// request's line number. When the pair would pass the cap, a truncation marker is written instead
// and the trace is closed for good.
func (r *Recorder) appendPair(lg *sessionLog, req, resp Line) (int, error) {
	ts := &lg.state.Trace
	head := ts.Head
	req.Prev = head
	reqB, err := json.Marshal(req)
	if err != nil {
		return 0, err
	}
	resp.Prev = lineHash(reqB)
	// The pair is built in one buffer, the response spliced in after the request.
	pair := make([]byte, 0, len(reqB)+len(resp.Envelope)+1024)
	pair = append(pair, reqB...)
	pair = append(pair, '\n')
	pair, err = appendResponse(pair, resp)
	if err != nil {
		return 0, err
	}
	respB := pair[len(reqB)+1:]
	pair = append(pair, '\n')
	if ts.Bytes+int64(len(pair))+markerRoom > ts.MaxBytes {
		mark := Line{Seq: req.Seq, Kind: KindTruncated, At: req.At, Prev: head,
			Detail: fmt.Sprintf("trace cap of %d bytes reached: call %d and later calls are counted in session.json but not recorded", ts.MaxBytes, req.Seq)}
		mb, err := json.Marshal(mark)
		if err != nil {
			return 0, err
		}
		if err := appendFile(filepath.Join(lg.dir, TraceFile), append(mb, '\n')); err != nil {
			return 0, err
		}
		ts.Truncated = true
		ts.Lines++
		ts.Bytes += int64(len(mb) + 1)
		ts.Head = lineHash(mb)
		return 0, nil
	}
	if err := appendFile(filepath.Join(lg.dir, TraceFile), pair); err != nil {
		return 0, err
	}
	line := ts.Lines + 1
	ts.Lines += 2
	ts.Bytes += int64(len(pair))
	ts.Head = lineHash(respB)
	return line, nil
}

// appendResponse appends json.Marshal(resp) to dst, without its scan of the envelope:
// json.Marshal re-compacts a RawMessage field byte by byte (≈ 50 KB for a query's tree), and the
// envelope is json.Marshal's compact output already, or redactCompact's, so the scan would
// change nothing. The envelope is spliced in where a placeholder was encoded.
func appendResponse(dst []byte, resp Line) ([]byte, error) {
	env := resp.Envelope
	if len(env) == 0 {
		b, err := json.Marshal(resp)
		return append(dst, b...), err
	}
	resp.Envelope = json.RawMessage("null")
	b, err := json.Marshal(resp)
	if err != nil {
		return dst, err
	}
	// The fields before the envelope are numbers, booleans, a time and a catalog tool name:
	// the first occurrence is the placeholder.
	const mark = `"envelope":null`
	i := bytes.Index(b, []byte(mark))
	if i < 0 {
		return dst, errors.New("evidence: no envelope placeholder in a response line")
	}
	i += len(mark) - len("null")
	dst = append(dst, b[:i]...)
	dst = append(dst, env...)
	return append(dst, b[i+len("null"):]...), nil
}

// appendFile appends b with one write, so a concurrent reader never sees half a pair.
func appendFile(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	return errors.Join(werr, cerr)
}

// scheduleCheckpoint makes sure session.json will show lg's latest call: at once (in the
// background) when the last checkpoint is older than checkpointEvery, else when it will be; calls
// in between share that write. lg.mu is held.
func (r *Recorder) scheduleCheckpoint(lg *sessionLog) {
	if lg.timer != nil {
		return
	}
	delay := max(time.Until(lg.lastWrite.Add(checkpointEvery)), 0)
	r.pending.Add(1)
	lg.timer = time.AfterFunc(delay, func() {
		defer r.pending.Done()
		r.checkpoint(lg)
	})
}

// checkpoint writes lg's current state to session.json, taking the place of a pending scheduled
// checkpoint. lg.mu is held only to copy the state (snapshot): the encoding and the write happen
// outside it, so calls are not held up by the write.
func (r *Recorder) checkpoint(lg *sessionLog) {
	if st, state, gen, ok := r.snapshot(lg); ok {
		r.writeSession(lg, st, state, gen)
	}
}

// snapshot cancels lg's pending checkpoint and copies what session.json needs, under lg.mu; ok
// is false when there is nothing new to write.
func (r *Recorder) snapshot(lg *sessionLog) (st session.Status, state fileState, gen uint64, ok bool) {
	lg.mu.Lock()
	defer lg.mu.Unlock()
	if lg.timer != nil && lg.timer.Stop() {
		r.pending.Done() // the stopped checkpoint will not run
	}
	lg.timer = nil
	if lg.gone || lg.gen == lg.written.Load() {
		// Ended (its last state was written then), or nothing new.
		return st, state, 0, false
	}
	lg.lastWrite = time.Now()
	// The state's slices are only appended to or replaced, never changed in place, so a shallow
	// copy stays valid after the lock is released.
	return lg.sess.Status(), lg.state, lg.gen, true
}

// writeSession writes session.json for generation gen of the recording, unless a newer one is
// already on disk.
func (r *Recorder) writeSession(lg *sessionLog, st session.Status, state fileState, gen uint64) {
	lg.wmu.Lock()
	defer lg.wmu.Unlock()
	if gen <= lg.written.Load() {
		return
	}
	sj := SessionJSON{
		SessionID: st.SessionID, StartedAt: st.StartedAt, UpdatedAt: r.now().UTC(), Ended: state.EndedReason != "",
		Calls: st.Calls, Failures: st.Failures, Truncated: state.Trace.Truncated, MCECVersion: r.opts.Version,
		ActiveTarget: redactAny(st.ActiveTarget), LastObservation: redactAny(st.LastObservation),
		LastAction: st.LastAction, LastError: redactAny(st.LastError), fileState: state,
	}
	if sj.Artifacts == nil {
		sj.Artifacts = []string{}
	}
	b, err := json.MarshalIndent(sj, "", "  ")
	if err != nil {
		r.log.Warn("evidence: session.json does not encode", "err", err)
		return
	}
	// A checkpoint: atomic, but not synced (an fsync per call was a third of the server's time
	// under load, docs/performance.md); the trace it anchors is not synced either.
	if err := atomicfile.Replace(filepath.Join(lg.dir, SessionFile), append(b, '\n'), 0o600); err != nil {
		r.log.Warn("evidence: session.json not written", "session", lg.id, "err", err)
		return
	}
	lg.written.Store(gen)
}

// redactAny marshals v with image bytes redacted; nil stays nil.
func redactAny(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return nil
	}
	return redactJSON(b, nil)
}

// drop forgets an ended session; a late call re-opens its log from session.json.
func (r *Recorder) drop(lg *sessionLog) {
	r.mu.Lock()
	if r.logs[lg.id] == lg {
		delete(r.logs, lg.id)
	}
	r.mu.Unlock()
	lg.gone = true
}

// Root is the sessions directory the recorder writes under.
func (r *Recorder) Root() string { return r.opts.Root }

// Recording reports whether dirName is the directory of a session this recorder is recording.
func (r *Recorder) Recording(dirName string) bool { return r.live(dirName) }

// live reports whether a session directory belongs to a session the recorder is recording.
func (r *Recorder) live(dirName string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id := range r.logs {
		if strings.HasSuffix(dirName, "-"+id) {
			return true
		}
	}
	return false
}

// prune applies the retention policy to the sessions directory, one pass at a time.
func (r *Recorder) prune() {
	if r.opts.Root == "" || !r.pruning.CompareAndSwap(false, true) {
		return
	}
	defer r.pruning.Store(false)
	removed, err := Prune(r.opts.Root, r.opts.Retention, r.now(), r.live)
	for _, d := range removed {
		r.log.Info("pruned old session directory", "dir", d)
	}
	if err != nil {
		r.log.Warn("evidence: pruning sessions", "root", r.opts.Root, "err", err)
	}
}

// relArtifact names an artifact relative to the session directory when it lies inside it.
func relArtifact(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
		return rel
	}
	return path
}
