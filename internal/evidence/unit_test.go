package evidence

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/session"
)

var update = flag.Bool("update", false, "rewrite golden files")

// rig is a session store and a recorder over a temp sessions directory, fed by hand the way the
// dispatcher feeds it.
type rig struct {
	t     *testing.T
	root  string
	store *session.Store
	rec   *Recorder
}

func newRig(t *testing.T, opts Options) *rig {
	t.Helper()
	root := t.TempDir()
	store := session.NewStore(session.Options{Root: root})
	opts.Root, opts.Sessions = root, store
	rec := New(opts)
	t.Cleanup(func() { rec.Close() })
	return &rig{t: t, root: root, store: store, rec: rec}
}

// call records one call in s as the dispatcher would, after validating the envelope.
func (r *rig) call(s *session.Session, tool, args string, env contract.Envelope, img *catalog.Image) {
	r.t.Helper()
	contracttest.CheckEnvelope(r.t, env)
	start := time.Now()
	code := ""
	if e := env.Err(); e != nil {
		code = string(e.Code)
	} else if obs := observationOf(env); obs != nil {
		s.Observe(obs)
	}
	s.RecordAction(session.Action{Tool: tool, OK: env.OK(), Code: code, DurationMs: 1}, env.Err())
	r.rec.CallFinished(context.Background(), dispatch.Finished{Session: s, Tool: tool, Args: json.RawMessage(args),
		Outcome: dispatch.Outcome{Envelope: env, Image: img}, Start: start, Duration: time.Millisecond})
	r.rec.Settle()
}

// observationOf makes a capture's summary the last observation, as the capture tool does.
func observationOf(env contract.Envelope) any {
	m, ok := env.Result().(map[string]any)
	if !ok || m["artifact"] == nil {
		return nil
	}
	return map[string]any{"kind": "capture-summary", "width": m["width"], "artifact": m["artifact"]}
}

func (r *rig) dir(s *session.Session) string {
	d, err := s.ArtifactDir()
	if err != nil {
		r.t.Fatal(err)
	}
	return d
}

var fakePNG = bytes.Repeat([]byte{0x89, 'P', 'N', 'G', 1, 2, 3, 4}, 600)

func captureEnv(s *session.Session, artifact string) (contract.Envelope, *catalog.Image) {
	b64 := base64.StdEncoding.EncodeToString(fakePNG)
	return contract.Success(s.ID(), map[string]any{"width": 10, "height": 10, "encoding": "png",
			"bytes": len(fakePNG), "base64": b64, "artifact": artifact}),
		&catalog.Image{Data: fakePNG, MIMEType: "image/png"}
}

// base64Run finds long base64 text: what must never be in a trace.
var base64Run = regexp.MustCompile(`[A-Za-z0-9+/]{200,}`)

func TestTraceRedactsAndChains(t *testing.T) {
	r := newRig(t, Options{})
	s := r.store.Start()
	dir := r.dir(s)
	art := filepath.Join(dir, "capture-1.png")
	if err := os.WriteFile(art, fakePNG, 0o600); err != nil {
		t.Fatal(err)
	}
	env, img := captureEnv(s, art)
	r.call(s, "capture", `{"window":"x","sessionId":"`+s.ID()+`"}`, env, img)
	blank := contract.Errorf(contract.CodeFrameAllBlack, "blank")
	blank.PartialResult = map[string]any{"base64": base64.StdEncoding.EncodeToString(fakePNG), "artifact": art}
	r.call(s, "capture", `{"window":"x"}`, contract.Failure(s.ID(), blank), nil)
	r.call(s, "invoke", `{"element":{"name":"pw"},"action":"setvalue","text":"hunter2"}`,
		contract.Success(s.ID(), map[string]any{"invoked": true, "element": map[string]any{"ref": "r1", "role": "password text", "name": "pw"}}), nil)

	// Pretty-printed arguments (as an HTTP client may send them) stay on one line, in their order.
	r.call(s, "windows", "{\n  \"window\": \"x\",\n  \"pid\": 12\n}", contract.Success(s.ID(), map[string]any{"count": 0}), nil)
	r.rec.Flush()

	trace, err := os.ReadFile(filepath.Join(dir, TraceFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(trace, []byte(`"args":{"window":"x","pid":12}`)) {
		t.Errorf("pretty arguments not compacted in order:\n%s", trace)
	}
	if base64Run.Match(trace) {
		t.Errorf("trace holds base64:\n%s", trace)
	}
	if bytes.Contains(trace, []byte("hunter2")) {
		t.Error("trace holds the text typed into a password field")
	}
	v, err := Verify(bytes.NewReader(trace), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Lines) != 8 {
		t.Fatalf("%d lines, want 8", len(v.Lines))
	}
	resp := v.Lines[1]
	if resp.Image == nil || resp.Image.Artifact != art || resp.Image.Bytes != len(fakePNG) {
		t.Errorf("image marker %+v", resp.Image)
	}
	var e struct {
		Result struct {
			Base64 Redacted `json:"base64"`
		} `json:"result"`
	}
	if err := json.Unmarshal(resp.Envelope, &e); err != nil || e.Result.Base64.Artifact != art || e.Result.Base64.Bytes != len(fakePNG) {
		t.Errorf("base64 marker %+v (%v)", e.Result.Base64, err)
	}
	for _, f := range []string{SessionFile, SummaryFile} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if base64Run.Match(b) {
			t.Errorf("%s holds base64", f)
		}
	}
	var sj SessionJSON
	b, _ := os.ReadFile(filepath.Join(dir, SessionFile))
	if err := json.Unmarshal(b, &sj); err != nil {
		t.Fatal(err)
	}
	if sj.Calls != 4 || sj.Failures != 1 || sj.Trace.Lines != 8 || sj.Trace.Head != v.Head || len(sj.Artifacts) != 1 || sj.Artifacts[0] != "capture-1.png" {
		t.Errorf("session.json %+v", sj)
	}
}

// writeTrace records n windows calls and returns the session directory.
func writeTrace(t *testing.T, n int) (*rig, string) {
	r := newRig(t, Options{})
	s := r.store.Start()
	for i := range n {
		r.call(s, "windows", fmt.Sprintf(`{"window":"w%d"}`, i), contract.Success(s.ID(), map[string]any{"count": i}), nil)
	}
	r.rec.Flush()
	return r, r.dir(s)
}

func TestVerifyDetectsEdits(t *testing.T) {
	_, dir := writeTrace(t, 4)
	trace, err := os.ReadFile(filepath.Join(dir, TraceFile))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Verify(); err != nil {
		t.Fatalf("intact trace: %v", err)
	}
	lines := strings.SplitAfter(string(trace), "\n")
	lines = lines[:len(lines)-1] // the empty remainder after the last newline
	cut := func(i int) string { return strings.Join(append(append([]string{}, lines[:i]...), lines[i+1:]...), "") }
	cases := []struct {
		name  string
		trace string
		line  int
	}{
		{"first line cut", cut(0), 1},
		{"middle line cut", cut(3), 4},
		{"pair cut", strings.Join(append(append([]string{}, lines[:2]...), lines[4:]...), ""), 3},
		{"last pair cut", strings.Join(lines[:6], ""), 7},
		{"last line cut", strings.Join(lines[:7], ""), 7},
		{"byte changed", strings.Replace(string(trace), `"w2"`, `"w9"`, 1), 6},
		{"torn last line", strings.TrimSuffix(string(trace), "\n"), 8},
		{"lines swapped", strings.Join(append(append(append([]string{}, lines[:2]...), lines[4], lines[5], lines[2], lines[3]), lines[6:]...), ""), 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			anchor := b.Session.Trace.Anchor
			_, err := Verify(strings.NewReader(c.trace), &anchor)
			var ce *ChainError
			if !errors.As(err, &ce) {
				t.Fatalf("want a ChainError, got %v", err)
			}
			if ce.Line != c.line {
				t.Errorf("first bad line %d, want %d: %v", ce.Line, c.line, ce)
			}
		})
	}
}

func TestTraceCapAndRollover(t *testing.T) {
	r := newRig(t, Options{MaxTraceBytes: 4096})
	s, err := r.store.Resolve("")
	if err != nil {
		t.Fatal(err)
	}
	dir := r.dir(s)
	big := strings.Repeat("x ", 300)
	for i := 0; i < 20 && !s.Status().Ended; i++ {
		r.call(s, "windows", `{}`, contract.Success(s.ID(), map[string]any{"note": big}), nil)
	}
	if !s.Status().Ended {
		t.Fatal("the default session did not roll over when its trace was full")
	}
	next, _ := r.store.Resolve("")
	if next.ID() == s.ID() {
		t.Fatal("no fresh default session after the rollover")
	}
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := b.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if !v.Truncated || !b.Session.Truncated || b.Session.EndedReason != "rolled-over" {
		t.Errorf("truncated %v/%v, ended %q", v.Truncated, b.Session.Truncated, b.Session.EndedReason)
	}
	if fi, _ := os.Stat(filepath.Join(dir, TraceFile)); fi.Size() > 4096 {
		t.Errorf("trace is %d bytes, cap 4096", fi.Size())
	}
	// An explicit session is never rolled over: it stays live, truncated.
	ex := r.store.Start()
	for range 20 {
		r.call(ex, "windows", `{}`, contract.Success(ex.ID(), map[string]any{"note": big}), nil)
	}
	if ex.Status().Ended {
		t.Error("an explicit session rolled over")
	}
}

func TestRolloverAfterCalls(t *testing.T) {
	r := newRig(t, Options{})
	r.store = session.NewStore(session.Options{Root: r.root, RolloverCalls: 3})
	r.rec.opts.Sessions = r.store
	s, _ := r.store.Resolve("")
	for range 3 {
		r.call(s, "windows", `{}`, contract.Success(s.ID(), map[string]any{}), nil)
	}
	if !s.Status().Ended {
		t.Fatal("the default session did not roll over after 3 calls")
	}
	b, err := Open(r.dir(s))
	if err != nil {
		t.Fatal(err)
	}
	if b.Session == nil || !b.Session.Ended || b.Session.EndedReason != session.EndedByRollover || b.Session.Calls != 3 {
		t.Errorf("session.json after the rollover: %+v", b.Session)
	}
}

func TestConcurrentCallsOneSession(t *testing.T) {
	r := newRig(t, Options{})
	s := r.store.Start()
	var wg sync.WaitGroup
	const workers, each = 8, 25
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				env := contract.Success(s.ID(), map[string]any{"w": w, "i": i})
				s.RecordAction(session.Action{Tool: "windows", OK: true}, nil)
				r.rec.CallFinished(context.Background(), dispatch.Finished{Session: s, Tool: "windows",
					Args: json.RawMessage(`{}`), Outcome: dispatch.Outcome{Envelope: env}, Start: time.Now()})
			}
		}()
	}
	wg.Wait()
	r.rec.Flush()
	b, err := Open(r.dir(s))
	if err != nil {
		t.Fatal(err)
	}
	v, err := b.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Lines) != 2*workers*each || b.Session.Calls != workers*each {
		t.Errorf("%d lines, %d calls", len(v.Lines), b.Session.Calls)
	}
}

func TestSessionsAreIndependent(t *testing.T) {
	r := newRig(t, Options{})
	a, b := r.store.Start(), r.store.Start()
	r.call(a, "windows", `{}`, contract.Success(a.ID(), map[string]any{}), nil)
	r.call(b, "find", `{}`, contract.Failure(b.ID(), contract.Errorf(contract.CodeWindowNotFound, "none")), nil)
	if _, err := os.Stat(filepath.Join(r.dir(a), SummaryFile)); !errors.Is(err, os.ErrNotExist) {
		t.Error("a session without failures has a failure summary")
	}
	r.rec.Flush()
	ba, _ := Open(r.dir(a))
	bb, _ := Open(r.dir(b))
	if ba.Session.Calls != 1 || bb.Session.Calls != 1 || ba.Session.Failures != 0 || bb.Session.Failures != 1 {
		t.Errorf("a %+v b %+v", ba.Session, bb.Session)
	}
}

func TestSummaryGolden(t *testing.T) {
	at := time.Date(2026, 7, 1, 10, 15, 2, 123e6, time.UTC)
	dir := "/state/sessions/20260701-101500-s-0123456789ab"
	obs := `{"kind":"capture-summary","width":320,"height":200,"encoding":"png","bytes":48213,` +
		`"blankCheck":{"blank":false,"dominantFraction":0.1},"artifact":"` + dir + `/capture-20260701-101501000-1.png"}`
	lg := &sessionLog{id: "s-0123456789ab", dir: dir}
	lg.state.Trace = TraceState{File: TraceFile, Anchor: Anchor{Lines: 6}, Seq: 3}
	lg.state.RecentActions = []ActionEntry{
		{Seq: 1, At: at.Add(-2 * time.Second), Tool: "windows", OK: true, DurationMs: 2.5, Line: 1},
		{Seq: 2, At: at.Add(-time.Second), Tool: "capture", OK: true, DurationMs: 41, Line: 3},
		{Seq: 3, At: at, Tool: "capture", Category: "stale-element", Code: "window-closed", DurationMs: 3.2, Line: 5},
	}
	lg.state.LastFailure = &Failure{ActionEntry: lg.state.RecentActions[2], Args: json.RawMessage(`{"handle":4194310}`),
		Error:  json.RawMessage(`{"code":"window-closed","category":"stale-element","detail":"no window with handle 4194310 exists (it was closed); list windows again","lastObservation":` + obs + `}`),
		Detail: "no window with handle 4194310 exists (it was closed); list windows again"}
	st := session.Status{SessionID: "s-0123456789ab", StartedAt: at.Add(-3 * time.Second), Calls: 3, Failures: 1}
	got := renderSummary(lg, st, "v1.2.3")
	golden := filepath.Join("testdata", "failure-summary.golden.md")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("failure summary differs from %s (run with -update):\n%s", golden, got)
	}
}

func TestPrune(t *testing.T) {
	root := t.TempDir()
	now := time.Now()
	mk := func(name string, age time.Duration, size int) string {
		d := filepath.Join(root, name)
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "f"), make([]byte, size), 0o600); err != nil {
			t.Fatal(err)
		}
		mt := now.Add(-age)
		if err := os.Chtimes(d, mt, mt); err != nil {
			t.Fatal(err)
		}
		return d
	}
	old := mk("20260101-000000-s-000000000001", 10*24*time.Hour, 10)
	oldLive := mk("20260101-000000-s-000000000002", 10*24*time.Hour, 10)
	big1 := mk("20260601-000000-s-000000000003", 3*time.Hour, 600)
	big2 := mk("20260601-000000-s-000000000004", 2*time.Hour, 600)
	newest := mk("20260601-000000-s-000000000005", time.Hour, 600)
	foreign := mk("not-a-session", 100*24*time.Hour, 10)

	keep := func(name string) bool { return strings.HasSuffix(name, "s-000000000002") }
	removed, err := Prune(root, Retention{MaxAge: 7 * 24 * time.Hour, MaxBytes: 1300}, now, keep)
	if err != nil {
		t.Fatal(err)
	}
	exists := func(d string) bool { _, err := os.Stat(d); return err == nil }
	if exists(old) || exists(big1) {
		t.Errorf("old or oversized directory kept; removed %v", removed)
	}
	if !exists(oldLive) || !exists(big2) || !exists(newest) || !exists(foreign) {
		t.Errorf("pruned too much: removed %v", removed)
	}
	// Limits switched off: nothing goes.
	if removed, _ := Prune(root, Retention{MaxAge: -1, MaxBytes: -1}, now.Add(1000*time.Hour), nil); len(removed) != 0 {
		t.Errorf("pruned with limits off: %v", removed)
	}
}

func TestRecorderPrunesAtStart(t *testing.T) {
	root := t.TempDir()
	d := filepath.Join(root, "20200101-000000-s-00000000000a")
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-30 * 24 * time.Hour)
	os.Chtimes(d, old, old)
	rec := New(Options{Root: root})
	defer rec.Close()
	if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
		t.Error("a 30-day-old session directory survived start-up")
	}
}

func TestBundleZip(t *testing.T) {
	_, dir := writeTrace(t, 3)
	out := filepath.Join(t.TempDir(), "b.zip")
	n, err := Zip(dir, out)
	if err != nil || n < 2 {
		t.Fatalf("zip: %d files, %v", n, err)
	}
	b, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	if b.Name != filepath.Base(dir) || b.Session == nil {
		t.Errorf("bundle %q session %v", b.Name, b.Session)
	}
	if _, err := b.Verify(); err != nil {
		t.Fatal(err)
	}
}

func TestLocate(t *testing.T) {
	r, dir := writeTrace(t, 1)
	id := strings.TrimPrefix(filepath.Base(dir), filepath.Base(dir)[:16])
	got, err := Locate(r.root, id)
	if err != nil || got != dir {
		t.Errorf("Locate(%s) = %q, %v", id, got, err)
	}
	if _, err := Locate(r.root, "s-ffffffffffff"); err == nil {
		t.Error("an unknown id was located")
	}
	if _, err := Locate(r.root, "nonsense"); err == nil {
		t.Error("nonsense was located")
	}
}

// A server killed while it writes a call pair leaves the pair cut short after the anchor: the
// chain before it verifies and the cut bytes are counted; inside the anchor the cut is an error.
func TestVerifyTornTail(t *testing.T) {
	_, dir := writeTrace(t, 4)
	trace, err := os.ReadFile(filepath.Join(dir, TraceFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(trace), "\n")
	six := strings.Join(lines[:6], "")
	sixAnchor := Anchor{Lines: 6, Head: lineHash([]byte(strings.TrimSuffix(lines[5], "\n")))}
	cases := []struct {
		name   string
		trace  string
		anchor *Anchor
		torn   int
	}{
		{"response torn", six + lines[6] + lines[7][:20], &sixAnchor, len(lines[6]) + 20},
		{"request torn", six + lines[6][:30], &sixAnchor, 30},
		{"no anchor", six + lines[6] + lines[7][:1], nil, len(lines[6]) + 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := Verify(strings.NewReader(c.trace), c.anchor)
			if err != nil {
				t.Fatal(err)
			}
			if len(v.Lines) != 6 || v.TornBytes != c.torn || v.Head != sixAnchor.Head || v.Beyond != 0 {
				t.Errorf("lines %d, torn %d bytes, beyond %d, head %s; want 6, %d, 0, %s", len(v.Lines), v.TornBytes, v.Beyond, v.Head, c.torn, sixAnchor.Head)
			}
		})
	}
	// The anchor vouches for all 8 lines: a torn 8th line, or 7 lines and a torn 8th, were cut.
	eight := Anchor{Lines: 8, Head: lineHash([]byte(strings.TrimSuffix(lines[7], "\n")))}
	for _, tr := range []string{strings.TrimSuffix(string(trace), "\n"), six + lines[6] + lines[7][:20]} {
		if _, err := Verify(strings.NewReader(tr), &eight); err == nil {
			t.Errorf("a torn line inside the anchored lines verified")
		}
	}
}

// TestOperatorLines: what the operator did is written into each live session's trace between
// the calls it came between, in the chain, with the next call's seq; the bundle verifies, an
// edit of an operator line is caught, and session.json's anchor counts it.
func TestOperatorLines(t *testing.T) {
	r := newRig(t, Options{})
	s := r.store.Start()
	r.call(s, "windows", `{}`, contract.Success(s.ID(), map[string]any{"count": 0}), nil)
	r.rec.Operator(EventTakeControl, "console")
	r.rec.Operator(EventHandBack, "console")
	r.call(s, "windows", `{}`, contract.Success(s.ID(), map[string]any{"count": 1}), nil)
	r.rec.Flush()

	dir := r.dir(s)
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := b.Verify()
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, l := range v.Lines {
		kinds = append(kinds, fmt.Sprintf("%s/%d%s", l.Kind, l.Seq, l.Event))
	}
	if got := strings.Join(kinds, " "); got != "request/1 response/1 operator/2take-control operator/2hand-back request/2 response/2" {
		t.Errorf("lines: %s", got)
	}
	if v.Lines[2].How != "console" || b.Session.Trace.Lines != 6 {
		t.Errorf("operator line %+v; session.json counts %d lines", v.Lines[2], b.Session.Trace.Lines)
	}
	trace, _ := os.ReadFile(filepath.Join(dir, TraceFile))
	edited := strings.Replace(string(trace), `"event":"hand-back"`, `"event":"take-control"`, 1)
	var ce *ChainError
	if _, err := Verify(strings.NewReader(edited), &b.Session.Trace.Anchor); !errors.As(err, &ce) || ce.Line != 5 {
		t.Errorf("an edited operator line: %v", err)
	}
}
