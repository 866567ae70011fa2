package safety_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/safety"
	"github.com/mcec/mcec/internal/testdesk"
)

func TestMain(m *testing.M) { os.Exit(testdesk.Main(m)) }

func start(t *testing.T, s safety.Settings) (*daemon.Daemon, *testdesk.LogBuffer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	logs := &testdesk.LogBuffer{}
	d, err := daemon.Start(ctx, daemon.Config{SessionsDir: t.TempDir(), Safety: s,
		Logger:   slog.New(slog.NewTextHandler(logs, nil)),
		Commands: daemon.CommandsConfig{File: filepath.Join(t.TempDir(), "commands.toml")}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if d.Private != nil {
		t.Fatal("want the daemon attached to the test desktop")
	}
	return d, logs
}

func call(t *testing.T, d *daemon.Daemon, tool, args string) contract.Envelope {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := d.Dispatcher.Call(dispatch.WithTransport(ctx, "facade"), tool, json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	return contracttest.Check(t, contracttest.CheckEnvelope(t, out.Envelope))
}

// Attached to an existing DISPLAY, the agent surface is off until the operator opts in.
func TestAttachedDefaultIsOff(t *testing.T) {
	d, logs := start(t, safety.Settings{})
	for _, tool := range []string{"windows", "session-status", "click"} {
		contracttest.Fail(t, call(t, d, tool, `{}`), contract.Internal, contract.CodeAgentCommandsDisabled)
	}
	if !strings.Contains(logs.String(), "AGENT-AUDIT refused") {
		t.Errorf("refusals not audited:\n%s", logs)
	}
	if a := d.CommandAccess(); a.AgentEnabled || len(a.EnabledTools) != 0 {
		t.Errorf("commandAccess = %+v", a)
	}
}

// With --allow-agent the standard set runs, launch and raw input stay gated and never run,
// and session-status and initialize report it from the live table.
func TestAllowAgentKeepsLaunchAndRawInputGated(t *testing.T) {
	d, logs := start(t, safety.Settings{Agent: ptr(true)})
	if env := call(t, d, "windows", `{}`); !env.OK() {
		t.Fatalf("windows: %+v", env.Err())
	}
	marker := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "touch.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	contracttest.Fail(t, call(t, d, "launch", `{"path":"`+script+`"}`), contract.Internal, contract.CodeCommandDisabled)
	contracttest.Fail(t, call(t, d, "send_command", `{"command":"chars:sekrit-typing"}`), contract.Internal, contract.CodeCommandDisabled)
	contracttest.Fail(t, call(t, d, "send_command", `{"command":"ctrl-a"}`), contract.Internal, contract.CodeCommandDisabled)
	if env := call(t, d, "send_command", `{"command":"mcec:ver"}`); !env.OK() {
		t.Errorf("mcec:ver: %+v", env.Err())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the refused launch ran")
	}

	env := call(t, d, "session-status", `{}`)
	var st struct {
		CommandAccess safety.CommandAccess `json:"commandAccess"`
	}
	if err := env.DecodeResult(&st); err != nil {
		t.Fatal(err)
	}
	a := st.CommandAccess
	if !a.AgentEnabled || !slices.Equal(a.GatedTools, []string{"launch"}) || !slices.Contains(a.EnabledTools, "windows") ||
		slices.Contains(a.EnabledRawCommands, "chars:") || !slices.Contains(a.EnabledRawCommands, "mcec:cmds") {
		t.Errorf("commandAccess = %+v", a)
	}
	if md := d.CommandAccess().Markdown(); !strings.Contains(md, "Gated tools") || !strings.Contains(md, "`launch`") {
		t.Errorf("initialize's command access section:\n%s", md)
	}
	out := logs.String()
	if strings.Contains(out, "sekrit-typing") {
		t.Errorf("the audit log leaks typed text:\n%s", out)
	}
	for _, want := range []string{`msg="AGENT-AUDIT call" transport=facade tool=windows`, `msg="AGENT-AUDIT refused" transport=facade tool=launch`, "chars:[redacted 13 chars]"} {
		if !strings.Contains(out, want) {
			t.Errorf("audit log lacks %q:\n%s", want, out)
		}
	}
}

func ptr[T any](v T) *T { return &v }
