package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/session"
	"github.com/mcec/mcec/internal/transport"
)

// waitDispatcher serves one tool that waits, as wait-for does, until its context ends and then
// reports a timeout; entered says when a call is inside it.
func waitDispatcher(t *testing.T, entered chan<- struct{}) *dispatch.Dispatcher {
	c := catalog.New()
	c.Add(catalog.Define(catalog.Spec[struct{}, struct{}]{Name: "wait-for", Description: "waits",
		Annotations: catalog.Annotations{ReadOnly: true},
		Run: func(ctx context.Context, call *catalog.Call, in *struct{}, resp *catalog.Response) (*struct{}, error) {
			entered <- struct{}{}
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Second):
			}
			return nil, contract.Errorf(contract.CodeWaitConditionTimeout, "after 990 ms, the element did not appear")
		}}))
	return dispatch.New(c, session.NewStore(session.Options{Root: t.TempDir()}), nil)
}

func shutdownEnvelope(t *testing.T, text string) {
	t.Helper()
	contracttest.Fail(t, contracttest.Check(t, []byte(strings.TrimSpace(text))), contract.Internal, contract.CodeServerShuttingDown)
}

// Issue 17 row 11: a shutdown (the serve context ends, as on SIGTERM) during long waits on the
// façade and on MCP over HTTP answers both internal / server-shutting-down, not a timeout, and
// the server is down soon after.
func TestServeShutdownIsNotATimeout(t *testing.T) {
	entered := make(chan struct{}, 2)
	d := waitDispatcher(t, entered)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ctx, signal := context.WithCancel(context.Background())
	defer signal()
	served := make(chan error, 1)
	go func() {
		served <- serveHTTP(ctx, d, func() *mcp.Server {
			return transport.NewMCPServer(d, transport.ServerInfo{Name: "mcec", Transport: "http"})
		}, ln, transport.HTTPOptions{Door: transport.FrontDoor{Port: ln.Addr().(*net.TCPAddr).Port, Bind: netip.MustParseAddr("127.0.0.1")}},
			func() error { return nil })
	}()
	callCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(callCtx, &mcp.StreamableClientTransport{Endpoint: url + "/mcp", DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	facade := make(chan string, 1)
	go func() {
		resp, err := http.Post(url+"/v1/tools/wait-for", "application/json", strings.NewReader(`{}`))
		if err != nil {
			facade <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		facade <- string(b)
	}()
	mcpOut := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "wait-for", Arguments: map[string]any{}})
		if err != nil {
			mcpOut <- err.Error()
			return
		}
		mcpOut <- res.Content[0].(*mcp.TextContent).Text
	}()
	for range 2 {
		select {
		case <-entered:
		case <-time.After(10 * time.Second):
			t.Fatal("the waits did not start")
		}
	}
	start := time.Now()
	signal()
	shutdownEnvelope(t, <-facade)
	shutdownEnvelope(t, <-mcpOut)
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop")
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("shutdown took %v", took)
	}
}

// Row 11 on stdio: the call in flight answers server-shutting-down before the connection closes.
func TestStdioShutdownIsNotATimeout(t *testing.T) {
	entered := make(chan struct{}, 1)
	d := waitDispatcher(t, entered)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	defer inW.Close()
	ctx, signal := context.WithCancel(context.Background())
	defer signal()
	served := make(chan error, 1)
	go func() {
		served <- serveStdio(ctx, d, transport.NewMCPServer(d, transport.ServerInfo{Name: "mcec", Transport: "stdio"}),
			&streams{in: inR, out: outW})
		outW.Close()
	}()
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if _, ok := <-lines; !ok {
		t.Fatal("no initialize answer")
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait-for","arguments":{}}}`)
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the wait did not start")
	}
	signal()
	var line string
	select {
	case line = <-lines:
	case <-time.After(10 * time.Second):
		t.Fatal("no answer to the call in flight")
	}
	var resp struct {
		ID     int `json:"id"`
		Result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &resp); err != nil || resp.ID != 2 || len(resp.Result.Content) == 0 {
		t.Fatalf("answer %q: %v", line, err)
	}
	shutdownEnvelope(t, resp.Result.Content[0].Text)
	select {
	case <-served:
	case <-time.After(10 * time.Second):
		t.Fatal("stdio did not stop")
	}
}
