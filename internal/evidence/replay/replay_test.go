package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/evidence"
	"github.com/mcec/mcec/internal/evidence/replay"
	"github.com/mcec/mcec/internal/session"
)

// rig records calls the way the dispatcher feeds the recorder, so that a test has a bundle to
// replay.
type rig struct {
	t     *testing.T
	store *session.Store
	rec   *evidence.Recorder
}

func newRig(t *testing.T) *rig {
	t.Helper()
	root := t.TempDir()
	store := session.NewStore(session.Options{Root: root})
	rec := evidence.New(evidence.Options{Root: root, Sessions: store})
	t.Cleanup(func() { rec.Close() })
	return &rig{t: t, store: store, rec: rec}
}

func (r *rig) call(s *session.Session, tool, args string, env contract.Envelope, _ any) {
	r.t.Helper()
	contracttest.CheckEnvelope(r.t, env)
	code := ""
	if e := env.Err(); e != nil {
		code = string(e.Code)
	}
	s.RecordAction(session.Action{Tool: tool, OK: env.OK(), Code: code, DurationMs: 1}, env.Err())
	r.rec.CallFinished(context.Background(), dispatch.Finished{Session: s, Tool: tool, Args: json.RawMessage(args),
		Outcome: dispatch.Outcome{Envelope: env}, Start: time.Now(), Duration: time.Millisecond})
	r.rec.Settle()
}

func (r *rig) dir(s *session.Session) string {
	d, err := s.ArtifactDir()
	if err != nil {
		r.t.Fatal(err)
	}
	return d
}

// The replayed server is a tiny desktop whose window handles and refs differ from the recording;
// the operator's lines in the recording are skipped.
func TestReplayRemapsHandlesAndRefs(t *testing.T) {
	r := newRig(t)
	s := r.store.Start()
	r.call(s, "session-start", `{}`, contract.Success(s.ID(), map[string]any{"sessionId": s.ID()}), nil)
	r.call(s, "windows", `{"sessionId":"`+s.ID()+`"}`, contract.Success(s.ID(), map[string]any{"count": 2, "windows": []any{
		map[string]any{"handle": 100, "title": "Editor", "processName": "ed", "processId": 10},
		map[string]any{"handle": 200, "title": "Other", "processName": "ot", "processId": 20}}}), nil)
	r.call(s, "find", `{"handle":100,"sessionId":"`+s.ID()+`","element":{"name":"Save"}}`, contract.Success(s.ID(), map[string]any{"found": true,
		"element": map[string]any{"ref": "old-ref", "role": "push button", "name": "Save"}}), nil)
	// The operator stepped in between two calls: their lines are in the trace, not replayed.
	r.rec.Operator(evidence.EventTakeControl, "console")
	r.rec.Operator(evidence.EventHandBack, "console")
	r.call(s, "invoke", `{"element":{"ref":"old-ref"},"sessionId":"`+s.ID()+`"}`, contract.Success(s.ID(), map[string]any{"invoked": true}), nil)
	r.call(s, "query", `{"pid":20}`, contract.Success(s.ID(), map[string]any{"nodeCount": 1}), nil)
	r.call(s, "capture", `{"handle":200}`, contract.Failure(s.ID(), contract.Errorf(contract.CodeWindowClosed, "gone")), nil)
	b, err := evidence.Open(r.dir(s))
	if err != nil {
		t.Fatal(err)
	}

	var got []string
	live := "s-live"
	caller := replay.CallerFunc(func(_ context.Context, tool string, args json.RawMessage) ([]byte, error) {
		got = append(got, tool+" "+string(args))
		var env contract.Envelope
		switch tool {
		case "session-start":
			env = contract.Success(live, map[string]any{"sessionId": live})
		case "windows":
			// The live order differs from the recording's, so handles pair by title.
			env = contract.Success(live, map[string]any{"count": 2, "windows": []any{
				map[string]any{"handle": 222, "title": "Other", "processName": "ot", "processId": 21},
				map[string]any{"handle": 111, "title": "Editor", "processName": "ed", "processId": 11}}})
		case "find":
			env = contract.Success(live, map[string]any{"found": true,
				"element": map[string]any{"ref": "new-ref", "role": "push button", "name": "Save"}})
		case "invoke":
			if !strings.Contains(string(args), `"new-ref"`) {
				env = contract.Failure(live, contract.Errorf(contract.CodeElementStale, "unknown ref"))
				break
			}
			env = contract.Success(live, map[string]any{"invoked": true})
		case "query":
			if !strings.Contains(string(args), `"pid":21`) {
				env = contract.Failure(live, contract.Errorf(contract.CodeWindowNotFound, "no pid"))
				break
			}
			env = contract.Success(live, map[string]any{"nodeCount": 1})
		case "capture":
			env = contract.Failure(live, contract.Errorf(contract.CodeWindowClosed, "gone"))
		default:
			env = contract.Success(live, map[string]any{})
		}
		return contracttest.CheckEnvelope(t, env), nil
	})
	rep, err := replay.Run(context.Background(), b, caller)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	rep.Print(&out)
	if rep.Failed() || rep.Matched != 6 {
		t.Fatalf("replay diverged:\n%s\ncalls: %q", out.String(), got)
	}
	if !strings.Contains(got[2], `"handle":111`) || !strings.Contains(got[2], `"sessionId":"s-live"`) {
		t.Errorf("find was not remapped: %s", got[2])
	}
	if !strings.Contains(got[5], `"handle":222`) {
		t.Errorf("capture was not remapped: %s", got[5])
	}
	if !strings.Contains(out.String(), "handle 100→111") || !strings.Contains(out.String(), "6 match, 0 diverged") {
		t.Errorf("report:\n%s", out.String())
	}
}
