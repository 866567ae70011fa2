package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// envelope is the part of mcec's answer the benchmark checks.
type envelope struct {
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
	} `json:"error"`
}

func (e *envelope) err() error {
	if e.OK {
		return nil
	}
	if e.Error == nil {
		return fmt.Errorf("not ok, without an error")
	}
	return fmt.Errorf("%s: %s", e.Error.Code, e.Error.Detail)
}

// caller calls one mcec tool and returns its envelope.
type caller interface {
	call(ctx context.Context, tool string, args any) (*envelope, error)
}

// mcpCaller calls through an MCP client session (stdio or streamable HTTP).
type mcpCaller struct{ cs *mcp.ClientSession }

func connectMCP(ctx context.Context, t mcp.Transport) (*mcpCaller, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "mcec-bench", Version: "1"}, nil)
	cs, err := c.Connect(ctx, t, nil)
	if err != nil {
		return nil, err
	}
	return &mcpCaller{cs: cs}, nil
}

func (m *mcpCaller) call(ctx context.Context, tool string, args any) (*envelope, error) {
	env, _, err := m.callTimed(ctx, tool, args)
	return env, err
}

// callTimed is call with the time until the MCP client library returned the tool result; the
// envelope is decoded after the clock stopped (an agent's wait ends when its MCP library hands
// it the text: parsing the answer is the harness's own check, as for the capture rows).
func (m *mcpCaller) callTimed(ctx context.Context, tool string, args any) (*envelope, time.Duration, error) {
	if args == nil {
		args = map[string]any{}
	}
	start := time.Now()
	res, err := m.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	took := time.Since(start)
	if err != nil {
		return nil, took, fmt.Errorf("%s: %w", tool, err)
	}
	env, err := envelopeOf(tool, res)
	return env, took, err
}

// envelopeOf decodes the envelope in a tool result's text content.
func envelopeOf(tool string, res *mcp.CallToolResult) (*envelope, error) {
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			var env envelope
			if err := json.Unmarshal([]byte(tc.Text), &env); err != nil {
				return nil, fmt.Errorf("%s: envelope: %w", tool, err)
			}
			return &env, nil
		}
	}
	return nil, fmt.Errorf("%s: no text content in the result", tool)
}

// facadeCaller calls POST /v1/tools/{tool}.
type facadeCaller struct {
	base   string
	client *http.Client // presents the server's bearer token
}

func newFacade(base, token string) *facadeCaller {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	return &facadeCaller{base: base, client: &http.Client{Transport: bearer{token, tr}, Timeout: 60 * time.Second}}
}

// bearer adds the token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func (f *facadeCaller) call(ctx context.Context, tool string, args any) (*envelope, error) {
	if args == nil {
		args = map[string]any{}
	}
	body, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, f.base+"/v1/tools/"+tool, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tool, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d: %s", tool, resp.StatusCode, b)
	}
	var env envelope
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, fmt.Errorf("%s: envelope: %w", tool, err)
	}
	return &env, nil
}

// callOK calls and fails unless the envelope is ok; it decodes the result into out when given.
func callOK(ctx context.Context, c caller, tool string, args any, out any) error {
	env, err := c.call(ctx, tool, args)
	if err != nil {
		return err
	}
	return env.resultInto(tool, out)
}

// resultInto fails with the envelope's error, or decodes its result into out (nil: not at all).
func (e *envelope) resultInto(tool string, out any) error {
	if err := e.err(); err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	if out != nil {
		if err := json.Unmarshal(e.Result, out); err != nil {
			return fmt.Errorf("%s: result: %w", tool, err)
		}
	}
	return nil
}
