package transport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/dispatch"
)

var loopback = netip.MustParseAddr("127.0.0.1")

func newTestServer(d *dispatch.Dispatcher) func() *mcp.Server {
	return func() *mcp.Server { return NewMCPServer(d, ServerInfo{Name: "mcec", Transport: "http"}) }
}

// waitUntil polls cond every 10 ms until it holds or the deadline passes.
func waitUntil(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// closedByServer reports whether the server closed c within d (a read ends in EOF or a reset;
// an HTTP error answer, such as 408, counts too).
func closedByServer(c net.Conn, d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

func facadeCall(t *testing.T, url string) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	resp, err := http.Post(url+"/v1/tools/echo", "application/json", strings.NewReader(`{"text":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode == 200 {
		contracttest.Check(t, bytes.TrimSpace(body))
	}
	return resp.StatusCode, time.Since(start)
}

// Issue 17 row 1: clients that send their headers and one byte of body, then stall, hold a
// connection each but no request slot: other clients are served at once, on the façade and on
// /mcp, and the stalled connections are closed once the read timeout passes.
func TestStalledBodiesHoldNoSlot(t *testing.T) {
	d := testDispatcher(t, nil)
	var entered atomic.Int32 // requests whose handling has begun (headers read)
	srv := serveHTTPLimits(t, d, newTestServer(d), HTTPOptions{Door: FrontDoor{Bind: loopback},
		Limits: HTTPLimits{ReadTimeout: 3 * time.Second, SlotWait: 500 * time.Millisecond}},
		func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				entered.Add(1)
				next.ServeHTTP(w, r)
			})
		})
	addr := srv.Listener.Addr().String()
	var stalled []net.Conn
	for _, path := range []string{"/v1/tools/echo", "/mcp"} {
		for range MaxHTTPInFlight {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{", path, addr)
			stalled = append(stalled, c)
		}
	}
	// Every stalled request is inside the handler, waiting for the rest of its body.
	waitUntil(t, 5*time.Second, "the stalled requests to reach the handler", func() bool { return entered.Load() == 2*MaxHTTPInFlight })
	start := time.Now()
	if code, took := facadeCall(t, srv.URL); code != 200 || took > 400*time.Millisecond {
		t.Fatalf("façade beside 32 stalled clients: status %d after %v", code, took)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("MCP initialize beside stalled clients: %v", err)
	}
	defer cs.Close()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}); err != nil || res.IsError {
		t.Fatalf("MCP call beside stalled clients: %v %+v", err, res)
	}
	if time.Since(start) > 2*time.Second {
		t.Errorf("served after %v: the stalled clients held it up", time.Since(start))
	}
	// The read timeout (3 s for the whole request) ends every stalled request.
	for i, c := range stalled {
		if !closedByServer(c, 5*time.Second) {
			t.Fatalf("stalled connection %d still open after the read timeout", i)
		}
	}
}

// Row 1: a client that stalls inside its headers is cut off by the header timeout.
func TestStalledHeadersAreCut(t *testing.T) {
	d := testDispatcher(t, nil)
	srv := serveHTTPLimits(t, d, newTestServer(d), HTTPOptions{Door: FrontDoor{Bind: loopback},
		Limits: HTTPLimits{ReadHeaderTimeout: 300 * time.Millisecond}})
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /v1/tools/echo HTTP/1.1\r\nHost: %s\r\n", srv.Listener.Addr())
	if !closedByServer(c, 3*time.Second) {
		t.Fatal("a connection stalled in its headers stayed open past the header timeout")
	}
}

// Row 9: a keep-alive connection with no request is closed after the idle timeout.
func TestIdleKeepAliveIsClosed(t *testing.T) {
	d := testDispatcher(t, nil)
	srv := serveHTTPLimits(t, d, newTestServer(d), HTTPOptions{Door: FrontDoor{Bind: loopback},
		Limits: HTTPLimits{IdleTimeout: 300 * time.Millisecond}})
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /v1/tools/echo HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", srv.Listener.Addr())
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Close {
		t.Fatalf("status %d, close %v: want a kept-alive 200", resp.StatusCode, resp.Close)
	}
	start := time.Now()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := br.ReadByte(); err == nil {
		t.Fatal("the server sent more after the response")
	} else if ne := net.Error(nil); errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the idle keep-alive connection was not closed")
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("closed after %v, want about 300 ms", took)
	}
}

// Row 3: a complete request that finds every slot taken waits for one (up to SlotWait) instead
// of being refused at once.
func TestRequestWaitsForASlot(t *testing.T) {
	release := make(chan struct{}, MaxHTTPInFlight)
	entered := make(chan struct{}, MaxHTTPInFlight)
	d := testDispatcherWith(t, release, entered)
	srv := serveHTTPLimits(t, d, newTestServer(d), HTTPOptions{Door: FrontDoor{Bind: loopback},
		Limits: HTTPLimits{SlotWait: 5 * time.Second}})
	var wg sync.WaitGroup
	t.Cleanup(func() {
		for range MaxHTTPInFlight {
			release <- struct{}{}
		}
		wg.Wait()
	})
	for range MaxHTTPInFlight {
		wg.Go(func() {
			resp, err := http.Post(srv.URL+"/v1/tools/echo", "application/json", strings.NewReader(`{"block":true}`))
			if err == nil {
				resp.Body.Close()
			}
		})
	}
	for range MaxHTTPInFlight {
		select {
		case <-entered:
		case <-time.After(10 * time.Second):
			t.Fatal("the 16 blocking requests did not all reach the tool")
		}
	}
	got := make(chan int, 1)
	go func() {
		code, _ := facadeCall(t, srv.URL)
		got <- code
	}()
	select {
	case code := <-got:
		t.Fatalf("the 17th request was answered %d while every slot was taken", code)
	case <-time.After(300 * time.Millisecond):
	}
	release <- struct{}{} // one blocking call ends: its slot goes to the waiting request
	select {
	case code := <-got:
		if code != 200 {
			t.Fatalf("the waiting request got %d, want 200", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting request was not served when a slot came free")
	}
}

// Row 3: 16 MCP SDK clients, each making one call at a time, never see 503 (the SDK's own
// notifications and session requests briefly add to the 16).
func TestSequentialMCPClientsNeverRefused(t *testing.T) {
	d := testDispatcher(t, nil)
	srv := serveHTTPLimits(t, d, newTestServer(d), HTTPOptions{Door: FrontDoor{Bind: loopback}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const calls = 40
	var wg sync.WaitGroup
	errs := make(chan error, MaxHTTPInFlight)
	for i := range MaxHTTPInFlight {
		wg.Go(func() {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "t" + strconv.Itoa(i), Version: "1"}, nil).
				Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
			if err != nil {
				errs <- err
				return
			}
			defer cs.Close()
			for range calls {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}})
				if err != nil || res.IsError {
					errs <- fmt.Errorf("client %d: %v %+v", i, err, res)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// initializeRaw opens an MCP session with one POST and returns its id ("" and the status when
// refused).
func initializeRaw(t *testing.T, c *http.Client, url string) (string, int) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.Header.Get("Mcp-Session-Id"), resp.StatusCode
}

func deleteSession(t *testing.T, c *http.Client, url, id string) int {
	t.Helper()
	req, _ := http.NewRequest("DELETE", url+"/mcp", nil)
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// settledGoroutines waits until the goroutine count is at most want, and returns the count.
func settledGoroutines(want int, within time.Duration) int {
	deadline := time.Now().Add(within)
	for {
		n := runtime.NumGoroutine()
		if n <= want || time.Now().After(deadline) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Row 2: 3,000 sessions opened and ended with DELETE leave nothing behind: the goroutine count
// returns to where it was, and no session stays open.
func TestSessionsEndOnDelete(t *testing.T) {
	d := testDispatcher(t, nil)
	srv := serveHTTPLimits(t, d, newTestServer(d), HTTPOptions{Door: FrontDoor{Bind: loopback}})
	h := srv.Config.Handler.(*httpHandler)
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer c.CloseIdleConnections()
	// Warm up (the shared server, the client's connections), then count.
	id, _ := initializeRaw(t, c, srv.URL)
	deleteSession(t, c, srv.URL, id)
	waitUntil(t, 5*time.Second, "the warm-up session to end", func() bool { return h.sessions.live() == 0 })
	c.CloseIdleConnections() // connections are not sessions: count without them
	base := settledGoroutines(0, 200*time.Millisecond)
	const n = 3000
	var wg sync.WaitGroup
	work := make(chan struct{})
	for range 8 {
		wg.Go(func() {
			for range work {
				id, code := initializeRaw(t, c, srv.URL)
				if code != 200 || id == "" {
					t.Errorf("initialize: status %d, session %q", code, id)
					return
				}
				if code := deleteSession(t, c, srv.URL, id); code != http.StatusNoContent {
					t.Errorf("DELETE: status %d", code)
					return
				}
			}
		})
	}
	for range n {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	waitUntil(t, 10*time.Second, "every session to end", func() bool { return h.sessions.live() == 0 })
	c.CloseIdleConnections()
	if got := settledGoroutines(base+2, 10*time.Second); got > base+2 {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines after %d sessions opened and deleted, %d before:\n%s", got, n, base, buf[:runtime.Stack(buf, true)])
	}
	// A deleted session is gone: its id is not found any more.
	req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	if resp, err := c.Do(req); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a request on a deleted session: %v %v", err, resp)
	} else {
		resp.Body.Close()
	}
}

// Row 2: sessions beyond the cap are refused 503 (never silently piled up), idle sessions end
// on their own, and then new sessions are accepted again.
func TestSessionCapAndIdleTimeout(t *testing.T) {
	d := testDispatcher(t, nil)
	var logs syncBuffer
	srv := serveHTTPLimits(t, d, newTestServer(d), HTTPOptions{Door: FrontDoor{Bind: loopback},
		Log:    slog.New(slog.NewTextHandler(&logs, nil)),
		Limits: HTTPLimits{MaxSessions: 8, SessionIdleTimeout: 500 * time.Millisecond}})
	h := srv.Config.Handler.(*httpHandler)
	c := &http.Client{}
	defer c.CloseIdleConnections()
	base := runtime.NumGoroutine()
	var refused int
	for range 300 {
		id, code := initializeRaw(t, c, srv.URL)
		switch {
		case code == 200 && id != "":
		case code == http.StatusServiceUnavailable:
			refused++
		default:
			t.Fatalf("initialize: status %d", code)
		}
		// Checked after every initialize: on a loaded machine some sessions reach their idle
		// timeout during the loop and free their place, so the count refused depends on speed.
		if live := h.sessions.live(); live > 8 {
			t.Fatalf("%d sessions live: want at most 8", live)
		}
	}
	if refused == 0 {
		t.Fatal("300 initializes and none refused: no cap")
	}
	// Nobody deletes them: the idle timeout ends them, and the goroutines go with them.
	waitUntil(t, 10*time.Second, "idle sessions to end", func() bool { return h.sessions.live() == 0 })
	if got := settledGoroutines(base+4, 10*time.Second); got > base+4 {
		t.Errorf("%d goroutines after the idle sessions ended, %d before", got, base)
	}
	if id, code := initializeRaw(t, c, srv.URL); code != 200 || id == "" {
		t.Fatalf("initialize after the idle sessions ended: %d", code)
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and the test at once.
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

// Row 12: a refusal logs each request field clipped, so a huge path, Host or Origin cannot make
// a huge log line.
func TestRefusalLogIsBounded(t *testing.T) {
	d := testDispatcher(t, nil)
	var logs syncBuffer
	srv := serveHTTPLimits(t, d, newTestServer(d), HTTPOptions{Door: FrontDoor{Bind: loopback},
		Log: slog.New(slog.NewTextHandler(&logs, nil))})
	long := strings.Repeat("a", 30000)
	req, _ := http.NewRequest("POST", srv.URL+"/"+long, strings.NewReader(`{}`))
	req.Header.Set("Origin", "http://"+long)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("status %d", resp.StatusCode)
	}
	req, _ = http.NewRequest("POST", srv.URL+"/v1/tools/echo", strings.NewReader(`{}`))
	req.Host = long + ":1"
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 refusal lines, got %d", len(lines))
	}
	for _, l := range lines {
		if !strings.Contains(l, "AGENT-AUDIT refused") || len(l) > 1500 {
			t.Errorf("refusal line of %d bytes: %.300s", len(l), l)
		}
		if !strings.Contains(l, "[30001 bytes]") && !strings.Contains(l, "[30002 bytes]") && !strings.Contains(l, "[30007 bytes]") {
			t.Errorf("the clipped field does not say how long it was: %.400s", l)
		}
	}
}

// Row 13: bound to every interface (0.0.0.0) with a token, Host must name an address the server
// is reachable at: loopback, localhost, or an address of this machine; never 0.0.0.0 or ::.
func TestHostOnUnspecifiedBind(t *testing.T) {
	d := testDispatcher(t, nil)
	// The listener stays on loopback (tests never serve the network); the front door is told
	// it is bound to 0.0.0.0, which is what it checks Host against.
	srv := serveHTTPLimits(t, d, newTestServer(d), HTTPOptions{Door: FrontDoor{Bind: netip.IPv4Unspecified(), Token: "tok"}})
	port := strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
	status := func(host string) int {
		req, _ := http.NewRequest("POST", srv.URL+"/v1/tools/echo", strings.NewReader(`{}`))
		req.Host = host
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, h := range []string{"0.0.0.0", "0", "[::]", "[::ffff:0.0.0.0]", "8.8.8.8", "224.0.0.1", "example.com"} {
		if got := status(net.JoinHostPort(strings.Trim(h, "[]"), port)); got != http.StatusForbidden {
			t.Errorf("Host %s: status %d, want 403", h, got)
		}
	}
	for _, h := range []string{"127.0.0.1", "localhost", "::1"} {
		if got := status(net.JoinHostPort(h, port)); got != 200 {
			t.Errorf("Host %s: status %d, want 200", h, got)
		}
	}
	// An address of one of this machine's interfaces is one the server is reachable at.
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if p, ok := a.(*net.IPNet); ok && !p.IP.IsLoopback() && p.IP.To4() != nil {
			if got := status(net.JoinHostPort(p.IP.String(), port)); got != 200 {
				t.Errorf("Host %s (an interface address): status %d, want 200", p.IP, got)
			}
			break
		}
	}
}
