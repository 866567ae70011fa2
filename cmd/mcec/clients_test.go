package main_test

// Real MCP clients against the real binary: the official conformance suite, the MCP Inspector CLI
// and the TypeScript SDK client, all from test/clients (pinned by its package-lock.json, installed
// by scripts/install-clients.sh, which `make test` runs first). They run on the Node 22 that the
// lockfile pins, not on the machine's node.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
)

var (
	clientsOnce sync.Once
	clientsSkip string // why the real-client tests cannot run here (no node or npm at all)
	clientsErr  error
)

// clientsDir is test/clients, absolute.
func clientsDir(t *testing.T) string {
	dir, err := filepath.Abs(filepath.Join("..", "..", "test", "clients"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// nodeClients makes sure test/clients is installed and returns its Node 22.
func nodeClients(t *testing.T) string {
	t.Helper()
	dir := clientsDir(t)
	clientsOnce.Do(func() {
		for _, prog := range []string{"node", "npm"} {
			if _, err := exec.LookPath(prog); err != nil {
				clientsSkip = prog + " is not installed"
				return
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, filepath.Join(dir, "..", "..", "scripts", "install-clients.sh")).CombinedOutput()
		if err != nil {
			clientsErr = fmt.Errorf("scripts/install-clients.sh: %v\n%s", err, out)
		}
	})
	if clientsSkip != "" {
		t.Skip("!!! SKIPPED: real MCP client tests need node and npm (" + clientsSkip + "); `make test` installs them")
	}
	if clientsErr != nil {
		t.Fatal(clientsErr)
	}
	return filepath.Join(dir, "node_modules", ".bin", "node")
}

// clientBin is an executable of test/clients' node_modules/.bin.
func clientBin(t *testing.T, name string) string {
	return filepath.Join(clientsDir(t), "node_modules", ".bin", name)
}

// clientCmd runs a node program with mcec's clean test environment, Node 22 first on PATH and
// HOME in a fresh temporary directory (the Inspector keeps a catalog there).
func clientCmd(ctx context.Context, t *testing.T, node string, args ...string) *exec.Cmd {
	base := mcecCmd(t)
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = clientsDir(t)
	cmd.Env = append(base.Env, "HOME="+t.TempDir(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// serveHTTP starts `mcec serve` on a free loopback port with its own private desktop and returns
// its base URL and the token it made up; the server is stopped by PID when the test ends.
func serveHTTP(t *testing.T, extra ...string) (string, string) {
	t.Helper()
	_, base, token := startServe(t, append([]string{"--headless"}, extra...)...)
	return base, token
}

// readBaseline reads conformance-baseline.yml: the scenarios under "server:", each of which
// must have a comment line (its reason) right above it.
func readBaseline(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(clientsDir(t), "conformance-baseline.yml"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	reason := ""
	inServer := false
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case line == "server:":
			inServer = true
		case !strings.HasPrefix(line, " ") && trimmed != "" && !strings.HasPrefix(trimmed, "#"):
			inServer = false
		case inServer && strings.HasPrefix(trimmed, "#"):
			reason = strings.TrimSpace(strings.TrimPrefix(trimmed, "#"))
		case inServer && strings.HasPrefix(trimmed, "- "):
			name := strings.TrimSpace(strings.TrimPrefix(trimmed, "- "))
			if reason == "" {
				t.Errorf("baseline entry %s has no reason comment above it", name)
			}
			out[name] = reason
			reason = ""
		}
	}
	if len(out) == 0 {
		t.Fatal("baseline lists no server scenario")
	}
	return out
}

var resultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$`)

// TestConformance runs the official MCP conformance suite's active server scenarios against
// `mcec serve` over streamable HTTP. The suite itself fails on an unexpected failure or on a
// baseline entry that passes; this test checks the same from the per-scenario results, so a
// change in the suite's exit code cannot hide either.
func TestConformance(t *testing.T) {
	node := nodeClients(t)
	// The conformance suite cannot present a bearer token: this server opts out, as an operator
	// may on loopback.
	base, _ := serveHTTP(t, "--no-token")
	baseline := readBaseline(t)
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := clientCmd(ctx, t, node, clientBin(t, "conformance"), "server", "--url", base+"/mcp",
		"--expected-failures", filepath.Join(clientsDir(t), "conformance-baseline.yml"), "-o", out)
	output, runErr := cmd.CombinedOutput()

	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var passed, expected []string
	ran := map[string]bool{}
	for _, e := range entries {
		m := resultDir.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		scenario := m[1]
		ran[scenario] = true
		b, err := os.ReadFile(filepath.Join(out, e.Name(), "checks.json"))
		if err != nil {
			t.Errorf("%s: %v", scenario, err)
			continue
		}
		var checks []struct{ Name, Status, ErrorMessage string }
		if err := json.Unmarshal(b, &checks); err != nil {
			t.Errorf("%s: checks.json: %v", scenario, err)
			continue
		}
		var failures []string
		for _, c := range checks {
			if c.Status == "FAILURE" {
				failures = append(failures, c.Name+": "+c.ErrorMessage)
			}
		}
		_, inBaseline := baseline[scenario]
		switch {
		case len(failures) > 0 && !inBaseline:
			t.Errorf("unexpected failure of %s: %s", scenario, strings.Join(failures, "; "))
		case len(failures) == 0 && inBaseline:
			t.Errorf("%s passes but is listed in conformance-baseline.yml: remove it", scenario)
		case len(failures) == 0:
			passed = append(passed, scenario)
		default:
			expected = append(expected, scenario)
		}
	}
	if len(ran) == 0 {
		t.Fatalf("the suite ran no scenario:\n%s", output)
	}
	for scenario := range baseline {
		if !ran[scenario] {
			t.Errorf("baseline entry %s did not run: remove it", scenario)
		}
	}
	if runErr != nil {
		t.Errorf("conformance suite: %v", runErr)
	}
	slices.Sort(passed)
	slices.Sort(expected)
	t.Logf("passed %d: %s", len(passed), strings.Join(passed, ", "))
	t.Logf("expected failures %d (fixture tools, prompts and resources): %s", len(expected), strings.Join(expected, ", "))
	if t.Failed() {
		t.Logf("suite output:\n%s", output)
	}
}

// toolResult is a tools/call result as the JS clients print it.
type toolResult struct {
	Content []struct {
		Type, Text, Data, MimeType string
	} `json:"content"`
	IsError bool `json:"isError"`
}

// checkResult checks one tools/call result: the first block is an envelope that passes the
// contract, isError agrees with ok, and an image block, when wanted, is a PNG.
func checkResult(t *testing.T, step string, r toolResult, wantError, wantImage bool) contract.Envelope {
	t.Helper()
	if len(r.Content) == 0 || r.Content[0].Type != "text" {
		t.Fatalf("%s: first block is not text: %+v", step, r.Content)
	}
	env := contracttest.Check(t, []byte(r.Content[0].Text))
	if r.IsError != !env.OK() {
		t.Errorf("%s: isError=%v but ok=%v", step, r.IsError, env.OK())
	}
	if r.IsError != wantError {
		t.Errorf("%s: isError=%v, want %v: %s", step, r.IsError, wantError, r.Content[0].Text)
	}
	hasImage := len(r.Content) == 2 && r.Content[1].Type == "image" && r.Content[1].MimeType == "image/png" &&
		strings.HasPrefix(r.Content[1].Data, "iVBORw0KGgo") // base64 of the PNG signature
	if hasImage != wantImage {
		t.Errorf("%s: PNG image block present=%v, want %v", step, hasImage, wantImage)
	}
	return env
}

// TestInspectorCLI drives mcec with the MCP Inspector in --cli mode, one Inspector process per
// request, over stdio (each request starts its own `mcec mcp`) and over HTTP.
func TestInspectorCLI(t *testing.T) {
	node := nodeClients(t)
	inspector := clientBin(t, "mcp-inspector")
	// inspect runs one request; the Inspector exits 5 when a tool answers isError.
	inspect := func(t *testing.T, target []string, args ...string) (stdout []byte, exitCode int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := clientCmd(ctx, t, node, append(append([]string{inspector, "--cli"}, target...), args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("inspector %v: %v\n%s", args, err, stderr.String())
		}
		if exit != nil && exit.ExitCode() != 5 {
			t.Fatalf("inspector %v: %v\n%s\n%s", args, err, out, stderr.String())
		}
		return out, cmd.ProcessState.ExitCode()
	}
	call := func(t *testing.T, target []string, tool string, wantError, wantImage bool, args ...string) contract.Envelope {
		t.Helper()
		a := []string{"--method", "tools/call", "--tool-name", tool}
		if len(args) > 0 {
			a = append(append(a, "--tool-arg"), args...)
		}
		out, code := inspect(t, target, a...)
		var r toolResult
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("%s: %v\n%s", tool, err, out)
		}
		if (code == 5) != r.IsError {
			t.Errorf("%s: exit %d but isError=%v", tool, code, r.IsError)
		}
		return checkResult(t, "inspector "+tool, r, wantError, wantImage)
	}
	listTools := func(t *testing.T, target []string) {
		out, _ := inspect(t, target, "--method", "tools/list")
		var list struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
				Annotations struct {
					ReadOnlyHint *bool `json:"readOnlyHint"`
				} `json:"annotations"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(out, &list); err != nil {
			t.Fatalf("tools/list: %v\n%s", err, out)
		}
		seen := map[string]bool{}
		for _, tool := range list.Tools {
			seen[tool.Name] = len(tool.InputSchema) > 0
			if tool.Name == "windows" && (tool.Annotations.ReadOnlyHint == nil || !*tool.Annotations.ReadOnlyHint) {
				t.Error("windows is not annotated read-only")
			}
		}
		for _, want := range []string{"windows", "query", "capture"} {
			if !seen[want] {
				t.Errorf("tools/list lacks %s (or its input schema)", want)
			}
		}
	}

	t.Run("stdio", func(t *testing.T) {
		// A fresh server and desktop per request: nothing has time to open a window, so the
		// successful calls are the ones an empty desktop answers.
		target := []string{binary, "mcp", "--headless", "--sessions-dir", t.TempDir()}
		listTools(t, target)
		call(t, target, "windows", false, false)
		call(t, target, "capture", false, true, "maxWidth=200")
		env := call(t, target, "query", true, false, "window=no such window")
		if env.Err() == nil || env.Err().Code != contract.CodeWindowNotFound {
			t.Errorf("query of a missing window: %+v", env.Err())
		}
	})

	t.Run("http", func(t *testing.T) {
		base, token := serveHTTP(t, "--launch", "gtk3-widget-factory")
		// The Inspector presents the token as a header (a throwaway token in a test's argv).
		target := []string{base + "/mcp", "--header", "Authorization: Bearer " + token}
		listTools(t, target)
		call(t, target, "windows", false, false)
		// The factory's tree registers on the accessibility bus a moment after it starts.
		deadline := time.Now().Add(30 * time.Second)
		for {
			out, _ := inspect(t, target, "--method", "tools/call", "--tool-name", "query",
				"--tool-arg", "process=gtk3-widget-factory", "maxDepth=2")
			var r toolResult
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatalf("query: %v\n%s", err, out)
			}
			env := checkResult(t, "inspector query", r, r.IsError, false)
			if env.OK() {
				break
			}
			if c := env.Err().Code; (c != contract.CodeWindowNotFound && c != contract.CodeNoAccessibleTree) || time.Now().After(deadline) {
				t.Fatalf("query: %+v", env.Err())
			}
			time.Sleep(200 * time.Millisecond) // polling the window and its tree with a deadline
		}
		call(t, target, "capture", false, true, "process=gtk3-widget-factory", "maxWidth=320")
		env := call(t, target, "query", true, false, "window=no such window")
		if env.Err() == nil || env.Err().Code != contract.CodeWindowNotFound {
			t.Errorf("query of a missing window: %+v", env.Err())
		}
	})
}

// TestTypeScriptSDK runs test/clients/sdk-smoke.mjs (the TypeScript SDK client: list tools with
// their output schemas, wait for the factory with windows, query, capture, a failing query,
// progress, a cancelled wait-for, a linked capture read back as a resource) over stdio and over
// HTTP, and checks every envelope it saw against the contract.
func TestTypeScriptSDK(t *testing.T) {
	node := nodeClients(t)
	run := func(t *testing.T, token string, args ...string) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := clientCmd(ctx, t, node, append([]string{"sdk-smoke.mjs"}, args...)...)
		if token != "" {
			cmd.Env = append(cmd.Env, "MCEC_TOKEN="+token) // sdk-smoke.mjs sends it as a header
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("sdk-smoke.mjs %s: %v\n%s", args[0], err, stderr.String())
		}
		steps := map[string]bool{}
		for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
			var s struct {
				Step     string
				IsError  bool
				Envelope string
				Image    *struct {
					MimeType string
					Bytes    int
					PNG      bool
				}
			}
			if err := json.Unmarshal(line, &s); err != nil {
				t.Fatalf("sdk-smoke.mjs printed %q: %v", line, err)
			}
			env := contracttest.Check(t, []byte(s.Envelope))
			if s.IsError != !env.OK() {
				t.Errorf("%s: isError=%v but ok=%v", s.Step, s.IsError, env.OK())
			}
			if s.Step == "capture" && (s.Image == nil || !s.Image.PNG || s.Image.MimeType != "image/png") {
				t.Errorf("capture: no PNG image block: %+v", s.Image)
			}
			steps[s.Step] = true
		}
		for _, want := range []string{"windows", "query", "capture", "query-missing", "wait-progress", "session-status", "capture-link", "resources"} {
			if !steps[want] {
				t.Errorf("sdk-smoke.mjs never reported %s", want)
			}
		}
	}
	t.Run("stdio", func(t *testing.T) { run(t, "", "stdio", binary) })
	t.Run("http", func(t *testing.T) {
		base, token := serveHTTP(t, "--launch", "gtk3-widget-factory")
		run(t, token, "http", base+"/mcp")
	})
}

// TestConsoleInChromium drives the operator console in Debian's Chromium with playwright-core
// (test/clients/console.test.mjs under Node's test runner): log in with the one-time link, see
// an agent's typing in the live view and its call narrated, Stop and Re-arm, answer a consent
// question and revoke the grant, take control and drive the desktop from the page, review a
// finished session in the trace viewer and see `mcec view` flag a tampered bundle, open the
// console of an isolated instance an agent provisioned, and the credentials kept apart.
func TestConsoleInChromium(t *testing.T) {
	node := nodeClients(t)
	serve, base, token, login := startServeConsole(t, "--headless", "--console", "--console-port", "0", "--launch", "xterm", "--allow-provisioning")
	if login == "" {
		t.Fatal("mcec serve --console showed no login link")
	}
	// About 70 s alone (an instance's start among them); a loaded machine takes longer.
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := clientCmd(ctx, t, node, "--test", "--test-reporter=spec", "console.test.mjs")
	cmd.Env = append(cmd.Env, "MCEC_CONSOLE_LOGIN="+login, "MCEC_BASE="+base, "MCEC_TOKEN="+token, "MCEC_BIN="+binary,
		"MCEC_RUNTIME_DIR="+runtimeDir) // where provisioned instances keep their logs
	for _, kv := range serve.Env {
		if strings.HasPrefix(kv, "MCEC_SESSIONS_DIR=") {
			cmd.Env = append(cmd.Env, kv) // the server's, for mcec view
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("console.test.mjs: %v\n%s", err, out)
	}
	t.Logf("console.test.mjs:\n%s", out)
}
