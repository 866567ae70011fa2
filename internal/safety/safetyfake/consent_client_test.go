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
	"github.com/mcec/mcec/internal/consent"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/daemon/daemontest"
	"github.com/mcec/mcec/internal/safety"
)

// With [consent] via_client, request-command-access asks the human at the agent's MCP client
// through elicitation (the operator runs no prompter here), labelled as lower trust: as a
// multi round-trip request for a client of protocol 2026-07-28, as elicitation/create during the
// call for one of 2025-11-25. Without it, the client is never asked.
func TestConsentViaClient(t *testing.T) {
	for _, tc := range []struct {
		allowed       bool
		protocol      string
		answer, scope string
	}{{true, "", "grant", "process"}, {true, "2025-11-25", "grant-session", "session"}, {false, "", "grant", ""}} {
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
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": tc.answer}}, nil
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
			Scope      string   `json:"scope"`
		}
		if err := env.DecodeResult(&out); err != nil || out.AnsweredBy != "client" || len(out.Granted) != 1 || out.Granted[0] != "launch" || out.Scope != tc.scope {
			t.Fatalf("%+v %v: %s", out, err, res.Content[0].(*mcp.TextContent).Text)
		}
		if len(asked) != 1 || !strings.Contains(asked[0], "lower trust") || !strings.Contains(asked[0], "start the editor") {
			t.Errorf("client asked %q", asked)
		}
		mu.Unlock()
		// A grant for one session is that session's; commandAccess says what every session may do.
		if a := d.CommandAccess(); strings.Contains(strings.Join(a.EnabledTools, ","), "launch") != (tc.scope == "process") {
			t.Errorf("after the client's %s: commandAccess %+v", tc.answer, a)
		}
	}
}

// With a console running and a client that can open links, request-command-access points the
// client's human to the console (elicitation, URL mode) without any leave to let the client
// answer: the client's "accept" grants nothing, the operator's answer in the console does, and
// the client is told when the question is over. Without the console, the request still fails
// consent-unavailable at once.
func TestConsentPointsToTheConsole(t *testing.T) {
	for _, withConsole := range []bool{true, false} {
		cfg := daemon.Config{Safety: safety.Settings{Agent: ptr(true)}}
		if withConsole {
			cfg.Console = "127.0.0.1:0"
		}
		d := daemontest.Start(t, cfg)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		st, ct := mcp.NewInMemoryTransports()
		ss, err := d.MCPServer("stdio").Connect(ctx, st, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		links := make(chan *mcp.ElicitParams, 4)
		completed := make(chan string, 4)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
			Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
				Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
			ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				links <- req.Params
				// A careless client accepts anything, even with a grant in its content.
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "grant"}}, nil
			},
			ElicitationCompleteHandler: func(_ context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
				completed <- req.Params.ElicitationID
			}}).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()

		// The operator, at the console, answers the question once the client was pointed there:
		// answered at once, the question could be over before the pointer goroutine ran, and
		// then nobody needs pointing (seen beside a second make test).
		answered := make(chan error, 1)
		pointed := make(chan *mcp.ElicitParams, 1)
		if withConsole {
			go func() {
				q, err := d.Consent.Next(ctx, "")
				if err == nil {
					select {
					case l := <-links:
						pointed <- l
					case <-ctx.Done():
						err = ctx.Err()
					}
				}
				if err == nil {
					err = d.Consent.Answer(q.ID, consent.Grant)
				}
				answered <- err
			}()
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "request-command-access",
			Arguments: map[string]any{"commands": []string{"launch"}, "reason": "start the editor"}})
		if err != nil {
			t.Fatal(err)
		}
		env := contracttest.Check(t, []byte(res.Content[0].(*mcp.TextContent).Text))
		if !withConsole {
			contracttest.Fail(t, env, contract.Internal, contract.CodeConsentUnavailable)
			if len(links) != 0 {
				t.Error("the client was pointed to a console that does not run")
			}
			continue
		}
		if err := <-answered; err != nil {
			t.Fatal(err)
		}
		var out struct {
			Granted    []string `json:"granted"`
			AnsweredBy string   `json:"answeredBy"`
		}
		if err := env.DecodeResult(&out); err != nil || out.AnsweredBy != "operator" || len(out.Granted) != 1 {
			t.Fatalf("%+v %v: want granted by the operator", out, err)
		}
		var link *mcp.ElicitParams
		select {
		case link = <-pointed:
		default:
			t.Fatal("the client was not pointed to the console")
		}
		if link.Mode != "url" || link.URL != d.Console.PageURL() || link.ElicitationID == "" ||
			!strings.Contains(link.Message, "operator") || !strings.Contains(link.Message, "start the editor") || strings.Contains(link.URL, "login") {
			t.Errorf("the link: %+v", link)
		}
		select {
		case id := <-completed:
			if id != link.ElicitationID {
				t.Errorf("completion for %q, want %q", id, link.ElicitationID)
			}
		case <-ctx.Done():
			t.Error("the client was never told the question is over")
		}
	}
}
