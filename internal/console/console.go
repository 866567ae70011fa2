// Package console is the operator's console (issue 25): a small web page on its own loopback
// port from which the person who runs mcec watches the calls its agents make and stops them.
//
// It is for the operator only, never for an agent: it accepts no bearer token (the agents'
// credential) and the agents' endpoints accept none of its cookies. The operator logs in through
// a one-time link (auth.go) printed on the terminal at start and minted again by `mcec
// console-url`; the link becomes a session cookie (HttpOnly, SameSite=Strict). Requests must
// name the console's own loopback host (no DNS rebinding), and those that change anything must
// come from its own page (Origin) as POSTs.
//
// What works today: the call narration, live (server-sent events); the emergency stop and its
// re-arm, which trip the same latch as the hotkey (internal/estop); approvals: consent
// questions answered in the page, and the grants in force listed and revoked (approvals.go);
// take-over: the operator takes control from the agents and hands it back (control.go); the
// live view of the desktop (live.go); and, while the operator has control, their clicks and
// keys sent from the page (hands.go).
// The page is embedded (page.html): no CDN, no build step.
package console

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/mcec/mcec/internal/consent"
	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/estop"
	"github.com/mcec/mcec/internal/takeover"
)

// DefaultPort is the console's port when none is given.
const DefaultPort = 5152

// howConsole is how the console names itself where a change records who made it.
const howConsole = "console"

// Stopper is the emergency stop's latch as the console drives it.
type Stopper interface {
	Trip(how string) <-chan struct{}
	Rearm(how string) bool
	Status() estop.Status
}

// Options configure a Server.
type Options struct {
	Stop Stopper
	// Consent is the consent broker; nil: the console shows no approvals.
	Consent Approvals
	// Control is the take-over; nil: the console offers no "Take control".
	Control Control
	// Screen is the desktop for the live view; nil: no live view.
	Screen Screen
	// Hands sends the operator's input while they have control (with Control); nil: the
	// page cannot drive the desktop.
	Hands Hands
	// Review lists the recorded sessions and serves their trace viewer; nil: no review.
	Review Review
	// Fleet lists the isolated instances this server provisioned and opens their consoles;
	// nil: no fleet panel.
	Fleet Fleet
	// Peers are other consoles the fleet panel links to (the other pods of a Helm release).
	Peers []Peer
	// KeySHA256 is the SHA-256 of an operator key that logs in through a form (keylogin.go);
	// without it the console serves loopback only and logs in by one-time links.
	KeySHA256 []byte
	// HostNames are the DNS names a console served beyond loopback is reached by, accepted in
	// Host besides IP addresses.
	HostNames []string
	Log       *slog.Logger
	// Now is the clock (tests); time.Now when nil.
	Now func() time.Time
}

// Server is the console: an http.Handler plus the operator's credentials and the narration.
type Server struct {
	opts  Options
	log   *slog.Logger
	creds *credentials
	keys  *keyLogin // nil: no key login
	narr  *narrator
	mux   *http.ServeMux
	live  liveStats

	ln net.Listener
	// network: served beyond loopback, with key login (keylogin.go).
	network bool
	http    *http.Server
	// endStreams cancels every request's context at Close, so event streams end at once
	// instead of holding Shutdown to its deadline.
	endStreams context.CancelFunc
}

//go:embed page.html
var page []byte

// New builds a console; Listen serves it.
func New(opts Options) *Server {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, log: log, creds: newCredentials(opts.Now), narr: newNarrator(), mux: http.NewServeMux()}
	if len(opts.KeySHA256) == sha256.Size {
		s.keys = &keyLogin{hash: [32]byte(opts.KeySHA256), now: opts.Now}
		s.mux.HandleFunc("POST /login", s.samePage(s.keyLoginPost))
	}
	s.mux.HandleFunc("GET /{$}", s.operator(s.servePage))
	s.mux.HandleFunc("GET /login", s.loginPage)
	s.mux.HandleFunc("GET /api/state", s.operator(s.state))
	s.mux.HandleFunc("GET /api/events", s.operator(s.events))
	s.mux.HandleFunc("POST /api/stop", s.operator(s.samePage(s.stop)))
	s.mux.HandleFunc("POST /api/rearm", s.operator(s.samePage(s.rearm)))
	if opts.Screen != nil {
		s.mux.HandleFunc("GET /api/live", s.operator(s.liveView))
	}
	if opts.Control != nil {
		s.mux.HandleFunc("POST /api/take", s.operator(s.samePage(s.takeControl)))
		s.mux.HandleFunc("POST /api/handback", s.operator(s.samePage(s.handBack)))
		if opts.Hands != nil {
			s.mux.HandleFunc("POST /api/input", s.operator(s.samePage(s.operatorInput)))
		}
	}
	if opts.Review != nil {
		s.mux.HandleFunc("GET /api/sessions", s.operator(s.sessions))
		s.mux.HandleFunc("GET /view/{name}", s.operator(s.view))
	}
	if opts.Fleet != nil || len(opts.Peers) > 0 {
		s.mux.HandleFunc("GET /api/fleet", s.operator(s.fleet))
		s.mux.HandleFunc("GET /fleet/{id}", s.operator(s.openInstance))
	}
	if opts.Consent != nil {
		s.mux.HandleFunc("POST /api/answer", s.operator(s.samePage(s.answer)))
		s.mux.HandleFunc("POST /api/revoke", s.operator(s.samePage(s.revoke)))
	}
	return s
}

// Observer is what the dispatcher tells about every finished call (dispatch.Observer).
func (s *Server) Observer() dispatch.Observer { return s.narr }

// Listen serves the console on addr ("127.0.0.1:5152"; port 0 picks one): a loopback address,
// or any with an operator key (Options.KeySHA256).
func (s *Server) Listen(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	ip := net.ParseIP(host)
	switch {
	case ip == nil:
		return fmt.Errorf("console: %q is not an IP address", host)
	case !ip.IsLoopback() && s.keys == nil:
		return fmt.Errorf("console: %s is not a loopback address: serving the console beyond this machine needs an operator key (--console-key-sha256-file)", host)
	}
	s.network = !ip.IsLoopback()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("console: %w", err)
	}
	s.ln = ln
	base, cancel := context.WithCancel(context.Background())
	s.endStreams = cancel
	s.http = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return base }}
	go func() {
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Warn("console stopped", "err", err)
		}
	}()
	return nil
}

// Addr is the address served ("127.0.0.1:5152").
func (s *Server) Addr() string { return s.ln.Addr().String() }

// urlHost is the host:port of the links this console hands out: its address, or loopback when
// it serves every interface (no browser reaches 0.0.0.0 or [::]; this machine's always works).
func (s *Server) urlHost() string {
	a := s.ln.Addr().(*net.TCPAddr)
	if a.IP.IsUnspecified() {
		return net.JoinHostPort("127.0.0.1", strconv.Itoa(a.Port))
	}
	return a.String()
}

// Port is the TCP port served.
func (s *Server) Port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// PageURL is the console's page, with no credential in it: it opens for a browser that logged in.
func (s *Server) PageURL() string { return "http://" + s.urlHost() + "/" }

// KeyLogin reports whether an operator key logs in (at PageURL + "login").
func (s *Server) KeyLogin() bool { return s.keys != nil }

// LoginURL mints a one-time login link, valid for five minutes.
func (s *Server) LoginURL() string {
	return "http://" + s.urlHost() + "/login?t=" + s.creds.newLink()
}

// Close stops serving; live event streams end.
func (s *Server) Close() error {
	if s.http == nil {
		return nil
	}
	s.endStreams()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.http.Close()
	}
	return err
}

// ServeHTTP checks what every request must satisfy, then routes it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	if !s.ownHost(r.Host) {
		// DNS rebinding: a page of another site resolved to 127.0.0.1 names its own host.
		http.Error(w, "this console answers only to its own loopback address", http.StatusMisdirectedRequest)
		return
	}
	if r.Header.Get("Authorization") != "" {
		http.Error(w, "the console does not accept the agents' bearer token; log in with the link `mcec console-url` prints", http.StatusUnauthorized)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// ownHost reports whether host names this console: its loopback address, or localhost, with its
// port.
func (s *Server) ownHost(host string) bool {
	if s.network {
		return s.networkHost(host)
	}
	h, p, err := net.SplitHostPort(host)
	if err != nil || s.ln == nil {
		return false
	}
	if port := strconv.Itoa(s.Port()); p != port {
		return false
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// cookieName is the session cookie's name. Cookies are per host, not per port: a console of an
// instance on another port of 127.0.0.1 would otherwise replace this one's.
func (s *Server) cookieName() string {
	return cookiePrefix + strconv.Itoa(s.Port())
}

// operator lets only a logged-in operator through.
func (s *Server) operator(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(s.cookieName())
		if err != nil || !s.creds.valid(c.Value) {
			if s.keys != nil && r.Method == http.MethodGet && r.URL.Path == "/" {
				http.Redirect(w, r, "/login", http.StatusSeeOther)
				return
			}
			http.Error(w, "log in first: open the link `mcec console-url` prints (it works once, for five minutes)", http.StatusUnauthorized)
			return
		}
		next(w, r)
	}
}

// samePage lets through only requests from the console's own page: a browser always sends
// Origin with a POST, and another site's page cannot make it ours.
func (s *Server) samePage(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// https: a console behind a TLS-terminating Ingress.
		if o := r.Header.Get("Origin"); o != "http://"+r.Host && o != "https://"+r.Host {
			http.Error(w, "only the console's own page may do this", http.StatusForbidden)
			return
		}
		next(w, r)
	}
}

// login turns a one-time link into the operator's session cookie.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	session, ok := s.creds.redeem(r.URL.Query().Get("t"))
	if !ok {
		http.Error(w, "this login link is unknown, used or expired: run `mcec console-url` for a new one", http.StatusUnauthorized)
		return
	}
	s.setSession(w, r, session)
}

// startSession logs the operator in with a new session (key login).
func (s *Server) startSession(w http.ResponseWriter, r *http.Request) {
	s.setSession(w, r, s.creds.newSession())
}

func (s *Server) setSession(w http.ResponseWriter, r *http.Request, session string) {
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(), Value: session, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, MaxAge: int(sessionLife / time.Second),
		Secure: r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https"})
	s.log.Info("console: operator logged in", "remote", r.RemoteAddr)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (s *Server) servePage(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'")
	_, _ = w.Write(page)
}

// State is what GET /api/state and the stop operations answer.
type State struct {
	EmergencyStop estop.Status `json:"emergencyStop"`
	// Grants are the consent grants in force; absent when the console has no broker.
	Grants *consent.Grants `json:"grants,omitempty"`
	// Control is who drives the desktop; absent when the console offers no take-over.
	Control *takeover.Status `json:"control,omitempty"`
	// Live: GET /api/live streams the desktop; LiveStats says what it cost so far.
	Live      bool       `json:"live,omitempty"`
	LiveStats *LiveCount `json:"liveStats,omitempty"`
	// Review: GET /api/sessions lists the recorded sessions and /view/{name} shows one.
	Review bool `json:"review,omitempty"`
	// Fleet: GET /api/fleet lists the isolated instances and /fleet/{id} opens one's console.
	Fleet bool `json:"fleet,omitempty"`
	// Rearmed answers POST /api/rearm: whether it was stopped.
	Rearmed bool `json:"rearmed,omitempty"`
}

func (s *Server) state(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, s.current())
}

func (s *Server) current() State {
	st := State{EmergencyStop: s.opts.Stop.Status(), Live: s.opts.Screen != nil, Review: s.opts.Review != nil,
		Fleet: s.opts.Fleet != nil || len(s.opts.Peers) > 0}
	if st.Live {
		grabs, frames := s.LiveStats()
		st.LiveStats = &LiveCount{Grabs: grabs, Frames: frames}
	}
	if s.opts.Consent != nil {
		g := s.opts.Consent.Grants()
		st.Grants = &g
	}
	if s.opts.Control != nil {
		c := s.opts.Control.Status()
		st.Control = &c
	}
	return st
}

// stop trips the latch as the hotkey does and answers once the gestures in progress aborted.
func (s *Server) stop(w http.ResponseWriter, r *http.Request) {
	select {
	case <-s.opts.Stop.Trip(estop.ByConsole):
	case <-r.Context().Done():
		return
	}
	s.log.Warn("console: the operator pressed Stop")
	writeJSON(w, s.current())
}

func (s *Server) rearm(w http.ResponseWriter, _ *http.Request) {
	was := s.opts.Stop.Rearm(estop.ByConsole)
	st := s.current()
	st.Rearmed = was
	writeJSON(w, st)
}

// events streams the narration as server-sent events: the recent calls, then each new one; and,
// as "question" events, each consent question as it opens and closes.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	backlog, next, cancel := s.narr.subscribe()
	defer cancel()
	var questions chan questionEvent // nil: no approvals, the case never fires
	if s.opts.Consent != nil {
		// A page open in a browser is an operator there to answer: the broker may ask from
		// now on, before the page has even seen the stream's first byte.
		defer s.opts.Consent.Attend()()
		questions = make(chan questionEvent)
		go s.watchQuestions(r.Context(), questions)
	}
	send := func(e Narration) bool {
		b, _ := json.Marshal(e)
		_, err := fmt.Fprintf(w, "id: %d\ndata: %s\n\n", e.Seq, b)
		return err == nil
	}
	for _, e := range backlog {
		if !send(e) {
			return
		}
	}
	flusher.Flush()
	keepAlive := time.NewTicker(15 * time.Second)
	defer keepAlive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case e := <-next:
			if !send(e) {
				return
			}
		case q := <-questions:
			b, _ := json.Marshal(q)
			if _, err := fmt.Fprintf(w, "event: question\ndata: %s\n\n", b); err != nil {
				return
			}
		case <-keepAlive.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
		}
		flusher.Flush()
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
