package console_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/console"
	"github.com/mcec/mcec/internal/control"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/daemon/daemontest"
	"github.com/mcec/mcec/internal/evidence"
	"github.com/mcec/mcec/internal/safety"
	"github.com/mcec/mcec/internal/transport"
)

// TestConsoleOverTheDaemon drives the console of a whole daemon (over a fake desktop) as an
// operator would: a login link from the control socket, the agents' calls narrated live, Stop
// refusing the next call with the stop's code and Re-arm serving again; and the credentials
// kept apart: the console's cookie opens none of the agents' endpoints.
func TestConsoleOverTheDaemon(t *testing.T) {
	d := daemontest.Start(t, daemon.Config{Safety: safety.Settings{AllowAll: true}, Console: "127.0.0.1:0"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	// The login link comes from the operator's control socket.
	p := openConsole(ctx, t, d)
	browser, base, jar := p.browser, p.base, p.browser.Jar

	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/events", nil)
	stream, err := browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	events := bufio.NewScanner(stream.Body)
	next := func() console.Narration {
		t.Helper()
		for events.Scan() {
			if data, ok := strings.CutPrefix(events.Text(), "data: "); ok {
				var n console.Narration
				if err := json.Unmarshal([]byte(data), &n); err != nil {
					t.Fatal(err)
				}
				return n
			}
		}
		t.Fatalf("the event stream ended: %v", events.Err())
		return console.Narration{}
	}

	d.OK(t, "windows", map[string]any{}, nil)
	if n := next(); n.Tool != "windows" || !n.OK || n.Session == "" {
		t.Errorf("narration of windows: %+v", n)
	}

	operate := func(path string) console.State {
		t.Helper()
		code, st := p.post(path, "")
		if code != http.StatusOK {
			t.Fatalf("POST %s: %d", path, code)
		}
		return st
	}
	if st := operate("/api/stop"); st.EmergencyStop.State != "stopped" {
		t.Fatalf("after Stop: %+v", st)
	}
	contracttest.Fail(t, d.Call(t, "windows", map[string]any{}), contract.Internal, contract.CodeEmergencyStopped)
	if n := next(); n.Tool != "windows" || n.OK || n.Code != string(contract.CodeEmergencyStopped) {
		t.Errorf("narration of the refused call: %+v", n)
	}
	if st := operate("/api/rearm"); !st.Rearmed || st.EmergencyStop.State == "stopped" {
		t.Fatalf("after Re-arm: %+v", st)
	}
	d.OK(t, "windows", map[string]any{}, nil)
	if got, want := traceEvents(t, d), "windows, emergency-stop by console, windows, rearm by console, windows"; got != want {
		t.Errorf("the trace: %s\nwant: %s", got, want)
	}

	// The agents' HTTP endpoints take their bearer token only, never the console's cookie.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	srv := transport.NewHTTPServer(d.Dispatcher, func() *mcp.Server { return d.MCPServer("http") },
		transport.HTTPOptions{Door: transport.FrontDoor{Port: port, Bind: netip.MustParseAddr("127.0.0.1"), Token: "agent-token"}})
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	facade := "http://" + ln.Addr().String() + "/v1/tools/windows"
	u, _ := url.Parse(base)
	for _, withToken := range []bool{false, true} {
		req, _ := http.NewRequestWithContext(ctx, "POST", facade, strings.NewReader("{}"))
		for _, c := range jar.Cookies(u) {
			req.AddCookie(c)
		}
		if withToken {
			req.Header.Set("Authorization", "Bearer agent-token")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want := map[bool]int{false: http.StatusUnauthorized, true: http.StatusOK}[withToken]; resp.StatusCode != want {
			t.Errorf("façade with the console's cookie, bearer token %v: %d, want %d", withToken, resp.StatusCode, want)
		}
	}
}

// TestApprovalsOverTheDaemon answers an agent's request-command-access in the console, as an
// operator with the page open would, then revokes the grant: the agent is refused again.
func TestApprovalsOverTheDaemon(t *testing.T) {
	on := true
	d := daemontest.Start(t, daemon.Config{Safety: safety.Settings{Agent: &on}, Console: "127.0.0.1:0"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := openConsole(ctx, t, d)
	browser, base, operate := p.browser, p.base, p.post

	// Nobody watches: there is nobody to ask.
	contracttest.Fail(t, d.Call(t, "request-command-access", map[string]any{"commands": []string{"launch"}, "reason": "r"}),
		contract.Internal, contract.CodeConsentUnavailable)

	// The page is open: its event stream makes the console a prompter.
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/events", nil)
	stream, err := browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	events := bufio.NewScanner(stream.Body)
	question := func() (open bool, q struct {
		ID       string
		Commands []string
		Reason   string
	}) {
		t.Helper()
		kind := ""
		for events.Scan() {
			line := events.Text()
			if k, ok := strings.CutPrefix(line, "event: "); ok {
				kind = k
				continue
			}
			if data, ok := strings.CutPrefix(line, "data: "); ok && kind == "question" {
				var e struct {
					Open     bool
					ID       string
					Question *struct {
						ID       string
						Commands []string
						Reason   string
					}
				}
				if err := json.Unmarshal([]byte(data), &e); err != nil {
					t.Fatal(err)
				}
				if e.Question != nil {
					q = *e.Question
				}
				q.ID = e.ID
				return e.Open, q
			}
			if line == "" {
				kind = ""
			}
		}
		t.Fatalf("the event stream ended: %v", events.Err())
		return
	}

	asked := make(chan contract.Envelope, 1)
	go func() {
		env, _ := d.CallErr("request-command-access", map[string]any{"commands": []string{"launch"}, "reason": "open the\x1b[2J editor"})
		asked <- env
	}()
	open, q := question()
	if !open || len(q.Commands) != 1 || q.Commands[0] != "launch" || q.Reason != "open the\uFFFD[2J editor" {
		t.Fatalf("question: open %v %+v", open, q)
	}
	if code, _ := operate("/api/answer", `{"id":"`+q.ID+`","answer":"maybe"}`); code != http.StatusBadRequest {
		t.Errorf("a made-up answer: %d, want 400", code)
	}
	if code, _ := operate("/api/answer", `{"id":"`+q.ID+`","answer":"grant"}`); code != http.StatusOK {
		t.Fatalf("grant: %d", code)
	}
	env := contracttest.Check(t, contracttest.CheckEnvelope(t, <-asked))
	var res struct {
		Granted    []string
		AnsweredBy string
	}
	if !env.OK() || env.DecodeResult(&res) != nil || len(res.Granted) != 1 || res.AnsweredBy != "operator" {
		t.Fatalf("the agent's request: %+v %+v", env.Err(), res)
	}
	resp, err := browser.Get(base + "/api/state")
	if err != nil {
		t.Fatal(err)
	}
	var st console.State
	err = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if err != nil || st.Grants == nil || len(st.Grants.Commands) != 1 || st.Grants.Commands[0] != "launch" {
		t.Fatalf("grants after the answer: %v %+v", err, st.Grants)
	}
	if open, closed := question(); open || closed.ID != q.ID {
		t.Errorf("the question did not close in the stream: %v %+v", open, closed)
	}
	if code, _ := operate("/api/answer", `{"id":"`+q.ID+`","answer":"deny"}`); code != http.StatusConflict {
		t.Errorf("answering a closed question: %d, want 409", code)
	}

	// Revoked: launch is gated again.
	if code, _ := operate("/api/revoke", `{"command":"windows"}`); code != http.StatusConflict {
		t.Errorf("revoking what was never granted: %d, want 409", code)
	}
	if code, st := operate("/api/revoke", `{"command":"launch"}`); code != http.StatusOK || len(st.Grants.Commands) != 0 {
		t.Fatalf("revoke: %d %+v", code, st.Grants)
	}
	contracttest.Fail(t, d.Call(t, "launch", map[string]any{"path": "/bin/true"}), contract.Internal, contract.CodeCommandDisabled)
}

// TestTakeOverOverTheDaemon takes control from the console: the agents' actions are refused
// with operator-in-control while observation is served and session-status says who has
// control; handing back serves them again.
func TestTakeOverOverTheDaemon(t *testing.T) {
	d := daemontest.Start(t, daemon.Config{Safety: safety.Settings{AllowAll: true}, Console: "127.0.0.1:0"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := openConsole(ctx, t, d)
	operate := func(path string) console.State {
		t.Helper()
		code, st := p.post(path, "")
		if code != http.StatusOK || st.Control == nil {
			t.Fatalf("POST %s: %d", path, code)
		}
		return st
	}
	click := map[string]any{"at": map[string]any{"x": 10, "y": 10}, "settle": 0}
	d.OK(t, "click", click, nil)

	if st := operate("/api/take"); st.Control.Holder != "operator" || st.Control.How != "console" {
		t.Fatalf("after Take control: %+v", st.Control)
	}
	e := contracttest.Fail(t, d.Call(t, "click", click), contract.Internal, contract.CodeOperatorInControl)
	if !strings.Contains(e.Detail, "retry") {
		t.Errorf("operator-in-control says nothing of when to retry: %s", e.Detail)
	}
	d.OK(t, "windows", map[string]any{}, nil) // observation is served
	var status struct {
		Control struct{ Holder string }
	}
	d.OK(t, "session-status", map[string]any{}, &status)
	if status.Control.Holder != "operator" {
		t.Errorf("session-status while the operator has control: %+v", status)
	}

	// The operator's own input from the page reaches the desktop; what they type is not logged.
	input := func(body string) int {
		t.Helper()
		code, _ := p.post("/api/input", body)
		return code
	}
	before := len(d.Fake.Gestures())
	for _, body := range []string{`{"kind":"click","x":40,"y":50,"right":true}`, `{"kind":"keys","keys":["Control_L","a"]}`, `{"kind":"text","text":"hi there"}`} {
		if code := input(body); code != http.StatusNoContent {
			t.Errorf("operator input %s: %d", body, code)
		}
	}
	if got := d.Fake.Gestures()[before:]; len(got) != 3 || got[0].Kind != "click" || got[0].Points[0].X != 40 || got[0].Button != 3 ||
		got[1].Kind != "chord" || got[2].Kind != "type" || got[2].Text != "hi there" {
		t.Errorf("the operator's input as the desktop got it: %+v", got)
	}
	if code := input(`{"kind":"keys","keys":[]}`); code != http.StatusBadRequest {
		t.Errorf("an empty chord: %d, want 400", code)
	}

	if st := operate("/api/handback"); st.Control.Holder != "agents" {
		t.Fatalf("after Hand back: %+v", st.Control)
	}
	if code := input(`{"kind":"click","x":1,"y":1}`); code != http.StatusConflict {
		t.Errorf("operator input without control: %d, want 409", code)
	}
	// The agent's next call is told the operator had control; the one after is not.
	if env := d.OK(t, "click", click, nil); !contracttest.HasWarning(env, contract.WarnOperatorIntervened) {
		t.Errorf("the first call after Hand back is not warned operator-intervened: %v", env.Warnings())
	}
	if env := d.OK(t, "windows", map[string]any{}, nil); contracttest.HasWarning(env, contract.WarnOperatorIntervened) {
		t.Error("operator-intervened given twice")
	}

	// The session's trace holds both, between the calls they came between, in its chain.
	if got, want := traceEvents(t, d), "click, take-control by console, click, windows, session-status, hand-back by console, click, windows"; got != want {
		t.Errorf("the trace: %s\nwant: %s", got, want)
	}
}

// consolePage is an operator's browser, logged in to a daemon's console.
type consolePage struct {
	t       *testing.T
	ctx     context.Context
	browser *http.Client
	base    string
}

// openConsole logs in with a link from the daemon's control socket, as mcec console-url gets
// one.
func openConsole(ctx context.Context, t *testing.T, d *daemontest.Daemon) *consolePage {
	t.Helper()
	if d.Console == nil {
		t.Fatal("no console")
	}
	var link daemon.ConsoleURL
	if err := control.Call(ctx, filepath.Join(d.Dir, "control.sock"), "console-url", nil, &link); err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	resp, err := browser.Get(link.URL)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), "mcec console") {
		t.Fatalf("login: %d", resp.StatusCode)
	}
	return &consolePage{t: t, ctx: ctx, browser: browser, base: "http://" + d.Console.Addr()}
}

// post sends a POST from the console's own page (its Origin) and decodes the state a 200 answers.
func (p *consolePage) post(path, body string) (int, console.State) {
	p.t.Helper()
	req, _ := http.NewRequestWithContext(p.ctx, "POST", p.base+path, strings.NewReader(body))
	req.Header.Set("Origin", p.base)
	resp, err := p.browser.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	var st console.State
	if resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&st) != nil {
		p.t.Fatalf("POST %s: undecodable answer", path)
	}
	return resp.StatusCode, st
}

// traceEvents reads the daemon's one session trace, verified, as "tool, event by how, …".
func traceEvents(t *testing.T, d *daemontest.Daemon) string {
	t.Helper()
	d.Evidence.Flush()
	traces, _ := filepath.Glob(filepath.Join(d.Dir, "sessions", "*", evidence.TraceFile))
	if len(traces) != 1 {
		t.Fatalf("traces: %v", traces)
	}
	b, err := evidence.Open(filepath.Dir(traces[0]))
	if err != nil {
		t.Fatal(err)
	}
	v, err := b.Verify()
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	for _, l := range v.Lines {
		switch l.Kind {
		case evidence.KindOperator:
			events = append(events, l.Event+" by "+l.How)
		case evidence.KindRequest:
			events = append(events, l.Tool)
		}
	}
	return strings.Join(events, ", ")
}

// get fetches a console path as the logged-in page does.
func (p *consolePage) get(path string) (int, http.Header, []byte) {
	p.t.Helper()
	req, _ := http.NewRequestWithContext(p.ctx, "GET", p.base+path, nil)
	resp, err := p.browser.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, body
}

// TestReviewOverTheDaemon lists a live session with its calls and opens its trace viewer page,
// which shows the failure first and allows no script; a name that is not a session directory of
// the sessions root is not found.
func TestReviewOverTheDaemon(t *testing.T) {
	d := daemontest.Start(t, daemon.Config{Safety: safety.Settings{AllowAll: true}, Console: "127.0.0.1:0"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p := openConsole(ctx, t, d)

	d.OK(t, "windows", map[string]any{}, nil)
	contracttest.Fail(t, d.Call(t, "window", map[string]any{"handle": 999999, "action": "foreground"}), contract.StaleElement, contract.CodeWindowClosed)
	d.Evidence.Flush()

	code, _, body := p.get("/api/sessions")
	var list []console.RecordedSession
	if code != http.StatusOK || json.Unmarshal(body, &list) != nil || len(list) != 1 {
		t.Fatalf("GET /api/sessions: %d %s", code, body)
	}
	if s := list[0]; !s.Live || s.ID == "" || !strings.HasSuffix(s.Name, s.ID) {
		t.Errorf("the session listed: %+v", s)
	}

	code, hdr, body := p.get("/view/" + list[0].Name)
	page := string(body)
	if code != http.StatusOK || !strings.Contains(page, "mcec trace") {
		t.Fatalf("GET /view: %d", code)
	}
	if csp := hdr.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script") {
		t.Errorf("the viewer's CSP %q allows more than styles and inline images", csp)
	}
	for _, want := range []string{`data-intact="true"`, "First failure", "stale-element/window-closed", "<summary autofocus>call 2: window"} {
		if !strings.Contains(page, want) {
			t.Errorf("the viewer page lacks %q", want)
		}
	}
	for _, bad := range []string{"..%2F" + list[0].Name, "nosuch", "20260101-000000-s-00"} {
		if code, _, _ := p.get("/view/" + bad); code != http.StatusNotFound {
			t.Errorf("GET /view/%s: %d, want 404", bad, code)
		}
	}
}
