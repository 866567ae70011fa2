package safety

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/admission"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/rawcmd"
	"github.com/mcec/mcec/internal/session"
)

func ptr[T any](v T) *T { return &v }

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// Precedence: default < file < environment < flags, switch by switch.
func TestResolvePrecedence(t *testing.T) {
	file, err := Parse("config.toml", []byte(`
[agent]
enabled = true
allow_all = false
[tools.launch]
enabled = true
[tools.click]
enabled = false
[raw_commands."chars:"]
enabled = true
[http]
enabled = false
[tcp]
enabled = true
[provisioning]
enabled = true
`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		file  File
		env   map[string]string
		flags Overrides
		want  func(Settings) bool
	}{
		{"defaults", File{}, nil, Overrides{}, func(s Settings) bool {
			return s.Agent == nil && !s.AllowAll && s.HTTP && !s.TCP && !s.Provisioning
		}},
		{"file", file, nil, Overrides{}, func(s Settings) bool {
			return *s.Agent && !s.AllowAll && !s.HTTP && s.TCP && s.Provisioning && s.Tools["launch"] && !s.Tools["click"] &&
				s.RawCommands["chars:"]
		}},
		{"env over file", file, map[string]string{EnvAllowAgent: "false", EnvHTTP: "1", EnvTCP: "false", EnvProvisioning: "0"}, Overrides{},
			func(s Settings) bool { return !*s.Agent && s.HTTP && !s.TCP && !s.Provisioning }},
		{"flags over env", file, map[string]string{EnvAllowAgent: "false", EnvTCP: "false"},
			Overrides{AllowAgent: ptr(true), TCP: ptr(true), AllowAll: ptr(true)},
			func(s Settings) bool { return *s.Agent && s.TCP && s.AllowAll }},
		{"allow-all implies the surface", File{}, nil, Overrides{AllowAll: ptr(true)},
			func(s Settings) bool { return s.Agent != nil && *s.Agent && s.AllowAll }},
		{"explicit off beats allow-all", File{}, map[string]string{EnvAllowAll: "true"}, Overrides{AllowAgent: ptr(false)},
			func(s Settings) bool { return !*s.Agent }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Resolve(c.file, env(c.env), c.flags)
			if err != nil {
				t.Fatal(err)
			}
			if !c.want(s) {
				t.Errorf("settings = %+v", s)
			}
		})
	}
	if _, err := Resolve(File{}, env(map[string]string{EnvAllowAll: "yes please"}), Overrides{}); err == nil {
		t.Error("a malformed MCEC_ALLOW_ALL was accepted")
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if f, err := Load(filepath.Join(dir, "absent.toml"), false); err != nil || f.Agent.Enabled != nil {
		t.Errorf("an absent default file: %+v, %v", f, err)
	}
	if _, err := Load(filepath.Join(dir, "absent.toml"), true); err == nil {
		t.Error("an absent --config file was accepted")
	}
	bad := filepath.Join(dir, "bad.toml")
	for _, c := range []struct{ body, want string }{
		{"[agent]\nallow_al = true\n", `unknown setting "agent.allow_al"`},
		{"[agent]\nenabled = \n", "line 2"},
		{"[tools.launch]\nenabled = \"yes\"\n", "bad.toml"},
	} {
		if err := os.WriteFile(bad, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(bad, true); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v, want %q", c.body, err, c.want)
		}
	}
}

// rig is a dispatcher over test tools that count their runs, guarded by a policy whose audit
// log is captured.
type rig struct {
	d    *dispatch.Dispatcher
	p    *Policy
	runs map[string]*atomic.Int32
	log  *bytes.Buffer
}

type textArgs struct {
	Text    *string `json:"text,omitempty"`
	Action  string  `json:"action,omitempty"`
	Command string  `json:"command,omitempty"`
}

func newRig(t *testing.T, s Settings, private bool) *rig {
	r := &rig{runs: map[string]*atomic.Int32{}, log: &bytes.Buffer{}}
	cat := catalog.New()
	for _, name := range []string{"windows", "click", "launch", "invoke", "clipboard", "send_command", "session-status"} {
		n := new(atomic.Int32)
		r.runs[name] = n
		cat.Add(catalog.Define(catalog.Spec[textArgs, map[string]any]{Name: name, Description: "counts its runs",
			Run: func(ctx context.Context, call *catalog.Call, in *textArgs, resp *catalog.Response) (*map[string]any, error) {
				n.Add(1)
				return &map[string]any{"ran": true}, nil
			}}))
	}
	r.p = NewPolicy(s, private, slog.New(slog.NewTextHandler(r.log, nil)))
	r.d = dispatch.New(cat, session.NewStore(session.Options{Root: t.TempDir()}), nil)
	r.d.SetAdmission(admission.New(nil, r.p))
	r.d.SetAudit(r.p)
	return r
}

func (r *rig) call(t *testing.T, tool, args string) contract.Envelope {
	t.Helper()
	out, err := r.d.Call(dispatch.WithTransport(context.Background(), "stdio"), tool, json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	return contracttest.Check(t, contracttest.CheckEnvelope(t, out.Envelope))
}

// The defaults of each desktop mode, and that a refused call never runs.
func TestGateDefaults(t *testing.T) {
	cases := []struct {
		name    string
		s       Settings
		private bool
		allowed []string
		refused map[string]contract.Code
	}{
		{"private: standard set", Settings{}, true, []string{"windows", "click", "invoke", "send_command"},
			map[string]contract.Code{"launch": contract.CodeCommandDisabled}},
		{"attached: off", Settings{}, false, nil,
			map[string]contract.Code{"windows": contract.CodeAgentCommandsDisabled, "click": contract.CodeAgentCommandsDisabled,
				"launch": contract.CodeAgentCommandsDisabled, "session-status": contract.CodeAgentCommandsDisabled}},
		{"attached --allow-agent", Settings{Agent: ptr(true)}, false, []string{"windows", "click"},
			map[string]contract.Code{"launch": contract.CodeCommandDisabled}},
		{"attached --allow-all", Settings{Agent: ptr(true), AllowAll: true}, false, []string{"windows", "click", "launch"}, nil},
		{"private, surface switched off", Settings{Agent: ptr(false)}, true, nil,
			map[string]contract.Code{"windows": contract.CodeAgentCommandsDisabled}},
		{"launch granted alone, click switched off", Settings{Tools: map[string]bool{"launch": true, "click": false}}, true,
			[]string{"launch", "windows"}, map[string]contract.Code{"click": contract.CodeCommandDisabled}},
		{"allow-all, but click switched off", Settings{Agent: ptr(true), AllowAll: true, Tools: map[string]bool{"click": false}}, false,
			[]string{"launch"}, map[string]contract.Code{"click": contract.CodeCommandDisabled}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t, c.s, c.private)
			for _, tool := range c.allowed {
				if env := r.call(t, tool, `{}`); !env.OK() || r.runs[tool].Load() != 1 {
					t.Errorf("%s: %+v, runs %d", tool, env.Err(), r.runs[tool].Load())
				}
			}
			for tool, code := range c.refused {
				env := r.call(t, tool, `{"sessionId":"s-nonexistent"}`)
				contracttest.Fail(t, env, contract.Internal, code)
				if n := r.runs[tool].Load(); n != 0 {
					t.Errorf("refused %s ran %d times", tool, n)
				}
				if !strings.Contains(r.log.String(), "AGENT-AUDIT refused") || !strings.Contains(r.log.String(), "tool="+tool) {
					t.Errorf("refusal of %s not audited:\n%s", tool, r.log)
				}
			}
		})
	}
}

// One audit line per call, with typed and pasted text, raw chars: payloads and secret-named
// values redacted.
func TestAuditRedacts(t *testing.T) {
	r := newRig(t, Settings{Agent: ptr(true), AllowAll: true}, false)
	secrets := []string{"hunter2", "tops3cret", "clipsecret", "p4ss"}
	r.call(t, "invoke", `{"action":"setvalue","text":"hunter2"}`)
	r.call(t, "send_command", `{"command":"chars:tops3cret"}`)
	r.call(t, "clipboard", `{"action":"set","text":"clipsecret"}`)
	r.call(t, "windows", `{}`)
	out := r.log.String()
	for _, s := range secrets[:3] {
		if strings.Contains(out, s) {
			t.Errorf("audit log leaks %q:\n%s", s, out)
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("want 4 audit lines, got %d:\n%s", len(lines), out)
	}
	for i, want := range []string{"tool=invoke", "tool=send_command", "tool=clipboard", "tool=windows"} {
		if !strings.Contains(lines[i], `AGENT-AUDIT call" transport=stdio`) || !strings.Contains(lines[i], want) || !strings.Contains(lines[i], "ok=true") {
			t.Errorf("line %d = %s", i, lines[i])
		}
	}
	if !strings.Contains(lines[0], "redacted 7 chars") || !strings.Contains(lines[1], "chars:[redacted 9 chars]") {
		t.Errorf("redaction markers missing:\n%s", out)
	}
	if got := Redact("query", json.RawMessage(`{"element":{"name":"x"},"auth":{"password":"p4ss"}}`)); strings.Contains(got, "p4ss") {
		t.Errorf("nested secret leaks: %s", got)
	}
}

func TestRedactLine(t *testing.T) {
	for line, want := range map[string]string{
		"chars:hello":                            "chars:[redacted 5 chars]",
		"CHARS:héllo":                            "CHARS:[redacted 5 chars]",
		"ctrl-a":                                 "ctrl-a",
		`clipboard {"action":"set","text":"x1"}`: `clipboard {"action":"set","text":"[redacted 2 chars]"}`,
		`query {"pid":123}`:                      `query {"pid":123}`,
	} {
		if got := RedactLine(line); got != want {
			t.Errorf("RedactLine(%q) = %q, want %q", line, got, want)
		}
	}
}

// The raw command gate: input and program commands are gated until granted, meta commands and
// pause: never are, a per-name switch wins over allow-all.
func TestAllowRaw(t *testing.T) {
	table := rawcmd.Builtins([]string{"windows"})
	entry := func(name string) *rawcmd.Entry {
		e, ok := table.Lookup(name)
		if !ok {
			t.Fatalf("no entry %s", name)
		}
		return e
	}
	program := &rawcmd.Entry{Name: "term", Kind: rawcmd.EntryProgram, Enabled: true, Program: []string{"xterm"}}
	keysym := &rawcmd.Entry{Name: "F5", Kind: rawcmd.EntryKeysym, Enabled: true}
	cases := []struct {
		name    string
		s       Settings
		private bool
		e       *rawcmd.Entry
		want    contract.Code // "" allowed
	}{
		{"meta always", Settings{}, true, entry("mcec:ver"), ""},
		{"pause always", Settings{}, true, entry("pause:"), ""},
		{"chars on private", Settings{}, true, entry("chars:"), ""},
		{"chord on private", Settings{}, true, entry("ctrl-a"), ""},
		{"chars gated when attached with allow-agent", Settings{Agent: ptr(true)}, false, entry("chars:"), contract.CodeCommandDisabled},
		{"program gated on private", Settings{}, true, program, contract.CodeCommandDisabled},
		{"program gated when attached", Settings{Agent: ptr(true)}, false, program, contract.CodeCommandDisabled},
		{"attached off", Settings{}, false, entry("chars:"), contract.CodeAgentCommandsDisabled},
		{"allow-all", Settings{AllowAll: true}, true, entry("chars:"), ""},
		{"granted by name", Settings{RawCommands: map[string]bool{"chars:": true}}, true, entry("chars:"), ""},
		{"keysym granted as keysym", Settings{RawCommands: map[string]bool{"keysym": true}}, true, keysym, ""},
		{"switched off beats allow-all", Settings{AllowAll: true, RawCommands: map[string]bool{"mouse:": false}}, true, entry("mouse:"), contract.CodeCommandDisabled},
	}
	for _, c := range cases {
		err := NewPolicy(c.s, c.private, nil).AllowRaw(context.Background(), c.e)
		var ce *contract.Error
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.want != "" && (err == nil || !errorAs(err, &ce) || ce.Code != c.want):
			t.Errorf("%s: err = %v, want %s", c.name, err, c.want)
		}
	}
}

func errorAs(err error, target **contract.Error) bool {
	ce, ok := err.(*contract.Error)
	*target = ce
	return ok
}

// commandAccess comes from the live names and table, and matches what the gate does.
func TestAccess(t *testing.T) {
	table := rawcmd.Builtins([]string{"windows", "launch"})
	tools := []string{"windows", "click", "launch"}
	a := NewPolicy(Settings{}, true, nil).Access(tools, table.Entries())
	if !slices.Equal(a.EnabledTools, []string{"windows", "click"}) || !slices.Equal(a.GatedTools, []string{"launch"}) {
		t.Errorf("private defaults: %+v", a)
	}
	if !slices.Contains(a.EnabledRawCommands, "chars:") || !slices.Contains(a.EnabledRawCommands, "mcec:cmds") ||
		slices.Contains(a.EnabledRawCommands, "windows") {
		t.Errorf("raw commands: %v", a.EnabledRawCommands)
	}
	all := NewPolicy(Settings{AllowAll: true}, false, nil).Access(tools, table.Entries())
	if len(all.GatedTools) != 0 || !slices.Contains(all.EnabledRawCommands, "chars:") {
		t.Errorf("allow-all: %+v", all)
	}
	off := NewPolicy(Settings{}, false, nil).Access(tools, table.Entries())
	if off.AgentEnabled || len(off.EnabledTools) != 0 || slices.Contains(off.EnabledRawCommands, "chars:") ||
		!strings.Contains(off.Markdown(), "agent-commands-disabled") {
		t.Errorf("attached defaults: %+v\n%s", off, off.Markdown())
	}
	if md := a.Markdown(); !strings.Contains(md, "`launch`") || !strings.Contains(md, "Command access") {
		t.Errorf("markdown: %s", md)
	}
}

// Raw lines on the TCP line protocol are audited in the engine, redacted, refusals included.
func TestAuditRaw(t *testing.T) {
	var buf bytes.Buffer
	// Attached with the standard set: raw input is refused, and the refusal audited.
	p := NewPolicy(Settings{Agent: ptr(true)}, false, slog.New(slog.NewTextHandler(&buf, nil)))
	p.AuditRaw("chars:secretword", p.AllowRaw(context.Background(), &rawcmd.Entry{Name: "chars:", Kind: rawcmd.EntryPrefix}))
	p.AuditRaw("mcec:ver", nil)
	out := buf.String()
	if strings.Contains(out, "secretword") || !strings.Contains(out, "AGENT-AUDIT refused") ||
		!strings.Contains(out, "code=command-disabled") || !strings.Contains(out, "AGENT-AUDIT raw-command") {
		t.Errorf("raw audit:\n%s", out)
	}
}
