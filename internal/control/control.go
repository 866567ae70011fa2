// Package control is mcec's local control socket: a Unix socket, reachable only by the user
// who runs the server, through which the operator — never an agent — talks to a running
// server (`mcec rearm` after an emergency stop, `mcec consent` to answer consent prompts).
// Agents reach mcec only through the transports, which have no route to these operations.
//
// The protocol is one JSON request line per connection, {"op": NAME, "args": {...}}, answered
// by one JSON line, {"ok": true, "result": ...} or {"ok": false, "error": "..."}. A handler may
// block (a consent prompter waits for the next question); it is cancelled when the client hangs
// up.
package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcec/mcec/internal/paths"
)

// EnvSocket names a control socket explicitly (mcec rearm/consent, when several servers run).
const EnvSocket = "MCEC_CONTROL"

// maxRequest bounds one request line.
const maxRequest = 64 << 10

// Handler answers one operation. args is the request's args (null when absent). The error's
// text is shown to the operator.
type Handler func(ctx context.Context, args json.RawMessage) (any, error)

// Server listens on the control socket.
type Server struct {
	path string
	ln   *net.UnixListener
	log  *slog.Logger

	mu       sync.RWMutex
	handlers map[string]Handler

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Dir is where control sockets live: $XDG_RUNTIME_DIR/mcec, or <tmp>/mcec-<uid>.
func Dir() string { return dirs()[0] }

// dirs are the socket directories in order of preference: $XDG_RUNTIME_DIR/mcec, then
// <tmp>/mcec-<uid> (also used when the runtime directory cannot hold a socket).
func dirs() []string { return paths.Runtime() }

var seq atomic.Int64

// NewPath is a fresh socket path in Dir for this process: control-<pid>-<n>.sock (several
// servers may run in one process, e.g. in tests).
func NewPath() string { return newPathIn(Dir()) }

func newPathIn(dir string) string {
	return filepath.Join(dir, fmt.Sprintf("control-%d-%d.sock", os.Getpid(), seq.Add(1)))
}

// Listen creates the socket at path in a directory only the user can enter, with mode 0600, and
// starts serving. Connections from another user are refused on their peer credentials as well.
// An empty path picks a fresh one in Dir, falling back to <tmp>/mcec-<uid> when the runtime
// directory cannot be used (a container's stale XDG_RUNTIME_DIR must not stop the server).
func Listen(path string, log *slog.Logger) (*Server, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if path != "" {
		return listen(path, log)
	}
	var errs []error
	for _, dir := range dirs() {
		s, err := listen(newPathIn(dir), log)
		if err == nil {
			return s, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

func listen(path string, log *slog.Logger) (*Server, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	if err := checkPrivateDir(dir); err != nil {
		return nil, err
	}
	if live(path) {
		return nil, fmt.Errorf("control socket %s is in use by another server", path)
	}
	_ = os.Remove(path) // a stale socket of a crashed server
	sweepSockets(dir)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("control socket: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{path: path, ln: ln, log: log, handlers: map[string]Handler{OpStats: stats}, ctx: ctx, cancel: cancel}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// checkPrivateDir refuses a socket directory that other users could write into (someone could
// swap the socket for their own).
func checkPrivateDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("control socket: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("control socket directory %s belongs to uid %d, not to this user", dir, st.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("control socket directory %s is writable by others (mode %v); chmod 700 it", dir, fi.Mode().Perm())
	}
	return nil
}

// OpStats answers Stats: what a leak would grow that only the process itself can see (its open
// files, threads and memory are in /proc already). Served on every control socket.
const OpStats = "stats"

// Stats is the answer of OpStats.
type Stats struct {
	Goroutines int    `json:"goroutines"`
	HeapAlloc  uint64 `json:"heapAlloc"` // bytes of live heap objects
	HeapSys    uint64 `json:"heapSys"`   // bytes of heap obtained from the system
	NumGC      uint32 `json:"numGC"`
}

// StatsArgs are OpStats's arguments.
type StatsArgs struct {
	// GC collects garbage first, so HeapAlloc is the live heap (a leak check wants that; it
	// costs a collection).
	GC bool `json:"gc,omitempty"`
}

func stats(_ context.Context, raw json.RawMessage) (any, error) {
	var args StatsArgs
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, fmt.Errorf("stats: %w", err)
		}
	}
	if args.GC {
		runtime.GC()
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return Stats{Goroutines: runtime.NumGoroutine(), HeapAlloc: m.HeapAlloc, HeapSys: m.HeapSys, NumGC: m.NumGC}, nil
}

// Path is the socket's path.
func (s *Server) Path() string { return s.path }

// Handle registers op. Registering an op twice replaces the handler.
func (s *Server) Handle(op string, h Handler) {
	s.mu.Lock()
	s.handlers[op] = h
	s.mu.Unlock()
}

// Close stops listening, cancels handlers in progress, waits for them and removes the socket.
// It is idempotent.
func (s *Server) Close() error {
	s.cancel()
	err := s.ln.Close()
	s.wg.Wait()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		conn, err := s.ln.AcceptUnix()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				s.log.Warn("control socket accept failed", "err", err)
			}
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer conn.Close()
			s.serve(conn)
		}()
	}
}

type request struct {
	Op   string          `json:"op"`
	Args json.RawMessage `json:"args,omitempty"`
}

type response struct {
	OK     bool   `json:"ok"`
	Result any    `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}

func (s *Server) serve(conn *net.UnixConn) {
	if uid, err := peerUID(conn); err != nil || uid != os.Getuid() {
		s.log.Warn("control socket: refused a connection from another user", "uid", uid, "err", err)
		return
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReaderSize(conn, 4096)
	line, err := readLine(r)
	if err != nil {
		writeResponse(conn, response{Error: err.Error()})
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		writeResponse(conn, response{Error: "bad request: " + err.Error()})
		return
	}
	s.mu.RLock()
	h := s.handlers[req.Op]
	s.mu.RUnlock()
	if h == nil {
		writeResponse(conn, response{Error: fmt.Sprintf("unknown operation %q", req.Op)})
		return
	}
	// The handler is cancelled when the client hangs up (it sends nothing after its request)
	// or the server closes.
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	go func() {
		_, _ = r.ReadByte()
		cancel()
	}()
	result, err := h(ctx, req.Args)
	if err != nil {
		writeResponse(conn, response{Error: err.Error()})
		return
	}
	writeResponse(conn, response{OK: true, Result: result})
}

func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxRequest {
			return nil, errors.New("request too long")
		}
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return nil, err
		}
	}
}

func writeResponse(conn net.Conn, resp response) {
	b, err := json.Marshal(resp)
	if err != nil {
		b, _ = json.Marshal(response{Error: "unencodable result: " + err.Error()})
	}
	_ = conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, _ = conn.Write(append(b, '\n'))
}

// peerUID is the connecting process's user, from SO_PEERCRED.
func peerUID(conn *net.UnixConn) (int, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid := -1
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
		if err != nil {
			credErr = err
			return
		}
		uid = int(cred.Uid)
	}); err != nil {
		return -1, err
	}
	return uid, credErr
}

// sweepSockets removes the sockets in dir of servers that are gone (killed outright, they could
// not remove their own): a connection to them is refused. A socket that does not answer in time
// may belong to a busy server and stays.
func sweepSockets(dir string) {
	matches, _ := filepath.Glob(filepath.Join(dir, "control-*.sock"))
	for _, m := range matches {
		if fi, err := os.Lstat(m); err != nil || fi.Mode().Type() != os.ModeSocket {
			continue
		}
		c, err := net.DialTimeout("unix", m, 500*time.Millisecond)
		if err == nil {
			c.Close()
			continue
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			_ = os.Remove(m)
		}
	}
}

// live reports whether a server answers on path.
func live(path string) bool {
	c, err := net.DialTimeout("unix", path, 500*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// Find picks the socket a command should talk to: explicit (a flag), else $MCEC_CONTROL, else the
// only live socket in Dir. Several live servers are an error that lists them.
func Find(explicit string) (string, error) {
	if explicit != "" {
		return explicit, nil
	}
	if p := os.Getenv(EnvSocket); p != "" {
		return p, nil
	}
	var matches []string
	for _, dir := range dirs() {
		m, _ := filepath.Glob(filepath.Join(dir, "control-*.sock"))
		matches = append(matches, m...)
	}
	sort.Strings(matches)
	var alive []string
	for _, m := range matches {
		if live(m) {
			alive = append(alive, m)
		}
	}
	switch len(alive) {
	case 0:
		return "", fmt.Errorf("no running mcec server found (no live control socket in %s)", strings.Join(dirs(), " or "))
	case 1:
		return alive[0], nil
	}
	return "", fmt.Errorf("%d mcec servers are running; choose one with --socket (or %s):\n  %s",
		len(alive), EnvSocket, strings.Join(alive, "\n  "))
}

// Call sends one request and decodes the result into result (which may be nil). It waits until
// the server answers or ctx ends; ending ctx hangs up, which cancels the handler.
func Call(ctx context.Context, path, op string, args, result any) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return fmt.Errorf("cannot reach the mcec server at %s: %w", path, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	req := request{Op: op}
	if args != nil {
		if req.Args, err = json.Marshal(args); err != nil {
			return err
		}
	}
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if _, err := conn.Write(append(b, '\n')); err != nil {
		return err
	}
	line, err := readLine(bufio.NewReader(conn))
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("the mcec server closed the control connection: %w", err)
	}
	var resp struct {
		OK     bool            `json:"ok"`
		Result json.RawMessage `json:"result"`
		Error  string          `json:"error"`
	}
	if err := json.Unmarshal(line, &resp); err != nil {
		return fmt.Errorf("bad answer from the mcec server: %w", err)
	}
	if !resp.OK {
		return errors.New(resp.Error)
	}
	if result != nil && len(resp.Result) > 0 {
		return json.Unmarshal(resp.Result, result)
	}
	return nil
}
