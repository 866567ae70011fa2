package main_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcec/mcec/contract/contracttest"
)

// TestBundleAndReplayAgainstServer records a session through the façade of a running mcec serve,
// verifies its bundle, and replays it against the same server with mcec replay --server.
func TestBundleAndReplayAgainstServer(t *testing.T) {
	cmd, base, token := startServe(t, "--launch", "gtk3-widget-factory")
	var sessionsDir string
	for _, kv := range cmd.Env {
		if v, ok := strings.CutPrefix(kv, "MCEC_SESSIONS_DIR="); ok {
			sessionsDir = v
		}
	}
	post := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		body, _ := json.Marshal(args)
		_, b := post(t, base+"/v1/tools/"+tool, token, string(body))
		contracttest.Check(t, b)
		var env map[string]any
		_ = json.Unmarshal(b, &env)
		return env
	}
	sid, _ := post("session-start", nil)["sessionId"].(string)
	if sid == "" {
		t.Fatal("session-start gave no session")
	}
	target := map[string]any{"sessionId": sid, "process": "gtk3-widget-factory"}
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range target {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	if env := post("wait-for", with(map[string]any{"element": map[string]any{"role": "frame"}, "timeout": 20000})); env["ok"] != true {
		t.Fatalf("the factory did not come up: %v", env)
	}
	post("windows", with(nil))
	post("query", with(map[string]any{"maxDepth": 3}))
	post("capture", with(map[string]any{"pathOnly": true}))
	if env := post("wait-for", with(map[string]any{"element": map[string]any{"name": "never there"}, "timeout": 200})); env["ok"] != false {
		t.Fatalf("wait-for for nothing succeeded: %v", env)
	}
	post("session-end", map[string]any{"sessionId": sid})

	run := func(args ...string) (int, string) {
		c := mcecCmd(t, args...)
		out, err := c.CombinedOutput()
		code := 0
		if ee, ok := err.(interface{ ExitCode() int }); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, string(out)
	}
	if code, out := run("bundle", "--verify", sid, "--sessions-dir", sessionsDir); code != 0 || !strings.Contains(out, "hash chain intact") {
		t.Fatalf("mcec bundle --verify: exit %d\n%s", code, out)
	}
	// replay finds the server's token in its token file.
	code, out := run("replay", sid, "--sessions-dir", sessionsDir, "--server", base)
	if code != 0 || !strings.Contains(out, "7 match, 0 diverged") {
		t.Fatalf("mcec replay --server: exit %d\n%s", code, out)
	}
}
