package transport

import (
	"context"
	"crypto/rand"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An MCP tool call over streamable HTTP runs on its MCP session's connection, not under the
// HTTP request that carried it: the SDK keeps it running when the client hangs up (a client
// could resume the stream, which mcec's front door does not offer). mcec ends such a call as
// a client that went away wants: each POST to /mcp gets a random scope id in an internal
// header (one a client sent is replaced), and a tool handler binds its call to the request
// with that id, so the call's context ends when the request's does.
const scopeHeader = "Mcec-Request-Scope"

// requestScopes maps scope ids to the contexts of the HTTP requests in flight. One per process:
// the ids are random, so handlers and servers never mix them up.
var requestScopes sync.Map // string -> context.Context

// scopeRequests gives every request to next a scope id for as long as it is served.
func scopeRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := rand.Text()
		r.Header.Set(scopeHeader, id)
		requestScopes.Store(id, r.Context())
		defer requestScopes.Delete(id)
		next.ServeHTTP(w, r)
	})
}

// bindToRequest returns ctx, cancelled too when the HTTP request that carried the call ends
// first (the client went away); stop releases the binding. Calls that came another way are
// returned as they are.
func bindToRequest(ctx context.Context, extra *mcp.RequestExtra) (context.Context, func()) {
	if extra == nil || extra.Header == nil {
		return ctx, func() {}
	}
	v, ok := requestScopes.Load(extra.Header.Get(scopeHeader))
	if !ok {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	stopAfter := context.AfterFunc(v.(context.Context), cancel)
	return ctx, func() {
		stopAfter()
		cancel()
	}
}
