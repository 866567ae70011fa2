package consentdesk

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/cli"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/rawcmd/queue"
	"github.com/mcec/mcec/internal/safety"
	"github.com/mcec/mcec/internal/testdesk"
)

func TestMain(m *testing.M) { os.Exit(testdesk.Main(m)) }

// startDaemon attaches a daemon to the test desktop with the agent surface on but nothing
// granted: launch and raw input are gated, as on an operator's desktop after --allow-agent.
func startDaemon(t *testing.T, consentTimeout time.Duration) *daemon.Daemon {
	t.Helper()
	return startDaemonWith(t, daemon.Config{ConsentTimeout: consentTimeout, NoConsentDialog: true})
}

// startDaemonWith is startDaemon with cfg's consent settings and logger.
func startDaemonWith(t *testing.T, cfg daemon.Config) *daemon.Daemon {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	on := true
	d, err := daemon.Start(ctx, daemon.Config{SessionsDir: t.TempDir(), Safety: safety.Settings{Agent: &on}, Logger: cfg.Logger,
		ConsentTimeout: cfg.ConsentTimeout, NoConsentDialog: cfg.NoConsentDialog, Commands: daemon.CommandsConfig{File: filepath.Join(t.TempDir(), "commands.toml")}})
	if err != nil {
		t.Fatalf("daemon: %v", err)
	}
	if d.Private != nil {
		t.Fatal("the daemon started its own desktop instead of attaching to the test desktop")
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// call runs one tool and validates the envelope.
func call(t *testing.T, d *daemon.Daemon, tool string, args any) contract.Envelope {
	t.Helper()
	return contracttest.Check(t, <-callAsync(d, tool, args))
}

// callAsync runs a tool on another goroutine and delivers the envelope JSON; the test goroutine
// validates it with contracttest.Check.
func callAsync(d *daemon.Daemon, tool string, args any) <-chan []byte {
	raw, _ := json.Marshal(args)
	out := make(chan []byte, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		o, err := d.Dispatcher.Call(ctx, tool, raw)
		if err != nil {
			out <- []byte(err.Error())
			return
		}
		b, _ := json.Marshal(o.Envelope)
		out <- b
	}()
	return out
}

func wantCode(t *testing.T, env contract.Envelope, code contract.Code) {
	t.Helper()
	if env.OK() || env.Err().Code != code {
		t.Fatalf("want %s, got ok=%v err=%+v", code, env.OK(), env.Err())
	}
}

// terminal is `mcec consent` running in-process with piped standard streams.
type terminal struct {
	in   *io.PipeWriter
	out  testdesk.LogBuffer // its standard output and error
	done chan int
}

func (w *terminal) text() string { return w.out.String() }

func startTerminal(t *testing.T, d *daemon.Daemon) *terminal {
	t.Helper()
	r, w := io.Pipe()
	term := &terminal{in: w, done: make(chan int, 1)}
	go func() {
		term.done <- cli.Main([]string{"consent", "--socket", d.Control.Path()}, r, &term.out, &term.out)
	}()
	t.Cleanup(func() { term.stop(t) })
	testdesk.WaitFor(t, 15*time.Second, "the prompter to wait for questions", d.Consent.Available)
	return term
}

// waitFor waits until the terminal shows s.
func (w *terminal) waitFor(t *testing.T, s string) {
	t.Helper()
	testdesk.WaitFor(t, 20*time.Second, "the prompter to show "+s, func() bool { return strings.Contains(w.text(), s) })
}

func (w *terminal) answer(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// stop ends the prompter by closing its input, as at the end of a piped script.
func (w *terminal) stop(t *testing.T) {
	w.in.Close()
	select {
	case code := <-w.done:
		w.done <- code
		if code != 0 {
			t.Errorf("mcec consent exited %d:\n%s", code, w.text())
		}
	case <-time.After(15 * time.Second):
		t.Error("mcec consent did not stop at the end of its input")
	}
}

type accessResult struct {
	Granted        []string `json:"granted"`
	AlreadyEnabled []string `json:"alreadyEnabled"`
	Scope          string   `json:"scope"`
}

func enabledTools(t *testing.T, d *daemon.Daemon) []string {
	t.Helper()
	env := call(t, d, "session-status", map[string]any{})
	var st struct {
		CommandAccess safety.CommandAccess `json:"commandAccess"`
	}
	if err := env.DecodeResult(&st); err != nil {
		t.Fatal(err)
	}
	return st.CommandAccess.EnabledTools
}

// launchSleep starts `sleep 60` with the launch tool, failing the test unless launch is
// enabled, and kills it.
func launchSleep(t *testing.T, d *daemon.Daemon) {
	t.Helper()
	env := call(t, d, "launch", map[string]any{"path": "sleep", "arguments": []string{"60"}, "timeout": 0})
	var launched struct {
		ProcessID int `json:"processId"`
	}
	if err := env.DecodeResult(&launched); err != nil || !env.OK() || launched.ProcessID == 0 {
		t.Fatalf("launch after the grant: %+v %v", env.Err(), err)
	}
	_ = syscall.Kill(launched.ProcessID, syscall.SIGKILL)
}

func TestConsentTerminal(t *testing.T) {
	d := startDaemon(t, 60*time.Second)
	ask := func(names ...string) map[string]any {
		return map[string]any{"commands": names, "reason": "open the editor for the task\u202Egnp.exe\n\x1b[2J"}
	}

	// No prompter: consent-unavailable at once, and launch stays gated.
	wantCode(t, call(t, d, "request-command-access", ask("launch")), contract.CodeConsentUnavailable)
	wantCode(t, call(t, d, "launch", map[string]any{"path": "sleep", "arguments": []string{"60"}, "timeout": 0}), contract.CodeCommandDisabled)
	if slices.Contains(enabledTools(t, d), "launch") {
		t.Fatal("launch enabled before any grant")
	}
	// Nine names, and unknown names, are refused before anyone is asked.
	wantCode(t, call(t, d, "request-command-access", ask("a", "b", "c", "d", "e", "f", "g", "h", "i")), contract.CodeBadArguments)
	env := call(t, d, "request-command-access", ask("launch", "no-such-thing"))
	wantCode(t, env, contract.CodeBadArguments)
	if !strings.Contains(env.Err().Detail, `"no-such-thing"`) {
		t.Errorf("detail does not list the unknown name: %s", env.Err().Detail)
	}

	term := startTerminal(t, d)

	t.Run("grant", func(t *testing.T) {
		pending := callAsync(d, "request-command-access", ask("launch", "windows"))
		term.waitFor(t, "request c1")
		if !d.Consent.Pending() {
			t.Fatal("no question open while the prompter shows one")
		}
		out := term.text()
		if !strings.Contains(out, "reason:   open the editor for the task\uFFFDgnp.exe\uFFFD\uFFFD[2J") || strings.ContainsAny(out, "\u202E\x1b") {
			t.Errorf("the reason reached the terminal unneutralized:\n%q", out)
		}
		if !strings.Contains(out, "commands: launch\n") {
			t.Errorf("the question should name only what is gated:\n%s", out)
		}

		// While the prompt is open only observation is served.
		wantCode(t, call(t, d, "click", map[string]any{"x": 10, "y": 10}), contract.CodeConsentPending)
		wantCode(t, call(t, d, "send_command", map[string]any{"command": "ctrl-a"}), contract.CodeConsentPending)
		wantCode(t, call(t, d, "request-command-access", ask("keysym")), contract.CodeConsentPending)
		if env := call(t, d, "windows", map[string]any{}); !env.OK() {
			t.Errorf("windows while pending: %+v", env.Err())
		}
		// The TCP line protocol's raw input is refused too, and the input gate is held.
		var ce *contract.Error
		if _, err := d.Commands.Run(context.Background(), "mcec:ver", queue.OriginLine); err != nil {
			t.Errorf("a meta command while pending: %v", err)
		}
		if _, err := d.Commands.Run(context.Background(), "chars:y", queue.OriginLine); !errors.As(err, &ce) || ce.Code != contract.CodeConsentPending {
			t.Errorf("raw typing while pending: %v", err)
		}
		hctx, hcancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		if release, err := d.Gate.Freeze(hctx); err == nil {
			release()
			t.Error("the input gate was free while the prompt was open")
		}
		hcancel()

		term.answer(t, "maybe")
		term.waitFor(t, "please answer o, s, y, a or n")
		term.answer(t, "y")
		env := contracttest.Check(t, <-pending)
		var res accessResult
		if err := env.DecodeResult(&res); err != nil || !env.OK() {
			t.Fatalf("grant: %+v %v", env.Err(), err)
		}
		if !slices.Equal(res.Granted, []string{"launch"}) || !slices.Equal(res.AlreadyEnabled, []string{"windows"}) || res.Scope != "process" {
			t.Errorf("result %+v", res)
		}
		if !slices.Contains(enabledTools(t, d), "launch") {
			t.Error("commandAccess does not show the grant")
		}
		launchSleep(t, d)
		// Asking for what is enabled asks nobody.
		env = call(t, d, "request-command-access", ask("launch"))
		if err := env.DecodeResult(&res); err != nil || !env.OK() || len(res.Granted) != 0 || !slices.Equal(res.AlreadyEnabled, []string{"launch"}) {
			t.Errorf("already enabled: %+v %+v", env.Err(), res)
		}
	})

	t.Run("deny then sticky", func(t *testing.T) {
		testdesk.WaitFor(t, 15*time.Second, "the prompter to come back", d.Consent.Available)
		pending := callAsync(d, "request-command-access", ask("keysym"))
		term.waitFor(t, "request c2")
		term.answer(t, "n")
		wantCode(t, contracttest.Check(t, <-pending), contract.CodeConsentDenied)
		start := time.Now()
		wantCode(t, call(t, d, "request-command-access", ask("ctrl-a")), contract.CodeConsentDenied)
		if time.Since(start) > 10*time.Second || strings.Contains(term.text(), "request c3") {
			t.Error("a request after the deny was put to the operator")
		}
		if env := call(t, d, "send_command", map[string]any{"command": "keysym:Return"}); env.OK() {
			t.Error("a denied raw command ran")
		}
	})
}

func TestConsentTimeout(t *testing.T) {
	d := startDaemon(t, 2*time.Second)
	term := startTerminal(t, d)
	pending := callAsync(d, "request-command-access", map[string]any{"commands": []string{"launch"}, "reason": "timeout test"})
	term.waitFor(t, "request c1")
	env := contracttest.Check(t, <-pending)
	wantCode(t, env, contract.CodeConsentTimeout)
	if env.Err().Category != contract.Timeout {
		t.Errorf("category %v", env.Err().Category)
	}
	if d.Consent.Pending() {
		t.Error("the question is still open after the timeout")
	}
	wantCode(t, call(t, d, "launch", map[string]any{"path": "sleep", "arguments": []string{"60"}}), contract.CodeCommandDisabled)
	// The terminal takes the closed question down; a late "y" answers nothing, not even the
	// next question, which was not on screen when it was typed.
	term.waitFor(t, "request c1 was answered elsewhere or timed out")
	term.answer(t, "y")
	pending = callAsync(d, "request-command-access", map[string]any{"commands": []string{"launch"}, "reason": "second"})
	term.waitFor(t, "request c2")
	wantCode(t, contracttest.Check(t, <-pending), contract.CodeConsentTimeout)
	if slices.Contains(enabledTools(t, d), "launch") {
		t.Error("a late answer granted launch")
	}
}

// TestConsentScopes: "s" grants to the asking session alone, until it ends; "o" grants the
// asking session's next call that needs the name, then gates it again.
func TestConsentScopes(t *testing.T) {
	d := startDaemon(t, 60*time.Second)
	term := startTerminal(t, d)
	var started struct {
		SessionID string `json:"sessionId"`
	}
	if env := call(t, d, "session-start", map[string]any{}); env.DecodeResult(&started) != nil || started.SessionID == "" {
		t.Fatalf("session-start: %+v", env.Err())
	}
	a := started.SessionID
	sleep := map[string]any{"path": "sleep", "arguments": []string{"60"}, "timeout": 0}
	inA := func(args map[string]any) map[string]any {
		out := map[string]any{"sessionId": a}
		for k, v := range args {
			out[k] = v
		}
		return out
	}

	pending := callAsync(d, "request-command-access", inA(map[string]any{"commands": []string{"launch"}, "reason": "open the editor"}))
	term.waitFor(t, "request c1")
	term.answer(t, "s")
	var res accessResult
	if env := contracttest.Check(t, <-pending); env.DecodeResult(&res) != nil || res.Scope != "session" || !slices.Equal(res.Granted, []string{"launch"}) {
		t.Fatalf("grant for the session: %+v %+v", env.Err(), res)
	}
	for range 2 {
		env := call(t, d, "launch", inA(sleep))
		var launched struct {
			ProcessID int `json:"processId"`
		}
		if err := env.DecodeResult(&launched); err != nil || !env.OK() {
			t.Fatalf("launch in the granted session: %+v %v", env.Err(), err)
		}
		_ = syscall.Kill(launched.ProcessID, syscall.SIGKILL)
	}
	wantCode(t, call(t, d, "launch", sleep), contract.CodeCommandDisabled) // the default session
	if slices.Contains(enabledTools(t, d), "launch") {
		t.Error("commandAccess shows a grant for one session as everyone's")
	}
	if g := d.Consent.Grants(); len(g.Scoped) != 1 || g.Scoped[0].Session != a || g.Scoped[0].Scope != "session" {
		t.Errorf("grants in force: %+v", g)
	}
	if env := call(t, d, "session-end", map[string]any{"sessionId": a}); !env.OK() {
		t.Fatalf("session-end: %+v", env.Err())
	}
	if g := d.Consent.Grants(); len(g.Scoped) != 0 {
		t.Errorf("the ended session's grant is still listed: %+v", g)
	}

	// Once, in the default session: one send_command line, then gated again.
	testdesk.WaitFor(t, 15*time.Second, "the prompter to come back", d.Consent.Available)
	pending = callAsync(d, "request-command-access", map[string]any{"commands": []string{"keysym"}, "reason": "press F5"})
	term.waitFor(t, "request c2")
	term.answer(t, "o")
	if env := contracttest.Check(t, <-pending); env.DecodeResult(&res) != nil || res.Scope != "once" {
		t.Fatalf("grant once: %+v %+v", env.Err(), res)
	}
	if env := call(t, d, "send_command", map[string]any{"command": "F5"}); !env.OK() {
		t.Fatalf("the call the grant was for: %+v", env.Err())
	}
	wantCode(t, call(t, d, "send_command", map[string]any{"command": "F5"}), contract.CodeCommandDisabled)
}
