package transport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bridge is an MCP server on this side whose tools are those of a remote mcec reached over MCP
// streamable HTTP: `mcec mcp --server URL` for clients that only start MCP servers as
// subprocesses (an isolated instance from provision-session, a shared `mcec serve`). Each
// tools/call is forwarded as is; the envelope, isError and image blocks are the remote's.
//
// The remote may restart (a new process, a new token, its MCP sessions gone) while the client
// that started the bridge lives on: a call that provably never reached the remote (its session
// is unknown there, or the connection is already closed or refused) makes the bridge open a new
// session and send the call again, once. A call that broke in flight is not repeated (it may
// have acted); its error is the client's, and the next call reconnects.
type Bridge struct {
	Server *mcp.Server

	endpoint string
	dial     func(ctx context.Context) (*mcp.ClientSession, error)
	log      *slog.Logger

	// idle drops the HTTP connections kept alive to the remote: after a failed call they may
	// lead to a remote that is gone (http.Transport.CloseIdleConnections).
	idle func()

	mu      sync.Mutex
	session *mcp.ClientSession
}

// reconnectWait bounds how long a call waits for the remote to come back.
const reconnectWait = 10 * time.Second

// DialBridge connects to the remote endpoint (http://127.0.0.1:PORT/mcp), presenting the token
// returned by token (asked again for every request: a restarted server has a new one) as a
// bearer token when not empty, and mirrors its tools and instructions. The front door serves
// POST only, so the client never opens the optional standalone event stream.
func DialBridge(ctx context.Context, endpoint string, token func() string, log *slog.Logger) (*Bridge, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if token == nil {
		token = func() string { return "" }
	}
	if !strings.HasPrefix(endpoint, "http://") && !strings.HasPrefix(endpoint, "https://") {
		return nil, fmt.Errorf("server %q: want an http:// URL of an mcec MCP endpoint, e.g. http://127.0.0.1:5151/mcp", endpoint)
	}
	// A transport of its own, so dropping its idle connections touches no one else's.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	httpClient := &http.Client{Transport: bearer{token: token, next: tr}}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcec-bridge", Version: "1"}, &mcp.ClientOptions{Logger: log})
	b := &Bridge{endpoint: endpoint, log: log, idle: tr.CloseIdleConnections, dial: func(ctx context.Context) (*mcp.ClientSession, error) {
		return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: httpClient,
			DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	}}
	dialCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cs, err := b.dial(dialCtx)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", endpoint, err)
	}
	b.session = cs
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
			return b.call(ctx, &mcp.CallToolParams{Name: name, Arguments: req.Params.Arguments})
		})
		n++
	}
	if n == 0 {
		cs.Close()
		return nil, errors.New("the server at " + endpoint + " offers no tools")
	}
	b.Server = srv
	return b, nil
}

// call forwards one tool call, reconnecting once when the remote never saw it.
func (b *Bridge) call(ctx context.Context, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	cs := b.current()
	if cs != nil {
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			// A remote that went away closed the connections kept alive to it, but the client
			// may not have noticed yet (on a loaded machine a call written into one of them read
			// EOF, and so did the first call after the remote came back): later calls dial anew.
			b.idle()
		}
		if err == nil || !neverDelivered(err) {
			return res, err
		}
		b.log.Info("the remote mcec lost this bridge's session; reconnecting", "endpoint", b.endpoint, "err", err)
	}
	cs, err := b.reconnect(ctx, cs)
	if err != nil {
		return nil, err
	}
	return cs.CallTool(ctx, p)
}

func (b *Bridge) current() *mcp.ClientSession {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.session
}

// reconnect replaces the session dead (unless another call already did) with a new one,
// trying for up to reconnectWait while the remote restarts.
func (b *Bridge) reconnect(ctx context.Context, dead *mcp.ClientSession) (*mcp.ClientSession, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.session != dead && b.session != nil {
		return b.session, nil
	}
	if dead != nil {
		_ = dead.Close()
		b.session = nil
	}
	ctx, cancel := context.WithTimeout(ctx, reconnectWait)
	defer cancel()
	backoff := 100 * time.Millisecond
	for {
		cs, err := b.dial(ctx)
		if err == nil {
			b.session = cs
			return cs, nil
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("reconnect to %s: %w", b.endpoint, err)
		case <-t.C:
		}
		backoff = min(2*backoff, time.Second)
	}
}

// neverDelivered reports whether a call's error proves the remote never received it: its
// session is unknown there, or the connection was already closed, or refused.
func neverDelivered(err error) bool {
	return errors.Is(err, mcp.ErrSessionMissing) || errors.Is(err, mcp.ErrConnectionClosed) ||
		errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(err.Error(), "connection refused")
}

// Run serves the bridge on t until the client leaves or ctx ends, then hangs up the remote.
func (b *Bridge) Run(ctx context.Context, t mcp.Transport) error {
	defer func() {
		b.mu.Lock()
		if b.session != nil {
			b.session.Close()
		}
		b.mu.Unlock()
	}()
	return b.Server.Run(ctx, t)
}

// bearer adds the token to every request.
type bearer struct {
	token func() string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	tok := b.token()
	if tok == "" {
		return b.next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+tok)
	return b.next.RoundTrip(r)
}
