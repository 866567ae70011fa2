package safetyfake_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/daemon/daemontest"
	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/estop"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/fake"
	"github.com/mcec/mcec/internal/safety"
	"github.com/mcec/mcec/internal/testdesk"
)

// start runs a daemon with the gates s over a fake desktop showing one editor window, whose
// text field has the focus.
func start(t *testing.T, s safety.Settings) (*daemontest.Daemon, *testdesk.LogBuffer) {
	t.Helper()
	logs := &testdesk.LogBuffer{}
	d := daemontest.Start(t, daemon.Config{Safety: s, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	text := ""
	d.Fake.AddWindow(fake.WindowSpec{Title: "Editor", ProcessName: "editor", PID: 5000001, Bounds: platform.Rect{X: 0, Y: 0, Width: 400, Height: 300},
		Root: &fake.Elem{Role: "frame", Name: "Editor", Children: []*fake.Elem{
			{Role: "text", Name: "Body", Bounds: &platform.Rect{X: 10, Y: 10, Width: 300, Height: 200}, Value: &text, States: []string{"focusable", "editable", "focused"}},
		}}})
	return d, logs
}

// call runs a tool as the façade would, so the audit names a transport.
func call(t *testing.T, d *daemontest.Daemon, tool string, args any) contract.Envelope {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := d.Dispatcher.Call(dispatch.WithTransport(ctx, "facade"), tool, raw)
	if err != nil {
		t.Fatal(err)
	}
	return contracttest.Check(t, contracttest.CheckEnvelope(t, out.Envelope))
}

func ptr[T any](v T) *T { return &v }

// Attached without the operator's opt-in, every tool is refused and nothing reaches the desktop.
func TestAttachedDefaultIsOff(t *testing.T) {
	d, logs := start(t, safety.Settings{})
	for _, tool := range []string{"windows", "click", "send_command"} {
		contracttest.Fail(t, call(t, d, tool, map[string]any{"command": "chars:x", "x": 5, "y": 5}), contract.Internal, contract.CodeAgentCommandsDisabled)
	}
	if g := d.Fake.Gestures(); len(g) != 0 {
		t.Errorf("refused calls reached the desktop: %+v", g)
	}
	if !strings.Contains(logs.String(), "AGENT-AUDIT refused") {
		t.Errorf("refusals not audited:\n%s", logs)
	}
}

// With --allow-agent, raw input stays gated: refused, audited without the typed text, and
// never typed.
func TestRawInputGatedNeverTyped(t *testing.T) {
	d, logs := start(t, safety.Settings{Agent: ptr(true)})
	contracttest.Fail(t, call(t, d, "send_command", map[string]any{"command": "chars:sekrit-typing"}), contract.Internal, contract.CodeCommandDisabled)
	contracttest.Fail(t, call(t, d, "send_command", map[string]any{"command": "ctrl-a"}), contract.Internal, contract.CodeCommandDisabled)
	if g := d.Fake.Gestures(); len(g) != 0 {
		t.Errorf("gated raw input reached the desktop: %+v", g)
	}
	if strings.Contains(logs.String(), "sekrit-typing") {
		t.Errorf("the audit log leaks typed text:\n%s", logs)
	}
	if env := call(t, d, "windows", map[string]any{}); !env.OK() {
		t.Errorf("windows with --allow-agent: %+v", env.Err())
	}
}

// With --allow-all raw input is typed; once the stop trips it is refused before any other
// gate (a gated tool answers emergency-stopped, not its gate), and nothing more is typed.
func TestStopIsFirstInTheChain(t *testing.T) {
	d, _ := start(t, safety.Settings{AllowAll: true})
	if env := call(t, d, "send_command", map[string]any{"command": "chars:abc"}); !env.OK() {
		t.Fatalf("chars:abc: %+v", env.Err())
	}
	ws, _ := d.Fake.Windows(t.Context())
	body := d.Fake.Ref(ws[0].Handle, "Body")
	if n, _ := d.Fake.Node(body); n.Value == nil || *n.Value != "abc" {
		t.Fatalf("the text field reads %v after chars:abc", n.Value)
	}
	typed := len(d.Fake.Gestures())
	<-d.Stop.Trip(estop.ByControlSocket)
	contracttest.Fail(t, call(t, d, "send_command", map[string]any{"command": "chars:more"}), contract.Internal, contract.CodeEmergencyStopped)
	contracttest.Fail(t, call(t, d, "windows", map[string]any{}), contract.Internal, contract.CodeEmergencyStopped)
	if n := len(d.Fake.Gestures()); n != typed {
		t.Errorf("%d gestures reached the desktop while stopped", n-typed)
	}

	gated, _ := start(t, safety.Settings{Agent: ptr(true)})
	<-gated.Stop.Trip(estop.ByControlSocket)
	contracttest.Fail(t, call(t, gated, "launch", map[string]any{"path": "/bin/true"}), contract.Internal, contract.CodeEmergencyStopped)
	contracttest.Fail(t, call(t, gated, "send_command", map[string]any{"command": "chars:x"}), contract.Internal, contract.CodeEmergencyStopped)
}
