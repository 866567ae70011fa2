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
	"github.com/mcec/mcec/internal/safety"
	"github.com/mcec/mcec/internal/transport"
)

// TestConsoleOverTheDaemon drives the console of a whole daemon (over a fake desktop) as an
// operator would: a login link from the control socket, the agents' calls narrated live, Stop
// refusing the next call with the stop's code and Re-arm serving again; and the credentials
// kept apart: the console's cookie opens none of the agents' endpoints.
func TestConsoleOverTheDaemon(t *testing.T) {
	d := daemontest.Start(t, daemon.Config{Safety: safety.Settings{AllowAll: true}, Console: "127.0.0.1:0"})
	if d.Console == nil {
		t.Fatal("no console")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	// The login link comes from the operator's control socket.
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
	base := "http://" + d.Console.Addr()

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
		req, _ := http.NewRequestWithContext(ctx, "POST", base+path, nil)
		req.Header.Set("Origin", base)
		resp, err := browser.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var st console.State
		if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&st) != nil {
			t.Fatalf("POST %s: %d", path, resp.StatusCode)
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
