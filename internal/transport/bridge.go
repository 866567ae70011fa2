package transport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bridge is an MCP server on this side whose tools are those of a remote mcec reached over MCP
// streamable HTTP: `mcec mcp --server URL` for clients that only start MCP servers as
// subprocesses (an isolated instance from provision-session, a shared `mcec serve`). Each
// tools/call is forwarded as is; the envelope, isError and image blocks are the remote's.
type Bridge struct {
	Server  *mcp.Server
	session *mcp.ClientSession
}

// DialBridge connects to the remote endpoint (http://127.0.0.1:PORT/mcp), presenting token as
// a bearer token when not empty, and mirrors its tools and instructions. The front door serves
// POST only, so the client never opens the optional standalone event stream.
func DialBridge(ctx context.Context, endpoint, token string, log *slog.Logger) (*Bridge, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if !strings.HasPrefix(endpoint, "http://") && !strings.HasPrefix(endpoint, "https://") {
		return nil, fmt.Errorf("server %q: want an http:// URL of an mcec MCP endpoint, e.g. http://127.0.0.1:5151/mcp", endpoint)
	}
	httpClient := &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcec-bridge", Version: "1"}, &mcp.ClientOptions{Logger: log})
	dialCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cs, err := client.Connect(dialCtx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: httpClient,
		DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", endpoint, err)
	}
	init := cs.InitializeResult()
	impl := &mcp.Implementation{Name: "mcec", Version: "bridge"}
	instructions := ""
	if init != nil {
		instructions = init.Instructions
		if init.ServerInfo != nil {
			impl = &mcp.Implementation{Name: init.ServerInfo.Name, Version: init.ServerInfo.Version}
		}
	}
	srv := mcp.NewServer(impl, &mcp.ServerOptions{Instructions: instructions, Logger: log})
	n := 0
	for tool, err := range cs.Tools(dialCtx, nil) {
		if err != nil {
			cs.Close()
			return nil, fmt.Errorf("list the tools of %s: %w", endpoint, err)
		}
		name := tool.Name
		srv.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: req.Params.Arguments})
		})
		n++
	}
	if n == 0 {
		cs.Close()
		return nil, errors.New("the server at " + endpoint + " offers no tools")
	}
	return &Bridge{Server: srv, session: cs}, nil
}

// Run serves the bridge on t until the client leaves or ctx ends, then hangs up the remote.
func (b *Bridge) Run(ctx context.Context, t mcp.Transport) error {
	defer b.session.Close()
	return b.Server.Run(ctx, t)
}

// bearer adds the token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token == "" {
		return b.next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
