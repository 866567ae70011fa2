package evidence_test

// These tests drive a real daemon on the package's private desktop (internal/testdesk) and check
// the evidence it leaves: failure summaries, traces, bundles and replays.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/cli"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/evidence"
	"github.com/mcec/mcec/internal/evidence/replay"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/testdesk"
)

func TestMain(m *testing.M) { os.Exit(testdesk.Main(m)) }

// caller runs tools on a daemon; every envelope goes through the schema check.
type caller struct {
	t *testing.T
	d *daemon.Daemon
}

func startDaemon(t *testing.T, cfg daemon.Config) *caller {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if cfg.SessionsDir == "" {
		cfg.SessionsDir = t.TempDir()
	}
	cfg.Safety.AllowAll = true // the test desktop is attached: opt in as the operator would
	d, err := daemon.Start(ctx, cfg)
	if err != nil {
		t.Fatalf("daemon: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return &caller{t: t, d: d}
}

func (c *caller) call(tool string, args map[string]any) contract.Envelope {
	c.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		c.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := c.d.Dispatcher.Call(ctx, tool, raw)
	if err != nil {
		c.t.Fatalf("%s: %v", tool, err)
	}
	c.d.Evidence.Settle()
	return contracttest.Check(c.t, contracttest.CheckEnvelope(c.t, out.Envelope))
}

func (c *caller) ok(tool string, args map[string]any, result any) contract.Envelope {
	c.t.Helper()
	env := c.call(tool, args)
	if !env.OK() {
		c.t.Fatalf("%s %v failed: %+v", tool, args, env.Err())
	}
	if result != nil {
		if err := env.DecodeResult(result); err != nil {
			c.t.Fatal(err)
		}
	}
	return env
}

// evidenceCaller is the same for replay.Run.
func (c *caller) evidenceCaller() replay.Caller {
	return replay.CallerFunc(func(ctx context.Context, tool string, args json.RawMessage) ([]byte, error) {
		out, err := c.d.Dispatcher.Call(ctx, tool, args)
		if err != nil {
			return nil, err
		}
		return contracttest.CheckEnvelope(c.t, out.Envelope), nil
	})
}

// copyApp writes the test app to dir; a non-empty extra adds a label with that text.
func copyApp(t *testing.T, dir, extra string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "evapp.py"))
	if err != nil {
		t.Fatal(err)
	}
	src = bytes.Replace(src, []byte(`EXTRA = ""`), []byte(`EXTRA = "`+extra+`"`), 1)
	path := filepath.Join(dir, "evapp.py")
	if err := os.WriteFile(path, src, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// base64Run finds long base64 text: what must never be in evidence files.
var base64Run = regexp.MustCompile(`[A-Za-z0-9+/]{200,}={0,2}`)

func runCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String() + errb.String()
}

func TestFailureSummaryAndTrace(t *testing.T) {
	root := t.TempDir()
	c := startDaemon(t, daemon.Config{SessionsDir: root})
	p := testdesk.Start(t, copyApp(t, t.TempDir(), ""))
	testdesk.WaitWindow(t, p.PID, 20*time.Second)
	testdesk.WaitAccessible(t, p.PID, 20*time.Second)

	var st struct {
		SessionID   string `json:"sessionId"`
		ArtifactDir string `json:"artifactDir"`
	}
	c.ok("session-start", nil, &st)
	dir, sid := st.ArtifactDir, st.SessionID
	if dir == "" || !strings.HasPrefix(dir, root) {
		t.Fatalf("artifactDir %q not under %s", dir, root)
	}
	var ws struct {
		Windows []struct {
			Handle uint32 `json:"handle"`
		} `json:"windows"`
	}
	c.ok("windows", map[string]any{"sessionId": sid, "pid": p.PID}, &ws)
	if len(ws.Windows) != 1 {
		t.Fatalf("windows of the app: %+v", ws)
	}
	h := ws.Windows[0].Handle
	var capt struct {
		Base64   string `json:"base64"`
		Artifact string `json:"artifact"`
	}
	c.ok("capture", map[string]any{"sessionId": sid, "handle": h}, &capt)
	if capt.Base64 == "" || capt.Artifact == "" {
		t.Fatalf("capture without inline image or artifact")
	}

	summary := filepath.Join(dir, evidence.SummaryFile)
	checkSummary := func(call, tool, code string) {
		t.Helper()
		md := readFile(t, summary)
		for _, want := range []string{"# FAIL: session " + sid, "Call " + call + ": `" + tool + "`", "code: `" + code + "`",
			"## Last good observation", "Kind: `capture-summary`", "(" + filepath.Base(capt.Artifact) + ")"} {
			if !strings.Contains(md, want) {
				t.Errorf("failure-summary.md lacks %q:\n%s", want, md)
			}
		}
		if base64Run.MatchString(md) {
			t.Error("failure-summary.md holds base64")
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.Base(capt.Artifact))); err != nil {
			t.Errorf("the last good observation's artifact: %v", err)
		}
	}

	// A wait-for that times out.
	env := c.call("wait-for", map[string]any{"sessionId": sid, "handle": h, "element": map[string]any{"name": "never there"}, "timeout": 300})
	contracttest.Fail(t, env, contract.Timeout, contract.CodeWaitConditionTimeout)
	checkSummary("4", "wait-for", "wait-condition-timeout")

	// A capture of a window that then closed.
	testdesk.Kill(t, p.PID)
	testdesk.WaitFor(t, 10*time.Second, "the app's window did not close", func() bool {
		_, err := c.d.Desktop.Window(context.Background(), h)
		return errors.Is(err, platform.ErrWindowClosed)
	})
	env = c.call("capture", map[string]any{"sessionId": sid, "handle": h})
	contracttest.Fail(t, env, contract.StaleElement, contract.CodeWindowClosed)
	checkSummary("5", "capture", "window-closed")

	// session-status tells the same story.
	var status struct {
		Calls      int `json:"calls"`
		Failures   int `json:"failures"`
		LastAction struct {
			Tool string `json:"tool"`
			OK   bool   `json:"ok"`
			Code string `json:"code"`
		} `json:"lastAction"`
		LastError struct {
			Code string `json:"code"`
		} `json:"lastError"`
		LastObservation struct {
			Kind     string `json:"kind"`
			Artifact string `json:"artifact"`
		} `json:"lastObservation"`
		ArtifactDir string `json:"artifactDir"`
	}
	c.ok("session-status", map[string]any{"sessionId": sid}, &status)
	if status.Calls != 5 || status.Failures != 2 || status.LastAction.Tool != "capture" || status.LastAction.OK ||
		status.LastAction.Code != "window-closed" || status.LastError.Code != "window-closed" ||
		status.LastObservation.Artifact != capt.Artifact || status.ArtifactDir != dir {
		t.Errorf("session-status %+v", status)
	}

	// The trace holds every call (session-status included), in order, and no base64.
	trace := readFile(t, filepath.Join(dir, evidence.TraceFile))
	if base64Run.MatchString(trace) {
		t.Error("tool-calls.jsonl holds base64")
	}
	b, err := evidence.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := b.Verify()
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, l := range v.Lines {
		if l.Kind == evidence.KindRequest {
			tools = append(tools, l.Tool)
		}
	}
	if got, want := strings.Join(tools, " "), "session-start windows capture wait-for capture session-status"; got != want {
		t.Errorf("trace calls %q, want %q", got, want)
	}
	if img := v.Lines[5].Image; img == nil || img.Artifact != capt.Artifact {
		t.Errorf("capture's image block is not replaced by its artifact: %+v", img)
	}

	// bundle: zip by id, verify the zip and the directory; a cut line fails --verify.
	zipPath := filepath.Join(t.TempDir(), "ev.zip")
	if code, out := runCLI(t, "bundle", sid, "--sessions-dir", root, "--out", zipPath); code != 0 {
		t.Fatalf("mcec bundle: exit %d: %s", code, out)
	}
	for _, target := range []string{zipPath, dir} {
		if code, out := runCLI(t, "bundle", "--verify", target); code != 0 || !strings.Contains(out, "hash chain intact") {
			t.Errorf("mcec bundle --verify %s: exit %d: %s", target, code, out)
		}
	}
	cut := filepath.Join(t.TempDir(), filepath.Base(dir))
	if err := os.MkdirAll(cut, 0o700); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(trace, "\n")
	os.WriteFile(filepath.Join(cut, evidence.TraceFile), []byte(strings.Join(append(lines[:4:4], lines[5:]...), "")), 0o600)
	os.WriteFile(filepath.Join(cut, evidence.SessionFile), []byte(readFile(t, filepath.Join(dir, evidence.SessionFile))), 0o600)
	code, out := runCLI(t, "bundle", "--verify", cut)
	if code != 1 || !strings.Contains(out, "line 5") {
		t.Errorf("--verify of a trace with line 5 cut: exit %d: %s", code, out)
	}

	// environment.json (written in the background) names the desktop, never secrets.
	c.d.Evidence.Close()
	envJSON := readFile(t, filepath.Join(dir, evidence.EnvironmentFile))
	var e evidence.Environment
	if err := json.Unmarshal([]byte(envJSON), &e); err != nil {
		t.Fatal(err)
	}
	if e.MCECVersion == "" || e.OS.GOOS != "linux" || len(e.Displays) == 0 || e.Displays[0].DPI <= 0 ||
		!strings.EqualFold(e.WindowManager, "openbox") {
		t.Errorf("environment.json: %s", envJSON)
	}
	for _, secret := range []string{"DBUS_SESSION_BUS_ADDRESS", "unix:path", os.Getenv("HOME")} {
		if secret != "" && strings.Contains(envJSON, secret) {
			t.Errorf("environment.json holds %q", secret)
		}
	}
}

// recordSession drives the test app through a short task in a session of its own and returns
// the session directory. The app is launched by the recorded session itself, so a replay on a
// fresh desktop can start it again.
func recordSession(t *testing.T, c *caller, script string) string {
	t.Helper()
	var st struct {
		SessionID   string `json:"sessionId"`
		ArtifactDir string `json:"artifactDir"`
	}
	c.ok("session-start", nil, &st)
	sid := st.SessionID
	var l struct {
		ProcessID int    `json:"processId"`
		Handle    uint32 `json:"handle"`
	}
	c.ok("launch", map[string]any{"sessionId": sid, "path": script, "timeout": 20000}, &l)
	t.Cleanup(func() { testdesk.Kill(t, l.ProcessID) })
	h, pid := l.Handle, l.ProcessID
	c.ok("wait-for", map[string]any{"sessionId": sid, "handle": h, "element": map[string]any{"name": "Apply", "role": "push button"}, "timeout": 20000}, nil)
	c.ok("windows", map[string]any{"sessionId": sid, "window": "mcec evidence app"}, nil)
	c.ok("query", map[string]any{"sessionId": sid, "handle": h, "maxDepth": 12}, nil)
	var f struct {
		Found   bool `json:"found"`
		Element struct {
			Ref string `json:"ref"`
		} `json:"element"`
	}
	c.ok("find", map[string]any{"sessionId": sid, "pid": pid, "element": map[string]any{"name": "Apply", "role": "push button"}}, &f)
	if !f.Found {
		t.Fatal("Apply not found")
	}
	c.ok("invoke", map[string]any{"sessionId": sid, "element": map[string]any{"ref": f.Element.Ref}, "action": "invoke"}, nil)
	c.ok("wait-for", map[string]any{"sessionId": sid, "handle": h, "element": map[string]any{"name": "applied"}, "timeout": 10000}, nil)
	c.ok("capture", map[string]any{"sessionId": sid, "handle": h, "pathOnly": true}, nil)
	env := c.call("wait-for", map[string]any{"sessionId": sid, "pid": pid, "element": map[string]any{"name": "never there"}, "timeout": 200})
	contracttest.Fail(t, env, contract.Timeout, contract.CodeWaitConditionTimeout)
	c.ok("session-end", map[string]any{"sessionId": sid}, nil)
	return st.ArtifactDir
}

func TestReplay(t *testing.T) {
	c := startDaemon(t, daemon.Config{})
	appDir := t.TempDir()
	script := copyApp(t, appDir, "")
	dir := recordSession(t, c, script)
	zipPath := filepath.Join(t.TempDir(), "session.zip")
	if _, err := evidence.Zip(dir, zipPath); err != nil {
		t.Fatal(err)
	}
	b, err := evidence.Open(zipPath)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("same app on a fresh private desktop", func(t *testing.T) {
		fresh := startDaemon(t, daemon.Config{Headless: true})
		if fresh.d.Private == nil {
			t.Fatal("the replay daemon did not start a private desktop")
		}
		fresh.t = t
		rep, err := replay.Run(context.Background(), b, fresh.evidenceCaller())
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		rep.Print(&out)
		if rep.Failed() || rep.Matched != 11 {
			t.Fatalf("replay diverged:\n%s", out.String())
		}
		// Pids always differ between the runs; handles and refs may coincide (fresh X servers and
		// buses number alike), which the unit test of the remapper covers.
		if !strings.Contains(out.String(), "remapped pid") {
			t.Errorf("no pid was remapped:\n%s", out.String())
		}
		t.Log("\n" + out.String())
	})

	t.Run("changed app diverges", func(t *testing.T) {
		// Same path, but the app now shows the element the recording waited for in vain.
		copyApp(t, appDir, "never there")
		// The recording launches its app: replaying it needs the operator's grant.
		code, out := runCLI(t, "replay", zipPath, "--sessions-dir", t.TempDir(), "--allow-all")
		if code != 1 {
			t.Fatalf("mcec replay of a changed app: exit %d, want 1:\n%s", code, out)
		}
		if !regexp.MustCompile(`(?m)^10\s+wait-for\s+timeout/wait-condition-timeout\s+ok\s+DIVERGED`).MatchString(out) ||
			!strings.Contains(out, "first divergence: call 10 wait-for") || !strings.Contains(out, "10 match, 1 diverged") {
			t.Errorf("the diverging call is not reported:\n%s", out)
		}
		t.Log("\n" + out)
	})
}
