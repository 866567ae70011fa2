package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/internal/dispatch"
)

// HTTP limits (PRODUCT.md §8).
const (
	MaxBodyBytes     = 1 << 20
	MaxHTTPInFlight  = 16
	facadePathPrefix = "/v1/tools/"
	mcpPath          = "/mcp"
)

// NewHTTPHandler serves MCP streamable HTTP at POST /mcp and the façade at POST
// /v1/tools/{tool}, behind the front door. The façade's body is the tool's arguments object; its
// response body is the envelope itself, HTTP 200 whatever ok says. Non-200 is only for transport
// and auth faults: bad JSON 400, wrong token 401, refused Host or Origin 403, unknown path or tool
// 404, not POST 405, body over 1 MiB 413, more than 16 requests in flight 503.
//
// newServer builds the MCP server a new MCP session (an initialize) gets, so that what
// initialize tells the agent (the command access granted so far) is current for each session;
// requests of existing sessions never build one.
func NewHTTPHandler(d *dispatch.Dispatcher, newServer func() *mcp.Server, door FrontDoor, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var (
		once   sync.Once
		shared *mcp.Server
	)
	mcpHandler := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		if r.Header.Get("Mcp-Session-Id") == "" {
			return newServer()
		}
		// The SDK asks for a server on every request (for its protocol versions) even when it
		// then routes the request to an existing session: any one does.
		once.Do(func() { shared = newServer() })
		return shared
	}, &mcp.StreamableHTTPOptions{Logger: log, MaxRequestBodyBytes: MaxBodyBytes})
	mux := http.NewServeMux()
	mux.Handle(mcpPath, mcpHandler)
	mux.HandleFunc(facadePathPrefix+"{tool}", func(w http.ResponseWriter, r *http.Request) {
		serveFacade(w, r, d)
	})
	if door.Log == nil {
		door.Log = log
	}
	return door.Wrap(limitInFlight(mux, MaxHTTPInFlight))
}

func serveFacade(w http.ResponseWriter, r *http.Request, d *dispatch.Dispatcher) {
	name := r.PathValue("tool")
	if _, ok := d.Catalog().Lookup(name); !ok {
		httpError(w, http.StatusNotFound, "unknown tool "+strings.TrimSpace(name))
		return
	}
	body, err := io.ReadAll(r.Body) // bounded by the front door
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			httpError(w, http.StatusRequestEntityTooLarge, "body exceeds 1 MiB")
			return
		}
		httpError(w, http.StatusBadRequest, "read body: "+err.Error())
		return
	}
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		body = []byte("{}")
	}
	if !json.Valid(body) {
		httpError(w, http.StatusBadRequest, "body is not valid JSON")
		return
	}
	out, err := d.Call(dispatch.WithTransport(r.Context(), "facade"), name, body)
	if err != nil {
		httpError(w, http.StatusNotFound, err.Error())
		return
	}
	b, err := out.Envelope.MarshalJSON() // compact already: json.Marshal would scan it again
	if err != nil {
		httpError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(append(b, '\n'))
}

// httpError answers a transport fault with a small JSON body (never an envelope: the call did
// not reach a tool).
func httpError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// limitInFlight answers 503 at once when max requests are already being served.
func limitInFlight(next http.Handler, max int) http.Handler {
	slots := make(chan struct{}, max)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
			next.ServeHTTP(w, r)
		default:
			httpError(w, http.StatusServiceUnavailable, "too many requests in flight")
		}
	})
}
