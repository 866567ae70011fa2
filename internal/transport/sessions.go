package transport

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionCap counts the MCP sessions open on the HTTP listener and refuses an initialize beyond
// its cap. The SDK's handler ends sessions on DELETE /mcp and after their idle timeout; it has no
// cap and no way to list its sessions, so each session is followed here from the request that
// opened it until it ends (ServerSession.Wait).
type sessionCap struct {
	max int

	mu       sync.Mutex
	reserved int // initialize requests being served that may open a session
	open     map[*mcp.ServerSession]struct{}
	closed   bool // the listener shut down: no new sessions

	posts     int           // POST requests being served
	postsDone chan struct{} // closed when posts drops to 0, while closeAll waits

	once   sync.Once
	shared *mcp.Server
}

func newSessionCap(max int) *sessionCap {
	return &sessionCap{max: max, open: map[*mcp.ServerSession]struct{}{}}
}

// serverSlot carries, in a new-session request's context, the server built for it: the SDK asks
// for a server twice for such a request, and one session must get one server.
type serverSlot struct{ srv *mcp.Server }

type serverSlotKey struct{}

// getServer is the SDK's getServer: a fresh server (newServer) for each new session, so that
// initialize tells each session the command access current when it starts.
func (c *sessionCap) getServer(newServer func() *mcp.Server) func(*http.Request) *mcp.Server {
	return func(r *http.Request) *mcp.Server {
		if slot, ok := r.Context().Value(serverSlotKey{}).(*serverSlot); ok {
			if slot.srv == nil {
				slot.srv = newServer()
			}
			return slot.srv
		}
		// The SDK asks for a server on every request (for its protocol versions) even when it
		// then routes the request to an existing session: any one does.
		c.once.Do(func() { c.shared = newServer() })
		return c.shared
	}
}

// wrap admits a request that opens a session (a POST without Mcp-Session-Id) only while fewer
// than max sessions are open or being opened.
func (c *sessionCap) wrap(sdk http.Handler, lim HTTPLimits) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			// A POST carries a request whose answer goes out through its session: closeAll
			// waits for it (see posting).
			c.posting(+1)
			defer c.posting(-1)
		}
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
			sdk.ServeHTTP(w, r)
			return
		}
		if !c.reserve() {
			httpError(w, http.StatusServiceUnavailable, fmt.Sprintf(
				"too many MCP sessions open (%d); end one with DELETE /mcp, or wait until one has been idle for %v",
				c.max, lim.SessionIdleTimeout))
			return
		}
		slot := &serverSlot{}
		sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), serverSlotKey{}, slot)))
		c.adopt(slot.srv)
	})
}

func (c *sessionCap) reserve() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.reserved+len(c.open) >= c.max {
		return false
	}
	c.reserved++
	return true
}

// adopt turns a reservation into the session the request opened, if it opened one (an
// initialize that failed opens none), and follows it until it ends.
func (c *sessionCap) adopt(srv *mcp.Server) {
	var ss *mcp.ServerSession
	if srv != nil {
		for s := range srv.Sessions() {
			ss = s
			break
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reserved--
	if ss == nil {
		return
	}
	if c.closed {
		go ss.Close()
		return
	}
	c.open[ss] = struct{}{}
	go func() {
		_ = ss.Wait()
		c.mu.Lock()
		delete(c.open, ss)
		c.mu.Unlock()
	}()
}

// live is the number of sessions open.
func (c *sessionCap) live() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.open)
}

// posting counts the POST requests being served; the last one out wakes a closeAll that waits.
func (c *sessionCap) posting(delta int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.posts += delta
	if c.posts == 0 && c.postsDone != nil {
		close(c.postsDone)
		c.postsDone = nil
	}
}

// answerDrain bounds how long closeAll waits for the answers of POSTs in flight. The dispatcher
// has ended their calls already (stopHTTP), so what is left is writing the answers.
const answerDrain = 3 * time.Second

// closeAll ends every session (the listener is shutting down) and refuses new ones. It first
// waits, up to answerDrain, for the POSTs in flight: a session closed under one drops the answer
// its call just produced, and the client sees "request terminated without response" instead of
// server-shutting-down.
func (c *sessionCap) closeAll() {
	c.mu.Lock()
	if c.posts > 0 {
		if c.postsDone == nil {
			c.postsDone = make(chan struct{})
		}
		done := c.postsDone
		c.mu.Unlock()
		t := time.NewTimer(answerDrain)
		select {
		case <-done:
		case <-t.C:
		}
		t.Stop()
		c.mu.Lock()
	}
	c.closed = true
	open := make([]*mcp.ServerSession, 0, len(c.open))
	for ss := range c.open {
		open = append(open, ss)
	}
	c.mu.Unlock()
	for _, ss := range open {
		_ = ss.Close()
	}
}
