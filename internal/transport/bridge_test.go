package transport

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/dispatch"
)

// A client that can only spawn stdio servers reaches an mcec serve (with its token) through the
// bridge and sees the same tools, envelopes and image blocks.
func TestBridgeForwardsToolsAndEnvelopes(t *testing.T) {
	d := testDispatcher(t, nil)
	srv := serveHTTP(t, d, "s3cret")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	if _, err := DialBridge(ctx, srv.URL+"/mcp", fixed("wrong"), nil); err == nil {
		t.Fatal("the bridge connected with a wrong token")
	}
	if _, err := DialBridge(ctx, "127.0.0.1:1/mcp", nil, nil); err == nil || !strings.Contains(err.Error(), "http://") {
		t.Fatalf("a URL without scheme: %v", err)
	}
	b, err := DialBridge(ctx, srv.URL+"/mcp", fixed("s3cret"), nil)
	if err != nil {
		t.Fatal(err)
	}
	clientT, serverT := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx, serverT) }()

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != "mcec" {
		t.Errorf("server name through the bridge: %q", got)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "echo" || !tools.Tools[0].Annotations.ReadOnlyHint {
		t.Fatalf("tools through the bridge: %v %+v", err, tools)
	}
	for _, tc := range []struct {
		args    map[string]any
		isError bool
		blocks  int
	}{
		{map[string]any{"text": "hi", "image": true}, false, 2},
		{map[string]any{"text": "x", "fail": true}, true, 1},
		{map[string]any{"bogus": 1}, true, 1},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: tc.args})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError != tc.isError || len(res.Content) != tc.blocks {
			t.Errorf("%v: isError %v, %d blocks", tc.args, res.IsError, len(res.Content))
		}
		env := contracttest.Check(t, []byte(res.Content[0].(*mcp.TextContent).Text))
		if env.OK() == tc.isError {
			t.Errorf("%v: envelope ok=%v", tc.args, env.OK())
		}
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope"}); err == nil {
		t.Error("an unknown tool through the bridge is not a protocol error")
	}
	cs.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the bridge did not stop when its client left")
	}
}

func fixed(token string) func() string { return func() string { return token } }

// serveOn serves an mcec HTTP listener requiring token on addr ("" picks a port); stop ends it
// with its MCP sessions, as a server's exit does.
func serveOn(t *testing.T, d *dispatch.Dispatcher, addr, token string) (url string, stop func()) {
	t.Helper()
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var ln net.Listener
	var err error
	// The previous server's port: free again once it closed (polled with a deadline).
	deadline := time.Now().Add(10 * time.Second)
	for {
		if ln, err = net.Listen("tcp", addr); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	srv := NewHTTPServer(d, func() *mcp.Server { return NewMCPServer(d, ServerInfo{Name: "mcec", Transport: "http"}) },
		HTTPOptions{Door: FrontDoor{Port: port, Bind: netip.MustParseAddr("127.0.0.1"), Token: token}})
	go func() { _ = srv.Serve(ln) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = srv.Shutdown(ctx)
		})
	}
	t.Cleanup(stop)
	return "http://" + ln.Addr().String(), stop
}

// The server behind a bridge restarts (its sessions gone, a new token): the stdio client that
// started the bridge keeps working; a call while it is down fails as a protocol error, not an
// envelope, and the next one goes through.
func TestBridgeSurvivesServerRestart(t *testing.T) {
	d := testDispatcher(t, nil)
	url, stop := serveOn(t, d, "", "first")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var tokMu sync.Mutex
	tok := "first"
	b, err := DialBridge(ctx, url+"/mcp", func() string { tokMu.Lock(); defer tokMu.Unlock(); return tok }, nil)
	if err != nil {
		t.Fatal(err)
	}
	clientT, serverT := mcp.NewInMemoryTransports()
	go func() { _ = b.Run(ctx, serverT) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	echo := func() (*mcp.CallToolResult, error) {
		return cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	}
	if res, err := echo(); err != nil || res.IsError {
		t.Fatalf("before the restart: %v %+v", err, res)
	}

	stop()
	// Down: refused within the reconnect bound, as a protocol error.
	downCtx, downCancel := context.WithTimeout(ctx, reconnectWait+10*time.Second)
	_, err = cs.CallTool(downCtx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "down"}})
	downCancel()
	if err == nil {
		t.Fatal("a call while the server is down succeeded")
	}

	tokMu.Lock()
	tok = "second"
	tokMu.Unlock()
	serveOn(t, d, strings.TrimPrefix(url, "http://"), "second")
	res, err := echo()
	if err != nil {
		t.Fatalf("after the restart: %v", err)
	}
	if env := contracttest.Check(t, []byte(res.Content[0].(*mcp.TextContent).Text)); !env.OK() {
		t.Fatalf("after the restart: %+v", env.Err())
	}
}
