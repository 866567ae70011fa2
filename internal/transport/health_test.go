package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// The probes answer without a token, say only "ok" or "not ready", follow the readiness
// function, and do not open anything else: the rest still needs the token.
func TestProbes(t *testing.T) {
	d := testDispatcher(t, nil)
	var notReady atomic.Pointer[error]
	starting := errors.New("Xvfb (pid 123) has exited; display :7; /tmp/mcec-desk-x")
	notReady.Store(&starting)
	ready := func(context.Context) error {
		if p := notReady.Load(); p != nil {
			return *p
		}
		return nil
	}
	srv := serveHTTPLimits(t, d, newTestServer(d), HTTPOptions{
		Door:  FrontDoor{Bind: netip.MustParseAddr("127.0.0.1"), Token: "s3cret"},
		Ready: ready})
	do := func(method, path string) (int, string, http.Header) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}

	if code, body, _ := do("GET", "/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("healthz while starting: %d %q, want 200 \"ok\\n\"", code, body)
	}
	code, body, hdr := do("GET", "/readyz")
	if code != 503 || body != "not ready\n" {
		t.Errorf("readyz while not ready: %d %q, want 503 \"not ready\\n\" (the reason must not leak)", code, body)
	}
	if hdr.Get("Cache-Control") != "no-store" || !strings.HasPrefix(hdr.Get("Content-Type"), "text/plain") {
		t.Errorf("probe headers: %v", hdr)
	}
	notReady.Store(nil)
	if code, body, _ := do("GET", "/readyz"); code != 200 || body != "ok\n" {
		t.Errorf("readyz when ready: %d %q, want 200", code, body)
	}
	if code, body, _ := do("HEAD", "/readyz"); code != 200 || body != "" {
		t.Errorf("HEAD readyz: %d %q", code, body)
	}
	for _, m := range []string{"POST", "PUT", "DELETE"} {
		if code, _, hdr := do(m, "/healthz"); code != 405 || hdr.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s /healthz: %d Allow=%q, want 405 GET, HEAD", m, code, hdr.Get("Allow"))
		}
	}
	// Nothing else opens without the token: neighbours of the probe paths, the tools, MCP.
	for _, p := range []struct{ method, path string }{
		{"GET", "/healthz/"}, {"GET", "/readyz/x"}, {"GET", "/healthz/../v1/tools/windows"},
		{"POST", "/v1/tools/windows"}, {"POST", "/mcp"}, {"GET", "/"}, {"GET", "/metrics"},
	} {
		code, body, _ := do(p.method, p.path)
		if code < 400 || body == "ok\n" {
			t.Errorf("%s %s without a token: %d %q", p.method, p.path, code, body)
		}
	}
	// A readiness function that hangs costs the probe its own deadline, not the connection.
	block := make(chan struct{})
	defer close(block)
	srv2 := serveHTTPLimits(t, d, newTestServer(d), HTTPOptions{
		Door: FrontDoor{Bind: netip.MustParseAddr("127.0.0.1")},
		Ready: func(ctx context.Context) error {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-block:
				return nil
			}
		}})
	resp, err := srv2.Client().Get(srv2.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 {
		t.Errorf("readyz with a hung check: %d, want 503 after its deadline", resp.StatusCode)
	}
	// Without a readiness function (NewHTTPHandler's callers) the server is never reported ready.
	srv3 := serveHTTPLimits(t, d, newTestServer(d), HTTPOptions{Door: FrontDoor{Bind: netip.MustParseAddr("127.0.0.1")}})
	resp, err = srv3.Client().Get(srv3.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 {
		t.Errorf("readyz without a check: %d, want 503", resp.StatusCode)
	}
}

// A declared DNS name is accepted in Host (with our port); other names still are not.
func TestHostNames(t *testing.T) {
	d := testDispatcher(t, nil)
	srv := serveHTTPLimits(t, d, newTestServer(d), HTTPOptions{
		Door:      FrontDoor{Bind: netip.MustParseAddr("127.0.0.1"), Token: "s3cret"},
		HostNames: []string{"mcec-0.mcec.agents.svc", "MCEC-0.MCEC.agents.svc.cluster.local."}})
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	call := func(host string) int {
		t.Helper()
		req, err := http.NewRequest("POST", srv.URL+"/v1/tools/echo", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		req.Header.Set("Authorization", "Bearer s3cret")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	p := strconv.Itoa(port)
	for host, want := range map[string]int{
		"mcec-0.mcec.agents.svc:" + p:               200,
		"Mcec-0.Mcec.Agents.Svc.:" + p:              200,
		"mcec-0.mcec.agents.svc.cluster.local:" + p: 200,
		"mcec-1.mcec.agents.svc:" + p:               403,
		"evil.example:" + p:                         403,
		"mcec-0.mcec.agents.svc:1" + p:              403,
		"mcec-0.mcec.agents.svc":                    403,
	} {
		if got := call(host); got != want {
			t.Errorf("Host %q: %d, want %d", host, got, want)
		}
	}
}
