package main_test

import (
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/testdesk"
)

// probe GETs base+path without any token and returns the status and body.
func probe(t *testing.T, base, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// waitProbe polls path until it answers want, within d.
func waitProbe(t *testing.T, base, path string, want int, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		code, body := probe(t, base, path)
		if code == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still answers %d %q after %s, want %d", path, code, body, d, want)
		}
		time.Sleep(50 * time.Millisecond) // polling an HTTP endpoint: there is no event to wait on
	}
}

// /readyz turns 200 only once the --launch app has a window, needs no token although the
// server has one, and turns 503 when the desktop breaks (its window manager is killed).
func TestReadyzFollowsTheDesktop(t *testing.T) {
	cmd, base, _ := startServe(t, "--headless", "--token", "probe-secret", "--launch", "xmessage -name mcecprobe ready")
	if code, body := probe(t, base, "/healthz"); code != 200 || body != "ok\n" {
		t.Fatalf("healthz: %d %q", code, body)
	}
	waitProbe(t, base, "/readyz", 200, 30*time.Second)
	// The token still guards everything else.
	resp, err := http.Post(base+"/v1/tools/windows", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("façade without the token: %d, want 401", resp.StatusCode)
	}
	wm := 0
	for _, pid := range testdesk.ChildPIDs(cmd.Process.Pid) {
		if comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); strings.TrimSpace(string(comm)) == "openbox" {
			wm = pid
		}
	}
	if wm == 0 {
		t.Fatal("no openbox among mcec's children")
	}
	if err := syscall.Kill(-wm, syscall.SIGKILL); err != nil { // it leads its own process group
		t.Fatal(err)
	}
	waitProbe(t, base, "/readyz", 503, 15*time.Second)
	if code, _ := probe(t, base, "/healthz"); code != 200 {
		t.Fatalf("healthz after the window manager died: %d, want 200 (the process still serves)", code)
	}
}

// A --launch program that never maps a window keeps /readyz at 503 while the desktop itself
// works (a façade call answers).
func TestReadyzWaitsForLaunchedApps(t *testing.T) {
	_, base, token := startServe(t, "--headless", "--launch", "sleep 600")
	if code, b := post(t, base+"/v1/tools/windows", token, "{}"); code != 200 || !contracttest.Check(t, b).OK() {
		t.Fatalf("windows: %d %s", code, b)
	}
	for range 5 { // the desktop answers, yet the app has no window: not ready, every time
		if code, body := probe(t, base, "/readyz"); code != 503 || body != "not ready\n" {
			t.Fatalf("readyz with a windowless --launch app: %d %q, want 503", code, body)
		}
	}
}
