package main_test

// End-to-end tests of the real binary: built once, then driven as an MCP client would drive it,
// over stdio and over HTTP, each run on the private headless desktop mcec starts for itself.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/testdesk"
)

var (
	binary string
	// runtimeDir is the XDG_RUNTIME_DIR of every mcec the tests start: their control sockets
	// and token files live there, never in the real one.
	runtimeDir string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcec-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "mcec")
	runtimeDir = filepath.Join(dir, "run")
	if err := os.Mkdir(runtimeDir, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build mcec: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// mcecCmd is the binary with a clean desktop environment: no DISPLAY, so it starts its own; the
// tests' own runtime directory; no token from the environment.
func mcecCmd(t *testing.T, args ...string) *exec.Cmd {
	cmd := exec.Command(binary, args...)
	env := []string{"MCEC_SESSIONS_DIR=" + t.TempDir(), "MCEC_LOG_LEVEL=warn", "XDG_RUNTIME_DIR=" + runtimeDir}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "MCEC_SERVER", "MCEC_SESSIONS_DIR", "MCEC_LOG_LEVEL", "MCEC_TOKEN":
		default:
			env = append(env, kv)
		}
	}
	cmd.Env = env
	return cmd
}

// assertGone fails unless every pid has exited (or is a zombie waiting for its reaper).
func assertGone(t *testing.T, pids []int) {
	t.Helper()
	for _, p := range pids {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		if fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:])); len(fields) > 0 && fields[0] != "Z" {
			t.Errorf("process %d is still running after mcec exited: %s", p, stat)
		}
	}
}

func envelopeOf(t *testing.T, res *mcp.CallToolResult) contract.Envelope {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatal("empty tool result")
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("first block is %T", res.Content[0])
	}
	env := contracttest.Check(t, []byte(text.Text))
	if res.IsError != !env.OK() {
		t.Fatalf("isError=%v but ok=%v", res.IsError, env.OK())
	}
	return env
}

// checkStructured validates a result's structuredContent against the outputSchema tools/list
// advertised for its tool, and requires it to be the envelope of the text block.
func checkStructured(t *testing.T, tool *mcp.Tool, res *mcp.CallToolResult) {
	t.Helper()
	if tool == nil || tool.OutputSchema == nil {
		t.Fatalf("no outputSchema advertised for the tool of %+v", res)
	}
	raw, err := json.Marshal(tool.OutputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatalf("%s's outputSchema: %v", tool.Name, err)
	}
	var structured, text any
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &structured); err != nil {
		t.Fatal(err)
	}
	if err := resolved.Validate(structured); err != nil {
		t.Errorf("%s: structuredContent does not match the advertised outputSchema: %v", tool.Name, err)
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &text); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(structured, text) {
		t.Errorf("%s: structuredContent is not the text block's envelope", tool.Name)
	}
}

// exercise runs the skeleton's tools through an MCP client session against a desktop that has
// gtk3-widget-factory starting in it.
func exercise(t *testing.T, cs *mcp.ClientSession) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if ins := cs.InitializeResult().Instructions; !strings.Contains(ins, "observe") {
		t.Errorf("initialize instructions: %q", ins)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]*mcp.Tool{}
	for _, tool := range tools.Tools {
		names[tool.Name] = tool
	}
	for _, want := range []string{"windows", "query", "capture", "displays", "session-start", "session-status", "session-end"} {
		if names[want] == nil || names[want].InputSchema == nil || names[want].Annotations == nil {
			t.Errorf("tool %s missing or without schema/annotations", want)
		}
	}
	if !names["windows"].Annotations.ReadOnlyHint {
		t.Error("windows is not annotated read-only")
	}

	// The factory starts with mcec: wait (on window events) for its window, then (on accessibility
	// events) for its tree.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "windows", Arguments: map[string]any{
		"process": "gtk3-widget-factory", "condition": "appears", "timeout": 30000}})
	if err != nil {
		t.Fatal(err)
	}
	checkStructured(t, names["windows"], res)
	var appeared struct {
		Satisfied bool
		Windows   []struct {
			ProcessID int `json:"processId"`
		} `json:"windows"`
	}
	if err := envelopeOf(t, res).DecodeResult(&appeared); err != nil || !appeared.Satisfied || len(appeared.Windows) != 1 {
		t.Fatalf("gtk3-widget-factory never appeared: %v %+v", err, appeared)
	}
	pid := appeared.Windows[0].ProcessID
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait-for", Arguments: map[string]any{
		"pid": pid, "element": map[string]any{"name": "Page 2"}, "timeout": 30000}})
	if err != nil {
		t.Fatal(err)
	}
	checkStructured(t, names["wait-for"], res)
	if env := envelopeOf(t, res); !env.OK() {
		t.Fatalf("wait-for the factory's tree: %+v", env.Err())
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "query", Arguments: map[string]any{"pid": pid, "maxDepth": 3}})
	if err != nil {
		t.Fatal(err)
	}
	checkStructured(t, names["query"], res)
	if env := envelopeOf(t, res); !env.OK() {
		t.Fatalf("query: %+v", env.Err())
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "capture", Arguments: map[string]any{"pid": pid, "maxWidth": 320}})
	if err != nil {
		t.Fatal(err)
	}
	checkStructured(t, names["capture"], res)
	if env := envelopeOf(t, res); !env.OK() {
		t.Fatalf("capture: %+v", env.Err())
	}
	if len(res.Content) != 2 {
		t.Fatalf("capture returned %d blocks, want text + image", len(res.Content))
	}
	if img, ok := res.Content[1].(*mcp.ImageContent); !ok || img.MIMEType != "image/png" || !bytes.HasPrefix(img.Data, []byte("\x89PNG")) {
		t.Fatalf("second block %T is not a PNG image", res.Content[1])
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "query", Arguments: map[string]any{"window": "no such window"}})
	if err != nil {
		t.Fatal(err)
	}
	checkStructured(t, names["query"], res)
	if env := envelopeOf(t, res); !res.IsError || env.Err().Code != contract.CodeWindowNotFound {
		t.Fatalf("failing call: %+v", env.Err())
	}

	// An unknown tool is a protocol error, not an envelope.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "no-such-tool", Arguments: map[string]any{}}); err == nil {
		t.Error("unknown tool did not fail at the protocol level")
	}
}

func TestStdioWithGoClient(t *testing.T) {
	cmd := mcecCmd(t, "mcp", "--launch", "gtk3-widget-factory")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	children := testdesk.ChildPIDs(cmd.Process.Pid)
	if len(children) < 4 {
		t.Errorf("expected the private desktop's processes as children, got %v", children)
	}
	exercise(t, cs)
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	assertGone(t, children)
	if t.Failed() {
		t.Logf("stderr:\n%s", stderr.String())
	}
}

func TestStdioSurvivesMalformedLines(t *testing.T) {
	cmd := mcecCmd(t, "mcp")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("mcec did not exit when stdin closed")
		}
	})
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 1<<20), 16<<20)
	send := func(s string) { io.WriteString(stdin, s+"\n") }
	recv := func() map[string]any {
		t.Helper()
		got := make(chan map[string]any, 1)
		go func() {
			var m map[string]any
			if lines.Scan() {
				_ = json.Unmarshal(lines.Bytes(), &m)
			}
			got <- m
		}()
		select {
		case m := <-got:
			if m == nil {
				t.Fatalf("no response; stderr:\n%s", stderr.String())
			}
			return m
		case <-time.After(30 * time.Second):
			t.Fatalf("timed out; stderr:\n%s", stderr.String())
		}
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if r := recv(); r["result"] == nil {
		t.Fatalf("initialize: %v", r)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":`)
	r := recv()
	if e, _ := r["error"].(map[string]any); e == nil || e["code"] != float64(-32700) {
		t.Fatalf("malformed line: %v", r)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"displays","arguments":{}}}`)
	r = recv()
	if r["id"] != float64(3) || r["result"] == nil {
		t.Fatalf("request after the malformed line: %v", r)
	}
	raw, _ := json.Marshal(r["result"])
	var tr struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(raw, &tr); err != nil || len(tr.Content) == 0 {
		t.Fatalf("displays result %s: %v", raw, err)
	}
	if env := contracttest.Check(t, []byte(tr.Content[0].Text)); !env.OK() {
		t.Fatalf("displays: %+v", env.Err())
	}
}

var (
	listening = regexp.MustCompile(`serving MCP at (http://[^ ]+)/mcp`)
	// shownToken is the line that shows the made-up token once.
	shownToken = regexp.MustCompile(`"Authorization: Bearer ([A-Za-z0-9]+)"`)
	// consoleLogin is the line that shows the operator console's first login link.
	consoleLogin = regexp.MustCompile(`log in \(once, within 5 minutes\) at (http://\S+)`)
)

// startServe runs `mcec serve --port 0 ARGS…` on its own private desktop and returns the command,
// the server's base URL and the token it made up (empty with --no-token). When the test ends the
// server is stopped with SIGTERM, every process of its desktop must be gone and so must its token
// file; its log is shown if the test failed.
func startServe(t *testing.T, args ...string) (*exec.Cmd, string, string) {
	t.Helper()
	cmd, base, token, _ := startServeConsole(t, args...)
	return cmd, base, token
}

// startServeConsole is startServe that also returns the operator console's login link, when
// args ask for the console (--console), from the line that shows it at start.
func startServeConsole(t *testing.T, args ...string) (cmd *exec.Cmd, base, token, login string) {
	t.Helper()
	cmd = mcecCmd(t, append([]string{"serve", "--port", "0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		mu       sync.Mutex
		log      bytes.Buffer
		children []int
		port     = "none"
	)
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if m := shownToken.FindStringSubmatch(line); m != nil {
				token = m[1] // before the listening line, which publishes it to the test
				line = strings.ReplaceAll(line, m[1], "<token>")
			}
			if m := consoleLogin.FindStringSubmatch(line); m != nil {
				login = m[1] // before the listening line too
				line = strings.ReplaceAll(line, m[1], "<login link>")
			}
			mu.Lock()
			log.WriteString(line + "\n")
			mu.Unlock()
			if m := listening.FindStringSubmatch(line); m != nil {
				urlc <- m[1]
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("mcec serve did not stop on SIGTERM")
		}
		assertGone(t, children)
		if files, _ := filepath.Glob(filepath.Join(runtimeDir, "mcec", "token-"+port)); len(files) > 0 {
			t.Errorf("token file left after SIGTERM: %v", files)
		}
		if t.Failed() {
			mu.Lock()
			t.Logf("server log:\n%s", log.String())
			mu.Unlock()
		}
	})
	select {
	case base = <-urlc:
		children = testdesk.ChildPIDs(cmd.Process.Pid)
		port = base[strings.LastIndexByte(base, ':')+1:]
		return cmd, base, token, login
	case <-time.After(30 * time.Second):
		t.Fatal("mcec serve did not start")
	}
	return nil, "", "", ""
}

// bearerTransport presents a token on every request, as an MCP client configured with a header.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// post sends a façade call with the token (none when empty).
func post(t *testing.T, url, token, body string) (int, []byte) {
	t.Helper()
	return testdesk.PostJSON(t, url, token, body)
}

func TestHTTP(t *testing.T) {
	_, base, token := startServe(t, "--launch", "gtk3-widget-factory")
	if token == "" {
		t.Fatal("mcec serve showed no token")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp",
		HTTPClient: &http.Client{Transport: bearerTransport{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	exercise(t, cs)
	cs.Close()

	// The façade: the body is the arguments, the response the envelope, 200 whatever ok says.
	for _, tc := range []struct {
		tool, body, token string
		status            int
		ok                bool
	}{
		{"windows", `{}`, token, 200, true},
		{"query", `{"window":"no such window"}`, token, 200, false},
		{"windows", `{"window":`, token, 400, false},
		{"nope", `{}`, token, 404, false},
		// Issue 17 row 19: a token by default; another local user has none.
		{"windows", `{}`, "", 401, false},
		{"windows", `{}`, token + "x", 401, false},
	} {
		status, body := post(t, base+"/v1/tools/"+tc.tool, tc.token, tc.body)
		if status != tc.status {
			t.Errorf("%s %s: status %d, want %d: %s", tc.tool, tc.body, status, tc.status, body)
			continue
		}
		if tc.status == 200 {
			if env := contracttest.Check(t, body); env.OK() != tc.ok {
				t.Errorf("%s: ok=%v", tc.tool, env.OK())
			}
		}
	}
	if _, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: base + "/mcp", MaxRetries: -1}, nil); err == nil {
		t.Error("an MCP client without the token was served")
	}

	// mcec call finds the running server by URL, and its token in the token file.
	call := mcecCmd(t, "call", "--server", base, "windows")
	out, err := call.Output()
	if err != nil {
		t.Fatalf("mcec call --server: %v", err)
	}
	contracttest.Check(t, bytes.TrimSpace(out))

	// So does the stdio bridge.
	bridge := mcecCmd(t, "mcp", "--server", base+"/mcp")
	bcs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: bridge}, nil)
	if err != nil {
		t.Fatalf("mcec mcp --server: %v", err)
	}
	res, err := bcs.CallTool(ctx, &mcp.CallToolParams{Name: "windows", Arguments: map[string]any{}})
	if err != nil {
		t.Fatalf("windows through the bridge: %v", err)
	}
	if env := envelopeOf(t, res); !env.OK() {
		t.Errorf("windows through the bridge: %+v", env.Err())
	}
	bcs.Close()
}

func TestCallCommand(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantExit int
		envelope bool
	}{
		{"ok", []string{"call", "--local", "displays"}, 0, true},
		{"tool failure", []string{"call", "--local", "query", `{"window":"none"}`}, 1, true},
		{"bad JSON", []string{"call", "--local", "windows", `{"x":`}, 2, false},
		{"unknown tool", []string{"call", "--local", "nope"}, 2, false},
		{"no tool", []string{"call"}, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := mcecCmd(t, tt.args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.wantExit {
				t.Fatalf("exit %d, want %d; stdout %s; stderr %s", code, tt.wantExit, stdout.String(), stderr.String())
			}
			if tt.envelope {
				contracttest.Check(t, bytes.TrimSpace(stdout.Bytes()))
			} else if stdout.Len() > 0 {
				t.Errorf("stdout on a usage error: %s", stdout.String())
			}
		})
	}
}

func TestDesktopRun(t *testing.T) {
	cmd := mcecCmd(t, "desktop", "run", "--", "sh", "-c", `test -n "$DISPLAY" && test -n "$DBUS_SESSION_BUS_ADDRESS" && exit 7`)
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 7 {
		t.Fatalf("desktop run: %v, want exit 7", err)
	}
}

// TestActingOverStdio drives a multi-step task through an MCP client over stdio, verifying each
// step with a fresh observation.
func TestActingOverStdio(t *testing.T) {
	cmd := mcecCmd(t, "mcp", "--launch", "gtk3-widget-factory")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	defer cs.Close()
	call := func(tool string, args map[string]any, out any) contract.Envelope {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		env := envelopeOf(t, res)
		if out != nil && env.OK() {
			if err := env.DecodeResult(out); err != nil {
				t.Fatal(err)
			}
		}
		return env
	}
	// The factory starts with mcec: wait for its window, then for its accessible tree.
	var w struct {
		Satisfied bool
		Windows   []struct {
			ProcessID int `json:"processId"`
		}
	}
	call("windows", map[string]any{"process": "gtk3-widget-factory", "condition": "appears", "timeout": 30000}, &w)
	if !w.Satisfied {
		t.Fatalf("no factory window; stderr:\n%s", stderr.String())
	}
	pid := w.Windows[0].ProcessID
	var found struct{ Found bool }
	if env := call("wait-for", map[string]any{"pid": pid, "element": map[string]any{"name": "Page 2"}, "timeout": 30000}, &found); !env.OK() {
		t.Fatalf("wait-for: %+v", env.Err())
	}

	steps := []struct {
		name   string
		invoke map[string]any
		verify map[string]any // a find that must hit afterwards
	}{
		{"select the stack's Page 2",
			map[string]any{"element": map[string]any{"name": "Page 2", "role": "radio button"}, "action": "select"},
			map[string]any{"element": map[string]any{"name": "Page 2", "role": "radio button"}}},
		{"back to Page 1",
			map[string]any{"element": map[string]any{"name": "Page 1", "role": "radio button"}, "action": "select"},
			map[string]any{"element": map[string]any{"name": "Page 1", "role": "radio button"}}},
		{"select a notebook tab",
			map[string]any{"element": map[string]any{"name": "page 3", "role": "page tab", "index": 0}, "action": "select"},
			map[string]any{"element": map[string]any{"name": "page 3", "role": "page tab", "index": 0}}},
	}
	for _, s := range steps {
		args := map[string]any{"pid": pid}
		for k, v := range s.invoke {
			args[k] = v
		}
		var r struct{ Invoked bool }
		if env := call("invoke", args, &r); !env.OK() || !r.Invoked {
			t.Fatalf("%s: %+v", s.name, env.Err())
		}
		vargs := map[string]any{"pid": pid}
		for k, v := range s.verify {
			vargs[k] = v
		}
		var f struct {
			Found   bool
			Element struct {
				ToggleState string `json:"toggleState"`
				IsSelected  *bool  `json:"isSelected"`
			}
		}
		call("find", vargs, &f)
		if !f.Found || (f.Element.ToggleState != "on" && (f.Element.IsSelected == nil || !*f.Element.IsSelected)) {
			t.Errorf("%s: not selected afterwards: %+v", s.name, f)
		}
	}
}
