package safetyfake_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/safety"
)

// With [consent] via_client, request-command-access asks the human at the agent's MCP client
// through elicitation (the operator runs no prompter here), labelled as lower trust: as a
// multi round-trip request for a client of protocol 2026-07-28, as elicitation/create during the
// call for one of 2025-11-25. Without it, the client is never asked.
func TestConsentViaClient(t *testing.T) {
	for _, tc := range []struct {
		allowed  bool
		protocol string
	}{{true, ""}, {true, "2025-11-25"}, {false, ""}} {
		allowed := tc.allowed
		d, _ := start(t, safety.Settings{Agent: ptr(true), ConsentViaClient: allowed})
		var (
			mu    sync.Mutex
			asked []string
		)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		st, ct := mcp.NewInMemoryTransports()
		ss, err := d.MCPServer("stdio").Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
			ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				mu.Lock()
				asked = append(asked, req.Params.Message)
				mu.Unlock()
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "grant"}}, nil
			}}).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: tc.protocol})
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		if got := cs.InitializeResult().ProtocolVersion; tc.protocol != "" && got != tc.protocol {
			t.Fatalf("negotiated %s, want %s", got, tc.protocol)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "request-command-access",
			Arguments: map[string]any{"commands": []string{"launch"}, "reason": "start the editor"}})
		if err != nil {
			t.Fatal(err)
		}
		env := contracttest.Check(t, []byte(res.Content[0].(*mcp.TextContent).Text))
		mu.Lock()
		if !allowed {
			contracttest.Fail(t, env, contract.Internal, contract.CodeConsentUnavailable)
			if len(asked) != 0 {
				t.Errorf("the client was asked without the operator's leave: %q", asked)
			}
			mu.Unlock()
			continue
		}
		var out struct {
			Granted    []string `json:"granted"`
			AnsweredBy string   `json:"answeredBy"`
		}
		if err := env.DecodeResult(&out); err != nil || out.AnsweredBy != "client" || len(out.Granted) != 1 || out.Granted[0] != "launch" {
			t.Fatalf("%+v %v: %s", out, err, res.Content[0].(*mcp.TextContent).Text)
		}
		if len(asked) != 1 || !strings.Contains(asked[0], "lower trust") || !strings.Contains(asked[0], "start the editor") {
			t.Errorf("client asked %q", asked)
		}
		mu.Unlock()
		if a := d.CommandAccess(); !strings.Contains(strings.Join(a.EnabledTools, ","), "launch") {
			t.Errorf("launch not enabled after the client's grant: %+v", a)
		}
	}
}
