package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/session"
)

type noArgs struct{}

// fakeCatalog holds pure-logic tools: the dispatcher's behaviour does not depend on a desktop.
func fakeCatalog() *catalog.Catalog {
	c := catalog.New()
	c.Add(catalog.Define(catalog.Spec[struct {
		N int `json:"n"`
	}, map[string]int]{Name: "observe", Description: "succeeds and records an observation",
		Run: func(ctx context.Context, call *catalog.Call, in *struct {
			N int `json:"n"`
		}, resp *catalog.Response) (*map[string]int, error) {
			resp.Observation = map[string]any{"kind": "test", "n": in.N}
			resp.Image = &catalog.Image{Data: []byte{1}, MIMEType: "image/png"}
			return &map[string]int{"n": in.N}, nil
		}}))
	c.Add(catalog.Define(catalog.Spec[noArgs, noArgs]{Name: "fail", Description: "fails with a warning",
		Run: func(ctx context.Context, call *catalog.Call, in *noArgs, resp *catalog.Response) (*noArgs, error) {
			resp.Warnings = []contract.Warning{contract.Warn(contract.WarnMinimizedWindow, "restored")}
			return nil, contract.Errorf(contract.CodeWindowNotFound, "nothing")
		}}))
	c.Add(catalog.Define(catalog.Spec[noArgs, noArgs]{Name: "boom", Description: "panics",
		Run: func(ctx context.Context, call *catalog.Call, in *noArgs, resp *catalog.Response) (*noArgs, error) {
			panic("kaboom")
		}}))
	c.Add(catalog.Define(catalog.Spec[noArgs, noArgs]{Name: "plain", Description: "returns a plain error",
		Run: func(ctx context.Context, call *catalog.Call, in *noArgs, resp *catalog.Response) (*noArgs, error) {
			return nil, errors.New("disk on fire")
		}}))
	return c
}

func call(t *testing.T, d *Dispatcher, tool, args string) (contract.Envelope, Outcome) {
	t.Helper()
	out, err := d.Call(context.Background(), tool, json.RawMessage(args))
	if err != nil {
		t.Fatalf("Call(%s): %v", tool, err)
	}
	b, err := json.Marshal(out.Envelope)
	if err != nil {
		t.Fatal(err)
	}
	return contracttest.Check(t, b), out
}

func TestOutcomes(t *testing.T) {
	d := New(fakeCatalog(), session.NewStore(session.Options{Root: t.TempDir()}), nil)

	env, out := call(t, d, "observe", `{"n":3}`)
	if !env.OK() || out.Image == nil {
		t.Fatalf("observe: %+v", env)
	}
	defaultID := env.SessionID()

	env, _ = call(t, d, "fail", `{}`)
	e := contracttest.Fail(t, env, contract.NoTarget, contract.CodeWindowNotFound)
	if !contracttest.HasWarning(env, contract.WarnMinimizedWindow) {
		t.Error("warning lost on failure")
	}
	obs, _ := json.Marshal(e.LastObservation)
	if string(obs) != `{"kind":"test","n":3}` {
		t.Errorf("lastObservation = %s", obs)
	}
	if env.SessionID() != defaultID {
		t.Errorf("calls without sessionId went to different sessions")
	}

	env, _ = call(t, d, "boom", ``)
	if e := contracttest.Fail(t, env, contract.Internal, contract.CodeUnhandledException); !strings.Contains(e.Detail, "kaboom") {
		t.Errorf("panic detail %q", e.Detail)
	}
	env, _ = call(t, d, "plain", `null`)
	if e := contracttest.Fail(t, env, contract.Internal, contract.CodeUnhandledException); !strings.Contains(e.Detail, "disk on fire") {
		t.Errorf("plain detail %q", e.Detail)
	}
}

func TestArgumentsAndSessions(t *testing.T) {
	store := session.NewStore(session.Options{Root: t.TempDir()})
	d := New(fakeCatalog(), store, nil)
	s := store.Start()

	tests := []struct {
		name, tool, args string
		wantCode         contract.Code // "" = ok
		wantSession      string
	}{
		{"explicit session", "observe", `{"n":1,"sessionId":"` + s.ID() + `"}`, "", s.ID()},
		{"unknown session", "observe", `{"sessionId":"s-000000000000"}`, contract.CodeUnknownSession, "s-000000000000"},
		{"sessionId not a string", "observe", `{"sessionId":5}`, contract.CodeBadArguments, ""},
		{"arguments not an object", "observe", `[1]`, contract.CodeBadArguments, ""},
		{"wrong type", "observe", `{"n":"x"}`, contract.CodeBadArguments, ""},
		{"unknown argument", "observe", `{"m":1}`, contract.CodeBadArguments, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, _ := call(t, d, tt.tool, tt.args)
			if tt.wantCode == "" && !env.OK() {
				t.Fatalf("want ok, got %v", env.Err())
			}
			if tt.wantCode != "" && (env.OK() || env.Err().Code != tt.wantCode) {
				t.Fatalf("want %s, got %+v", tt.wantCode, env.Err())
			}
			if tt.wantSession != "" && env.SessionID() != tt.wantSession {
				t.Errorf("session %s, want %s", env.SessionID(), tt.wantSession)
			}
		})
	}
	if st := s.Status(); st.Calls != 1 {
		t.Errorf("explicit session recorded %d calls", st.Calls)
	}
}

func TestUnknownToolIsAProtocolFault(t *testing.T) {
	d := New(fakeCatalog(), session.NewStore(session.Options{}), nil)
	if _, err := d.Call(context.Background(), "nope", nil); !errors.Is(err, ErrUnknownTool) {
		t.Fatalf("err = %v", err)
	}
}

// admitFunc adapts a function to Admission.
type admitFunc func(ctx context.Context, tool *catalog.Tool) error

func (f admitFunc) Admit(ctx context.Context, tool *catalog.Tool) error { return f(ctx, tool) }

func TestAdmissionRunsBeforeTheHandler(t *testing.T) {
	d := New(fakeCatalog(), session.NewStore(session.Options{Root: t.TempDir()}), nil)
	var seen []string
	d.SetAdmission(admitFunc(func(_ context.Context, tool *catalog.Tool) error {
		seen = append(seen, tool.Name)
		return contract.Errorf(contract.CodeEmergencyStopped, "stopped")
	}))
	env, _ := call(t, d, "boom", `{}`) // the handler would panic: it must never run
	if env.OK() || env.Err().Code != contract.CodeEmergencyStopped {
		t.Fatalf("want emergency-stopped, got %+v", env.Err())
	}
	if strings.Join(seen, ",") != "boom" {
		t.Errorf("admission saw %v", seen)
	}
}

// Admission knows the call's session (a consent grant may be for one session): the default
// session when none is named, the named one otherwise; an unknown session is still refused
// after admission.
func TestAdmissionSeesTheSession(t *testing.T) {
	store := session.NewStore(session.Options{Root: t.TempDir()})
	d := New(fakeCatalog(), store, nil)
	var seen []string
	d.SetAdmission(admitFunc(func(ctx context.Context, _ *catalog.Tool) error {
		seen = append(seen, SessionIDOf(ctx))
		return nil
	}))
	def, _ := call(t, d, "observe", `{}`)
	named := store.Start()
	call(t, d, "observe", `{"sessionId":"`+named.ID()+`"}`)
	unknown, _ := call(t, d, "observe", `{"sessionId":"s-000000000000"}`)
	if len(seen) != 3 || seen[0] != def.SessionID() || seen[1] != named.ID() || seen[2] != "" {
		t.Errorf("admission saw sessions %q (default %s, named %s, then none)", seen, def.SessionID(), named.ID())
	}
	if unknown.OK() || unknown.Err().Code != contract.CodeUnknownSession {
		t.Errorf("an unknown session: %+v", unknown.Err())
	}
}
