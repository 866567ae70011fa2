package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/session"
)

type echoArgs struct {
	Text  string `json:"text,omitempty"`
	Fail  bool   `json:"fail,omitempty"`
	Image bool   `json:"image,omitempty"`
	Block bool   `json:"block,omitempty"`
}

// testDispatcher serves pure-logic tools; transports do not depend on the desktop. release
// unblocks calls with block:true, to prove requests are served concurrently.
func testDispatcher(t testing.TB, release <-chan struct{}) *dispatch.Dispatcher {
	return testDispatcherWith(t, release, nil)
}

// testDispatcherWith also reports on entered each time a blocking call reaches the tool.
func testDispatcherWith(t testing.TB, release <-chan struct{}, entered chan<- struct{}) *dispatch.Dispatcher {
	c := catalog.New()
	c.Add(catalog.Define(catalog.Spec[echoArgs, map[string]string]{Name: "echo", Description: "echo",
		Annotations: catalog.Annotations{ReadOnly: true, Idempotent: true},
		Run: func(ctx context.Context, call *catalog.Call, in *echoArgs, resp *catalog.Response) (*map[string]string, error) {
			if in.Block {
				if entered != nil {
					entered <- struct{}{}
				}
				select {
				case <-release:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			if in.Fail {
				return nil, contract.Errorf(contract.CodeWindowNotFound, "no %s", in.Text)
			}
			if in.Image {
				resp.Image = &catalog.Image{Data: []byte("\x89PNG"), MIMEType: "image/png"}
			}
			return &map[string]string{"text": in.Text}, nil
		}}))
	return dispatch.New(c, session.NewStore(session.Options{Root: t.TempDir()}), nil)
}

// stdioPeer drives the stdio transport with raw lines, as a client process would.
type stdioPeer struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
}

func startStdio(t *testing.T, d *dispatch.Dispatcher) *stdioPeer {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	srv := NewMCPServer(d, ServerInfo{Name: "mcec", Version: "test", Instructions: "guide text", Transport: "stdio"})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = (&Stdio{In: inR, Out: outW}).Serve(ctx, srv) // as mcec mcp serves
		outW.Close()
	}()
	p := &stdioPeer{t: t, in: inW, lines: make(chan string, 64)}
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		cancel()
		<-done
	})
	return p
}

func (p *stdioPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

type rpcResponse struct {
	ID     any             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (p *stdioPeer) recv() rpcResponse {
	p.t.Helper()
	select {
	case line, ok := <-p.lines:
		if !ok {
			p.t.Fatal("server closed stdout")
		}
		var r rpcResponse
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			p.t.Fatalf("bad line %q: %v", line, err)
		}
		return r
	case <-time.After(10 * time.Second):
		p.t.Fatal("no response within 10s")
	}
	return rpcResponse{}
}

func (p *stdioPeer) initialize() {
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	r := p.recv()
	var res struct {
		Instructions string                `json:"instructions"`
		ServerInfo   struct{ Name string } `json:"serverInfo"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || res.Instructions != "guide text" || res.ServerInfo.Name != "mcec" {
		p.t.Fatalf("initialize: %+v %s", r.Error, r.Result)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

type toolResult struct {
	IsError bool `json:"isError"`
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     string `json:"data"`
		MIMEType string `json:"mimeType"`
	} `json:"content"`
}

func decodeToolResult(t *testing.T, raw json.RawMessage) (toolResult, contract.Envelope) {
	t.Helper()
	var tr toolResult
	if err := json.Unmarshal(raw, &tr); err != nil || len(tr.Content) == 0 || tr.Content[0].Type != "text" {
		t.Fatalf("tool result %s", raw)
	}
	env := contracttest.Check(t, []byte(tr.Content[0].Text))
	if tr.IsError != !env.OK() {
		t.Fatalf("isError %v but ok %v", tr.IsError, env.OK())
	}
	return tr, env
}

func TestStdioServesContract(t *testing.T) {
	p := startStdio(t, testDispatcher(t, nil))
	p.initialize()

	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	var list struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
			Annotations struct {
				ReadOnlyHint bool `json:"readOnlyHint"`
			} `json:"annotations"`
		} `json:"tools"`
	}
	if r := p.recv(); r.Error != nil || json.Unmarshal(r.Result, &list) != nil || len(list.Tools) != 1 ||
		list.Tools[0].Name != "echo" || !list.Tools[0].Annotations.ReadOnlyHint || !bytes.Contains(list.Tools[0].InputSchema, []byte("sessionId")) {
		t.Fatalf("tools/list: %+v", list)
	}

	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi","image":true}}}`)
	tr, env := decodeToolResult(t, p.recv().Result)
	if !env.OK() || len(tr.Content) != 2 || tr.Content[1].Type != "image" || tr.Content[1].MIMEType != "image/png" {
		t.Fatalf("echo with image: %+v", tr)
	}

	p.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x","fail":true}}}`)
	if tr, env := decodeToolResult(t, p.recv().Result); !tr.IsError || env.Err().Code != contract.CodeWindowNotFound {
		t.Fatalf("failing call: %+v", tr)
	}

	p.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"bogus":1}}}`)
	if _, env := decodeToolResult(t, p.recv().Result); env.OK() || env.Err().Code != contract.CodeBadArguments {
		t.Fatalf("bad arguments must be an envelope, got %+v", env.Err())
	}
}

func TestStdioProtocolFaults(t *testing.T) {
	p := startStdio(t, testDispatcher(t, nil))
	p.initialize()
	tests := []struct {
		name, line string
		wantCode   int
		wantID     any
	}{
		{"malformed JSON", `{"jsonrpc":"2.0","id":7,"method":`, -32700, nil},
		{"not a request", `{"hello":"world","id":8}`, -32600, float64(8)},
		{"no method", `{"jsonrpc":"2.0","id":10}`, -32600, float64(10)},
		{"params without method", `{"jsonrpc":"2.0","id":"p","params":{}}`, -32600, "p"},
		{"unknown method", `{"jsonrpc":"2.0","id":9,"method":"no/such"}`, -32601, float64(9)},
		{"unknown tool", `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, -32602, float64(10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p.t = t
			p.send(tt.line)
			r := p.recv()
			if r.Error == nil || r.Error.Code != tt.wantCode || r.ID != tt.wantID {
				t.Fatalf("got id=%v error=%+v, want code %d id %v", r.ID, r.Error, tt.wantCode, tt.wantID)
			}
			// The server keeps serving: the next good request still succeeds.
			p.send(`{"jsonrpc":"2.0","id":"after","method":"tools/call","params":{"name":"echo","arguments":{"text":"ok"}}}`)
			r = p.recv()
			if _, env := decodeToolResult(t, r.Result); !env.OK() || r.ID != "after" {
				t.Fatalf("request after the fault: %+v", r)
			}
		})
	}
}

func TestStdioServesConcurrently(t *testing.T) {
	release := make(chan struct{})
	p := startStdio(t, testDispatcher(t, release))
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"echo","arguments":{"block":true}}}`)
	p.send(`{"jsonrpc":"2.0","id":"fast","method":"tools/call","params":{"name":"echo","arguments":{"text":"f"}}}`)
	if r := p.recv(); r.ID != "fast" {
		t.Fatalf("first answer %v: a blocked call held up the next one", r.ID)
	}
	close(release)
	if r := p.recv(); r.ID != "slow" {
		t.Fatalf("second answer %v", r.ID)
	}
}

func TestReadLineTooLong(t *testing.T) {
	long := strings.Repeat("x", MaxLineBytes+10)
	r := bufio.NewReaderSize(strings.NewReader(long+"\nnext\n"), 4096)
	if _, tooLong, err := readLine(r); !tooLong || err != nil {
		t.Fatalf("tooLong=%v err=%v", tooLong, err)
	}
	if line, tooLong, _ := readLine(r); tooLong || string(line) != "next" {
		t.Fatalf("line after the long one: %q", line)
	}
}

func TestFacade(t *testing.T) {
	d := testDispatcher(t, nil)
	srv := serveHTTP(t, d, "")
	tests := []struct {
		name, method, path, body string
		wantStatus               int
		wantOK                   *bool
	}{
		{"ok", "POST", "/v1/tools/echo", `{"text":"a"}`, 200, ptr(true)},
		{"empty body", "POST", "/v1/tools/echo", ``, 200, ptr(true)},
		{"tool failure is 200", "POST", "/v1/tools/echo", `{"fail":true}`, 200, ptr(false)},
		{"bad arguments is 200", "POST", "/v1/tools/echo", `{"zzz":1}`, 200, ptr(false)},
		{"bad JSON", "POST", "/v1/tools/echo", `{"text":`, 400, nil},
		{"unknown tool", "POST", "/v1/tools/nope", `{}`, 404, nil},
		{"wrong method", "GET", "/v1/tools/echo", ``, 405, nil},
		{"undocumented path", "POST", "/v1/other", `{}`, 404, nil},
		{"too large", "POST", "/v1/tools/echo", `{"text":"` + strings.Repeat("a", MaxBodyBytes) + `"}`, 413, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.wantStatus, body)
			}
			if tt.wantOK != nil {
				if env := contracttest.Check(t, body); env.OK() != *tt.wantOK {
					t.Fatalf("ok=%v: %s", env.OK(), body)
				}
			}
		})
	}
}

func TestFacadeInFlightLimit(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, MaxHTTPInFlight)
	d := testDispatcherWith(t, release, entered)
	srv := serveHTTPLimits(t, d, func() *mcp.Server { return NewMCPServer(d, ServerInfo{Name: "mcec"}) },
		HTTPOptions{Door: FrontDoor{Bind: netip.MustParseAddr("127.0.0.1")}, Limits: HTTPLimits{SlotWait: 200 * time.Millisecond}})
	// Release the blocked handlers before the server's cleanup waits for them, whatever happens.
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	t.Cleanup(unblock)
	var wg sync.WaitGroup
	statuses := make(chan int, MaxHTTPInFlight)
	for range MaxHTTPInFlight {
		wg.Go(func() {
			resp, err := http.Post(srv.URL+"/v1/tools/echo", "application/json", strings.NewReader(`{"block":true}`))
			if err == nil {
				statuses <- resp.StatusCode
				resp.Body.Close()
			}
		})
	}
	// Once all 16 are inside the tool, the 17th is refused once its wait for a slot is over.
	for range MaxHTTPInFlight {
		select {
		case <-entered:
		case <-time.After(10 * time.Second):
			t.Fatal("the 16 blocking requests did not all reach the tool")
		}
	}
	resp, err := http.Post(srv.URL+"/v1/tools/echo", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("17th request: status %d, want 503", resp.StatusCode)
	}
	unblock()
	wg.Wait()
	close(statuses)
	for s := range statuses {
		if s != 200 {
			t.Errorf("in-flight request got %d", s)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// serveHTTP runs the HTTP handler behind its front door on a loopback listener.
func serveHTTP(t *testing.T, d *dispatch.Dispatcher, token string) *httptest.Server {
	t.Helper()
	return serveHTTPWith(t, d, token, func() *mcp.Server {
		return NewMCPServer(d, ServerInfo{Name: "mcec", Transport: "http"})
	})
}

// serveHTTPWith is serveHTTP with the MCP servers newServer builds.
func serveHTTPWith(t *testing.T, d *dispatch.Dispatcher, token string, newServer func() *mcp.Server) *httptest.Server {
	t.Helper()
	return serveHTTPLimits(t, d, newServer, HTTPOptions{Door: FrontDoor{Bind: netip.MustParseAddr("127.0.0.1"), Token: token}})
}

// serveHTTPLimits serves NewHTTPServer (its timeouts and session cap) on a loopback listener;
// opts.Door.Port is filled in.
func serveHTTPLimits(t *testing.T, d *dispatch.Dispatcher, newServer func() *mcp.Server, opts HTTPOptions, wrap ...func(http.Handler) http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(nil)
	opts.Door.Port = srv.Listener.Addr().(*net.TCPAddr).Port
	srv.Config = NewHTTPServer(d, newServer, opts)
	for _, w := range wrap {
		srv.Config.Handler = w(srv.Config.Handler)
	}
	srv.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Config.Shutdown(ctx) // ends the MCP sessions
		srv.Close()
	})
	return srv
}

func TestFrontDoor(t *testing.T) {
	d := testDispatcher(t, nil)
	srv := serveHTTP(t, d, "s3cret")
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	good := func(r *http.Request) {
		r.Header.Set("Authorization", "Bearer s3cret")
	}
	tests := []struct {
		name   string
		method string
		path   string
		body   io.Reader
		set    func(*http.Request)
		want   int
	}{
		{"ok", "POST", "/v1/tools/echo", strings.NewReader(`{}`), good, 200},
		{"no token", "POST", "/v1/tools/echo", strings.NewReader(`{}`), func(r *http.Request) {}, 401},
		{"wrong token", "POST", "/v1/tools/echo", strings.NewReader(`{}`), func(r *http.Request) { r.Header.Set("Authorization", "Bearer s3creT") }, 401},
		{"evil host", "POST", "/v1/tools/echo", strings.NewReader(`{}`), func(r *http.Request) { good(r); r.Host = "evil.example:" + strconv.Itoa(port) }, 403},
		{"wrong port", "POST", "/v1/tools/echo", strings.NewReader(`{}`), func(r *http.Request) { good(r); r.Host = "127.0.0.1:1" }, 403},
		{"localhost host", "POST", "/v1/tools/echo", strings.NewReader(`{}`), func(r *http.Request) { good(r); r.Host = "localhost:" + strconv.Itoa(port) }, 200},
		{"origin null", "POST", "/v1/tools/echo", strings.NewReader(`{}`), func(r *http.Request) { good(r); r.Header.Set("Origin", "null") }, 403},
		{"foreign origin", "POST", "/v1/tools/echo", strings.NewReader(`{}`), func(r *http.Request) { good(r); r.Header.Set("Origin", "https://evil.example") }, 403},
		{"loopback origin", "POST", "/v1/tools/echo", strings.NewReader(`{}`), func(r *http.Request) { good(r); r.Header.Set("Origin", "http://localhost:3000") }, 200},
		{"GET on mcp", "GET", "/mcp", nil, good, 405},
		// DELETE ends an MCP session; without a session id the SDK answers 400.
		{"DELETE on mcp", "DELETE", "/mcp", nil, good, 400},
		{"DELETE on facade", "DELETE", "/v1/tools/echo", nil, good, 405},
		{"unknown path", "POST", "/admin", strings.NewReader(`{}`), good, 404},
		{"declared too large", "POST", "/v1/tools/echo", strings.NewReader(strings.Repeat(" ", 2<<20)), good, 413},
		// A chunked body has no length up front; the bounded read still refuses it.
		{"chunked 2 MiB", "POST", "/v1/tools/echo", io.MultiReader(strings.NewReader(`{"text":"`), strings.NewReader(strings.Repeat("a", 2<<20)), strings.NewReader(`"}`)), good, 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, srv.URL+tt.path, tt.body)
			if err != nil {
				t.Fatal(err)
			}
			if tt.name == "chunked 2 MiB" {
				req.ContentLength = -1 // forces Transfer-Encoding: chunked
			}
			tt.set(req)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.want, body)
			}
			if tt.want == 200 {
				contracttest.Check(t, body)
			}
		})
	}
}

func TestParseAddrLoopbackSpellings(t *testing.T) {
	tests := []struct {
		in       string
		want     string
		loopback bool
	}{
		{"127.0.0.1", "127.0.0.1", true},
		{"127.1", "127.0.0.1", true},
		{"0x7f.0.0.1", "127.0.0.1", true},
		{"0x7f.1", "127.0.0.1", true},
		{"017700000001", "127.0.0.1", true},
		{"2130706433", "127.0.0.1", true},
		{"::1", "::1", true},
		{"[::1]", "::1", true},
		{"::ffff:127.0.0.1", "127.0.0.1", true},
		{"127.255.1.2", "127.255.1.2", true},
		{"0.0.0.0", "0.0.0.0", false},
		{"0", "0.0.0.0", false},
		{"10.0.0.1", "10.0.0.1", false},
		{"::ffff:10.0.0.1", "10.0.0.1", false},
		{"167772161", "10.0.0.1", false},
	}
	for _, tt := range tests {
		a, err := ParseAddr(tt.in)
		if err != nil || a.String() != tt.want || a.IsLoopback() != tt.loopback {
			t.Errorf("ParseAddr(%q) = %v, %v; want %s loopback=%v", tt.in, a, err, tt.want, tt.loopback)
		}
	}
	for _, bad := range []string{"", "localhost", "1.2.3.4.5", "256.1.1.1", "1.2.3.256", "09", "1..2", "example.com", "4294967296", "[::1", "::1]", "::%]]", "[::%]]"} {
		if a, err := ParseAddr(bad); err == nil {
			t.Errorf("ParseAddr(%q) = %v, want an error", bad, a)
		}
	}
}

func FuzzParseAddr(f *testing.F) {
	for _, s := range []string{"127.1", "0x7f.0.0.1", "2130706433", "::ffff:127.0.0.1", "[::1]", "1.2.3.4", "::%]]", "fe80::1%eth0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAddr(s)
		if err != nil {
			return
		}
		// Whatever parsed must round-trip through the canonical form.
		b, err := ParseAddr(a.String())
		if err != nil || a != b {
			t.Fatalf("%q → %v → %v, %v", s, a, b, err)
		}
	})
}

// transportLog records the transport each finished call names, for the audit log.
type transportLog struct {
	mu  sync.Mutex
	got []string
}

func (l *transportLog) CallFinished(ctx context.Context, _ dispatch.Finished) {
	l.mu.Lock()
	l.got = append(l.got, dispatch.TransportOf(ctx))
	l.mu.Unlock()
}

func (l *transportLog) last() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.got) == 0 {
		return ""
	}
	return l.got[len(l.got)-1]
}

// Every call carries the name of the transport it came in on, so audit lines can say it.
func TestCallsNameTheirTransport(t *testing.T) {
	d := testDispatcher(t, nil)
	seen := &transportLog{}
	d.SetObserver(seen)

	p := startStdio(t, d)
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}`)
	if r := p.recv(); r.Error != nil {
		t.Fatalf("stdio call: %+v", r.Error)
	}
	if got := seen.last(); got != "stdio" {
		t.Errorf("stdio call named transport %q", got)
	}

	srv := serveHTTP(t, d, "")
	resp, err := http.Post(srv.URL+"/v1/tools/echo", "application/json", strings.NewReader(`{"text":"b"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	contracttest.Check(t, body)
	if got := seen.last(); got != "facade" {
		t.Errorf("façade call named transport %q", got)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "c"}})
	if err != nil || res.IsError {
		t.Fatalf("MCP HTTP call: %v %+v", err, res)
	}
	contracttest.Check(t, []byte(res.Content[0].(*mcp.TextContent).Text))
	if got := seen.last(); got != "http" {
		t.Errorf("MCP HTTP call named transport %q", got)
	}
}

// Each MCP session over HTTP gets the instructions current at its initialize (the command
// access can change while the server runs: consent grants); existing sessions keep working.
func TestHTTPInitializeIsPerSession(t *testing.T) {
	d := testDispatcher(t, nil)
	var mu sync.Mutex
	guide := "guide v1"
	srv := serveHTTPWith(t, d, "", func() *mcp.Server {
		mu.Lock()
		defer mu.Unlock()
		return NewMCPServer(d, ServerInfo{Name: "mcec", Transport: "http", Instructions: guide})
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	connect := func() *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
			Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", DisableStandaloneSSE: true}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	first := connect()
	mu.Lock()
	guide = "guide v2"
	mu.Unlock()
	second := connect()
	if a, b := first.InitializeResult().Instructions, second.InitializeResult().Instructions; a != "guide v1" || b != "guide v2" {
		t.Fatalf("instructions %q then %q", a, b)
	}
	for _, cs := range []*mcp.ClientSession{first, second} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}})
		if err != nil || res.IsError {
			t.Fatalf("call on an existing session: %v %+v", err, res)
		}
		contracttest.Check(t, []byte(res.Content[0].(*mcp.TextContent).Text))
	}
}
