package evidence_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/evidence"
	"github.com/mcec/mcec/internal/testdesk"
)

// syncBuffer is a log sink the daemon's goroutines may write to while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// traceOf reads a session's tool-calls.jsonl.
func traceOf(t *testing.T, c *caller, session string) string {
	t.Helper()
	var st struct {
		ArtifactDir string `json:"artifactDir"`
	}
	c.ok("session-status", map[string]any{"sessionId": session}, &st)
	b, err := os.ReadFile(filepath.Join(st.ArtifactDir, evidence.TraceFile))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Text typed into a password field never reaches the trace or the server's log; with the
// operator's option no typed or clipboard text does (issue 17 row 5).
func TestTypedTextWithheld(t *testing.T) {
	var logs syncBuffer
	c := startDaemon(t, daemon.Config{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	p := testdesk.Start(t, "/usr/bin/python3", "../platform/atspi/testdata/password.py")
	testdesk.WaitWindow(t, p.PID, 20*time.Second)
	testdesk.WaitAccessible(t, p.PID, 20*time.Second)

	var s struct {
		SessionID string `json:"sessionId"`
	}
	c.ok("session-start", map[string]any{}, &s)
	focus := func(role string) {
		t.Helper()
		c.ok("click", map[string]any{"sessionId": s.SessionID, "pid": p.PID, "at": map[string]any{"role": role}}, nil)
	}
	send := func(line string) {
		t.Helper()
		c.ok("send_command", map[string]any{"sessionId": s.SessionID, "command": line}, nil)
	}

	focus("password text")
	send("chars:secret123")
	// A failing call is recorded too (failure-summary.md, session.json): its text stays out.
	env := c.call("send_command", map[string]any{"sessionId": s.SessionID, "command": "chars:secret123", "settle": 3600000})
	if env.OK() {
		t.Fatal("a settle of an hour was accepted: the failing call this test needs did not fail")
	}
	focus("text")
	send("chars:plain-words")
	c.ok("clipboard", map[string]any{"sessionId": s.SessionID, "action": "set", "text": "copied-words"}, nil)

	trace := traceOf(t, c, s.SessionID)
	if strings.Contains(trace, "secret123") {
		t.Errorf("the trace holds the password:\n%s", grepLines(trace, "secret123"))
	}
	if !strings.Contains(trace, "[withheld: password field]") {
		t.Errorf("the trace does not say the password was withheld:\n%s", trace)
	}
	if !strings.Contains(trace, "plain-words") || !strings.Contains(trace, "copied-words") {
		t.Error("text typed into a plain field or set on the clipboard is withheld without the option")
	}
	if strings.Contains(logs.String(), "secret123") {
		t.Errorf("the server log holds the password:\n%s", grepLines(logs.String(), "secret123"))
	}
	var st struct {
		ArtifactDir string `json:"artifactDir"`
	}
	c.ok("session-status", map[string]any{"sessionId": s.SessionID}, &st)
	for _, f := range []string{evidence.SessionFile, evidence.SummaryFile} {
		if b, err := os.ReadFile(filepath.Join(st.ArtifactDir, f)); err == nil && bytes.Contains(b, []byte("secret123")) {
			t.Errorf("%s holds the password", f)
		}
	}

	// The operator's option: a recorder that withholds all typed text records the same calls.
	rec := evidence.New(evidence.Options{Root: t.TempDir(), Sessions: c.d.Sessions, WithholdTypedText: true})
	c.d.Dispatcher.SetObserver(rec)
	t.Cleanup(func() { c.d.Dispatcher.SetObserver(c.d.Evidence); rec.Close() })
	var s2 struct {
		SessionID string `json:"sessionId"`
	}
	c.ok("session-start", map[string]any{}, &s2)
	s.SessionID = s2.SessionID
	send("chars:hello-typed")
	c.ok("clipboard", map[string]any{"sessionId": s.SessionID, "action": "set", "text": "pasted-words"}, nil)
	c.ok("clipboard", map[string]any{"sessionId": s.SessionID}, nil)
	rec.Flush()
	trace = traceOf(t, c, s.SessionID)
	for _, secret := range []string{"hello-typed", "pasted-words"} {
		if strings.Contains(trace, secret) {
			t.Errorf("with withhold_typed_text the trace holds %q:\n%s", secret, grepLines(trace, secret))
		}
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the server log holds %q:\n%s", secret, grepLines(logs.String(), secret))
		}
	}
	if n := strings.Count(trace, "[withheld: typed text]"); n < 4 {
		t.Errorf("%d fields say they were withheld, want the command and its echo, and the clipboard text of both calls:\n%s", n, trace)
	}
}

// grepLines returns the lines holding s, clipped, for a failure message.
func grepLines(text, s string) string {
	var out []string
	for l := range strings.SplitSeq(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, fmt.Sprintf("%.400s", l))
		}
	}
	return strings.Join(out, "\n")
}
