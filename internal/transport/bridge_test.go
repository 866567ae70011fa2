package transport

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/contract/contracttest"
)

// A client that can only spawn stdio servers reaches an mcec serve (with its token) through the
// bridge and sees the same tools, envelopes and image blocks.
func TestBridgeForwardsToolsAndEnvelopes(t *testing.T) {
	d := testDispatcher(t, nil)
	srv := serveHTTP(t, d, "s3cret")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	if _, err := DialBridge(ctx, srv.URL+"/mcp", "wrong", nil); err == nil {
		t.Fatal("the bridge connected with a wrong token")
	}
	if _, err := DialBridge(ctx, "127.0.0.1:1/mcp", "", nil); err == nil || !strings.Contains(err.Error(), "http://") {
		t.Fatalf("a URL without scheme: %v", err)
	}
	b, err := DialBridge(ctx, srv.URL+"/mcp", "s3cret", nil)
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
