package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/internal/dispatch"
)

// HTTP limits (PRODUCT.md §8).
const (
	MaxBodyBytes     = 1 << 20
	MaxHTTPInFlight  = 16
	facadePathPrefix = "/v1/tools/"
	mcpPath          = "/mcp"
	// maxHeaderBytes bounds a request's line and headers (net/http's default is 1 MiB): no
	// legitimate client sends more than a token and a few short headers.
	maxHeaderBytes = 64 << 10
)

// HTTPLimits bound what one client can hold on the HTTP listener (docs/safety.md). Zero fields
// take the defaults below; tests shorten them.
type HTTPLimits struct {
	// ReadHeaderTimeout bounds reading a request's line and headers (default 10 s).
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, body included (default 30 s). A request holds
	// no slot while it is read.
	ReadTimeout time.Duration
	// IdleTimeout closes keep-alive connections that carry no request for this long (default 2 min).
	IdleTimeout time.Duration
	// SlotWait is how long a complete request waits for one of the MaxHTTPInFlight slots before
	// it is refused 503 (default 2 s): a client that sends its next call the moment the previous
	// answer arrives must not see 503 because another's slot is freed a moment later.
	SlotWait time.Duration
	// SessionIdleTimeout ends MCP sessions that receive no request for this long (default 30 min).
	SessionIdleTimeout time.Duration
	// MaxSessions caps the MCP sessions open at once (default 64); an initialize beyond it is
	// refused 503 until one ends (DELETE /mcp, or its idle timeout).
	MaxSessions int
}

// Defaults of HTTPLimits.
const (
	DefaultReadHeaderTimeout  = 10 * time.Second
	DefaultReadTimeout        = 30 * time.Second
	DefaultIdleTimeout        = 2 * time.Minute
	DefaultSlotWait           = 2 * time.Second
	DefaultSessionIdleTimeout = 30 * time.Minute
	DefaultMaxSessions        = 64
)

func (l HTTPLimits) withDefaults() HTTPLimits {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&l.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	def(&l.ReadTimeout, DefaultReadTimeout)
	def(&l.IdleTimeout, DefaultIdleTimeout)
	def(&l.SlotWait, DefaultSlotWait)
	def(&l.SessionIdleTimeout, DefaultSessionIdleTimeout)
	if l.MaxSessions <= 0 {
		l.MaxSessions = DefaultMaxSessions
	}
	return l
}

// HTTPOptions configure NewHTTPServer.
type HTTPOptions struct {
	Door   FrontDoor
	Limits HTTPLimits
	Log    *slog.Logger
	// Ready answers GET /readyz (health.go); nil: never ready. GET /healthz needs nothing.
	Ready ReadyFunc
	// HostNames are DNS names clients may use in Host besides addresses (hostnames.go).
	HostNames []string
}

// NewHTTPServer is the HTTP listener's server: the handler of NewHTTPHandler with the read,
// header and idle timeouts set, and every MCP session closed when the server shuts down. The
// caller sets BaseContext and serves it.
func NewHTTPServer(d *dispatch.Dispatcher, newServer func() *mcp.Server, opts HTTPOptions) *http.Server {
	lim := opts.Limits.withDefaults()
	h := newHTTPHandler(d, newServer, opts.Door, lim, opts.Log, opts.Ready)
	srv := &http.Server{
		Handler:           withHostNames(h, opts.HostNames, opts.Door.Port),
		ReadHeaderTimeout: lim.ReadHeaderTimeout,
		ReadTimeout:       lim.ReadTimeout,
		IdleTimeout:       lim.IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		// No WriteTimeout: a call may legitimately run for minutes (send_command waits 30 s,
		// wait-for as long as asked), and its answer is written at the end.
	}
	srv.RegisterOnShutdown(h.sessions.closeAll)
	fresh := &freshConns{conns: map[net.Conn]struct{}{}}
	srv.ConnState = fresh.track
	srv.RegisterOnShutdown(fresh.closeAll)
	return srv
}

// freshConns are the connections that have not sent a request yet. Go's HTTP client dials a
// spare connection when a request waits while another ends, and parks it unused; the server
// counts such a connection as busy for its first 5 s, so a shutdown waited 5 s on it (1 in 20
// runs of TestServeShutdownIsNotATimeout). At shutdown they are closed at once: they carry no
// request to answer.
type freshConns struct {
	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

func (f *freshConns) track(c net.Conn, st http.ConnState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if st == http.StateNew {
		f.conns[c] = struct{}{}
	} else {
		delete(f.conns, c)
	}
}

func (f *freshConns) closeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.conns {
		_ = c.Close()
		delete(f.conns, c)
	}
}

// NewHTTPHandler serves MCP streamable HTTP at /mcp (POST; DELETE ends a session) and the façade
// at POST /v1/tools/{tool}, behind the front door, with the default limits. The façade's body is
// the tool's arguments object; its response body is the envelope itself, HTTP 200 whatever ok
// says. Non-200 is only for transport and auth faults: bad JSON 400, wrong token 401, refused
// Host or Origin 403, unknown path or tool 404, a method other than POST (DELETE on /mcp) 405,
// body over 1 MiB 413, no request slot free within SlotWait or too many MCP sessions 503.
//
// newServer builds the MCP server a new MCP session (an initialize) gets, so that what
// initialize tells the agent (the command access granted so far) is current for each session;
// requests of existing sessions never build one.
func NewHTTPHandler(d *dispatch.Dispatcher, newServer func() *mcp.Server, door FrontDoor, log *slog.Logger) http.Handler {
	return newHTTPHandler(d, newServer, door, HTTPLimits{}.withDefaults(), log, nil)
}

type httpHandler struct {
	http.Handler
	sessions *sessionCap
}

func newHTTPHandler(d *dispatch.Dispatcher, newServer func() *mcp.Server, door FrontDoor, lim HTTPLimits, log *slog.Logger, ready ReadyFunc) *httpHandler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	sessions := newSessionCap(lim.MaxSessions)
	sdk := mcp.NewStreamableHTTPHandler(sessions.getServer(newServer), &mcp.StreamableHTTPOptions{
		Logger: log, MaxRequestBodyBytes: MaxBodyBytes, SessionTimeout: lim.SessionIdleTimeout})
	mux := http.NewServeMux()
	mux.Handle(mcpPath, scopeRequests(sessions.wrap(sdk, lim)))
	mux.HandleFunc(facadePathPrefix+"{tool}", func(w http.ResponseWriter, r *http.Request) {
		serveFacade(w, r, d)
	})
	if door.Log == nil {
		door.Log = log
	}
	// The probes come before the front door: they need no token and hold no request slot.
	return &httpHandler{Handler: withProbes(door.Wrap(limitInFlight(mux, MaxHTTPInFlight, lim.SlotWait)), ready, log), sessions: sessions}
}

func serveFacade(w http.ResponseWriter, r *http.Request, d *dispatch.Dispatcher) {
	name := r.PathValue("tool")
	if _, ok := d.Catalog().Lookup(name); !ok {
		httpError(w, http.StatusNotFound, "unknown tool "+strings.TrimSpace(name))
		return
	}
	body, err := io.ReadAll(r.Body) // read whole, and bounded, by limitInFlight
	if err != nil {
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

// limitInFlight serves at most max requests at once. A request takes a slot only once its whole
// body has been read (bounded by the front door's 1 MiB and the server's ReadTimeout), so
// clients that stall mid-body hold a connection, never a slot; a complete request waits up to
// wait for a slot, then gets 503.
func limitInFlight(next http.Handler, max int, wait time.Duration) http.Handler {
	slots := make(chan struct{}, max)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				httpError(w, http.StatusRequestEntityTooLarge, "body exceeds 1 MiB")
				return
			}
			httpError(w, http.StatusBadRequest, "read body: "+err.Error())
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		select {
		case slots <- struct{}{}:
		default:
			if !waitSlot(r.Context(), slots, wait) {
				httpError(w, http.StatusServiceUnavailable, "too many requests in flight (16); retry shortly")
				return
			}
		}
		defer func() { <-slots }()
		next.ServeHTTP(w, r)
	})
}

func waitSlot(ctx context.Context, slots chan struct{}, wait time.Duration) bool {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case slots <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}
