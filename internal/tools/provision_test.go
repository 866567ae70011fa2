package tools_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/provision"
	"github.com/mcec/mcec/internal/safety"
	"github.com/mcec/mcec/internal/testdesk"
)

// buildMcec builds cmd/mcec (as cmd/mcec's e2e tests do): instances are separate mcec
// processes, and this test binary is not one.
func buildMcec(t *testing.T) string {
	t.Helper()
	bin, err := testdesk.BuildMcec(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

type provisioned struct {
	SessionID    string   `json:"sessionId"`
	MCPEndpoint  string   `json:"mcpEndpoint"`
	FacadeURL    string   `json:"facadeUrl"`
	Token        string   `json:"token"`
	StdioCommand []string `json:"stdioCommand"`
	CallCommand  []string `json:"callCommand"`
	TokenEnv     string   `json:"tokenEnv"`
	Port         int      `json:"port"`
	ProcessID    int      `json:"processId"`
}

type endedSession struct {
	SessionID   string `json:"sessionId"`
	Ended       bool   `json:"ended"`
	AlreadyGone bool   `json:"alreadyGone"`
}

// facade posts one call to a server's façade and returns the HTTP status and body.
func facade(t *testing.T, base, tool, token, body string) (int, []byte) {
	t.Helper()
	return testdesk.PostJSON(t, base+"/"+tool, token, body)
}

// TestProvisionSession starts a real instance through the tool, uses it with its token, ends
// it, and checks that its process and directory are gone.
func TestProvisionSession(t *testing.T) {
	bin := buildMcec(t)
	instances := filepath.Join(t.TempDir(), "instances")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	sessions := t.TempDir()
	d, err := daemon.Start(ctx, daemon.Config{SessionsDir: sessions,
		Safety:    safety.Settings{AllowAll: true, Provisioning: true},
		Provision: provision.Options{Binary: bin, Dir: instances}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	h := &harness{t: t, d: d}

	var inst provisioned
	h.ok("provision-session", map[string]any{}, &inst)
	if !provision.ValidID(inst.SessionID) || len(inst.Token) != 32 || inst.ProcessID <= 0 {
		t.Fatalf("provision-session result %+v", inst)
	}
	if want := "http://127.0.0.1:"; !strings.HasPrefix(inst.MCPEndpoint, want) || !strings.HasSuffix(inst.MCPEndpoint, "/mcp") {
		t.Errorf("mcpEndpoint %q", inst.MCPEndpoint)
	}
	if len(inst.CallCommand) != 4 || inst.CallCommand[0] != bin || inst.TokenEnv != "MCEC_TOKEN" ||
		len(inst.StdioCommand) != 4 || inst.StdioCommand[3] != inst.MCPEndpoint {
		t.Errorf("stdioCommand %q, callCommand %q, tokenEnv %q", inst.StdioCommand, inst.CallCommand, inst.TokenEnv)
	}
	// The token must not be on the instance's command line (ps shows argv to everyone).
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(inst.ProcessID) + "/cmdline")
	if err != nil {
		t.Fatalf("instance process: %v", err)
	}
	if bytes.Contains(cmdline, []byte(inst.Token)) {
		t.Error("the token is on the instance's command line")
	}
	instDir := filepath.Join(instances, inst.SessionID)
	if info, err := os.Stat(instDir); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("instance directory: %v, %v", info, err)
	}
	if rec, err := os.ReadFile(filepath.Join(instDir, "instance.json")); err != nil || bytes.Contains(rec, []byte(inst.Token)) {
		t.Errorf("instance record: err %v, holds the token: %v", err, bytes.Contains(rec, []byte(inst.Token)))
	}

	// The instance serves with its token, on its own private desktop, and refuses without it.
	status, body := facade(t, inst.FacadeURL, "displays", inst.Token, "{}")
	if status != http.StatusOK {
		t.Fatalf("displays on the instance: HTTP %d %s", status, body)
	}
	if env := contracttest.Check(t, body); !env.OK() {
		t.Fatalf("displays on the instance failed: %+v", env.Err())
	}
	status, body = facade(t, inst.FacadeURL, "windows", inst.Token, "{}")
	if env := contracttest.Check(t, body); status != http.StatusOK || !env.OK() {
		t.Fatalf("windows on the instance: HTTP %d %s", status, body)
	}
	if status, body := facade(t, inst.FacadeURL, "displays", "", "{}"); status != http.StatusUnauthorized {
		t.Errorf("a call without the token: HTTP %d %s, want 401", status, body)
	}
	// A client that only starts stdio servers reaches the instance through stdioCommand.
	bridge := exec.Command(inst.StdioCommand[0], inst.StdioCommand[1:]...)
	bridge.Env = append(os.Environ(), inst.TokenEnv+"="+inst.Token)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: bridge}, nil)
	if err != nil {
		t.Fatalf("stdioCommand: %v", err)
	}
	bridgeClosed := false
	t.Cleanup(func() { // stops the bridge process when the test fails before closing it
		if !bridgeClosed {
			_ = cs.Close()
		}
	})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "displays", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("displays through stdioCommand: %v %+v", err, res)
	}
	contracttest.Check(t, []byte(res.Content[0].(*mcp.TextContent).Text))
	bridgeClosed = true
	if err := cs.Close(); err != nil {
		t.Logf("closing the bridge: %v", err)
	}
	if bridge.ProcessState == nil {
		t.Errorf("the bridge process %d was not reaped", bridge.Process.Pid)
	}

	// No nested provisioning.
	status, body = facade(t, inst.FacadeURL, "provision-session", inst.Token, "{}")
	if status != http.StatusOK {
		t.Fatalf("provision-session on the instance: HTTP %d %s", status, body)
	}
	contracttest.Fail(t, contracttest.Check(t, body), contract.Internal, contract.CodeProvisioningNotAuthorized)

	contracttest.Fail(t, h.call("end-session", map[string]any{"sessionId": inst.SessionID, "token": strings.Repeat("0", 32)}),
		contract.Internal, contract.CodeSessionTokenInvalid)
	if !processAlive(inst.ProcessID) {
		t.Fatal("a wrong token stopped the instance")
	}

	var ended endedSession
	h.ok("end-session", map[string]any{"sessionId": inst.SessionID, "token": inst.Token}, &ended)
	if !ended.Ended || ended.AlreadyGone || ended.SessionID != inst.SessionID {
		t.Errorf("end-session = %+v", ended)
	}
	// End waits until the instance has been reaped: no process with that PID remains (a reused
	// PID would be some other program, so check it is not our instance).
	if env, err := os.ReadFile("/proc/" + strconv.Itoa(inst.ProcessID) + "/environ"); err == nil &&
		bytes.Contains(env, []byte(provision.EnvInstance+"="+inst.SessionID)) {
		t.Error("the instance process is still there after end-session")
	}
	if _, err := os.Stat(instDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("instance directory still there: %v", err)
	}
	h.ok("end-session", map[string]any{"sessionId": inst.SessionID, "token": inst.Token}, &ended)
	if ended.Ended || !ended.AlreadyGone {
		t.Errorf("second end-session = %+v, want alreadyGone", ended)
	}
	contracttest.Fail(t, h.call("end-session", map[string]any{"sessionId": "../x", "token": inst.Token}),
		contract.InvalidArgument, contract.CodeBadArguments)

	// The token is a credential: the evidence (trace, session.json) never holds it.
	d.Close()
	traced := false
	err = filepath.WalkDir(sessions, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte(inst.Token)) {
			t.Errorf("%s holds the instance token", path)
		} else if bytes.Contains(b, []byte(`"redacted":"token"`)) {
			traced = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !traced {
		t.Error("no evidence file records the redacted token: were the calls traced?")
	}
}

// TestProvisionNotAllowed: without the operator's permission both tools refuse.
func TestProvisionNotAllowed(t *testing.T) {
	h := newHarness(t) // --allow-all, but provisioning is a separate switch
	contracttest.Fail(t, h.call("provision-session", map[string]any{}), contract.Internal, contract.CodeProvisioningNotAuthorized)
	contracttest.Fail(t, h.call("end-session", map[string]any{"sessionId": "inst-0123456789abcdef", "token": "x"}),
		contract.Internal, contract.CodeProvisioningNotAuthorized)
}

func processAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }
