// Package swayipc is a client of sway's IPC (sway-ipc(7)), where mcec's Wayland backend gets
// its windows and performs window operations: i3's framing ("i3-ipc", a payload length and a
// message type in native byte order, then JSON) over the Unix socket named by SWAYSOCK. It
// reads the tree of windows, the outputs, the seats and the version, runs commands, and
// subscribes to events on a connection of their own. Only the standard library is used.
package swayipc

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Message types (sway-ipc(7)).
const (
	typeRunCommand    = 0
	typeGetWorkspaces = 1
	typeSubscribe     = 2
	typeGetOutputs    = 3
	typeGetTree       = 4
	typeGetVersion    = 7
	typeGetSeats      = 101
	eventBit          = 1 << 31 // set on every event's type
)

const magic = "i3-ipc"

const headerLen = len(magic) + 8

// maxPayload bounds a message: the tree of a busy session is a few hundred KB, so anything near
// this is a corrupt stream, not a reply, and must not make us allocate without bound.
const maxPayload = 64 << 20

// ErrClosed is the error of a request on a Conn after Close.
var ErrClosed = errors.New("swayipc: connection closed")

// Conn is a connection for requests. It is safe for concurrent use: requests take turns, so
// each reply is the answer to the request just sent. A request cut short (its context ended, or
// the stream broke mid-reply) leaves the socket in an unknown state, so it is dropped and the
// next request dials again; a compositor that restarted at the same path is reached again.
type Conn struct {
	path string

	turn sync.Mutex // held for a whole request: one in flight

	mu     sync.Mutex // guards c and closed; never held during I/O, so Close never waits
	c      net.Conn   // nil after a failure, until the next request
	closed bool
}

// Dial connects to sway's IPC socket at path.
func Dial(ctx context.Context, path string) (*Conn, error) {
	nc, err := dial(ctx, path)
	if err != nil {
		return nil, err
	}
	return &Conn{path: path, c: nc}, nil
}

func dial(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("swayipc: %w", err)
	}
	return nc, nil
}

// Close closes the connection, ending a request in flight; later requests fail with ErrClosed.
func (c *Conn) Close() error {
	c.mu.Lock()
	nc := c.c
	c.c, c.closed = nil, true
	c.mu.Unlock()
	if nc == nil {
		return nil
	}
	return nc.Close()
}

// conn returns the socket for the next request, dialing again after a failure.
func (c *Conn) conn(ctx context.Context) (net.Conn, error) {
	c.mu.Lock()
	nc, closed := c.c, c.closed
	c.mu.Unlock()
	if closed {
		return nil, ErrClosed
	}
	if nc != nil {
		return nc, nil
	}
	nc, err := dial(ctx, c.path)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		nc.Close()
		return nil, ErrClosed
	}
	c.c = nc
	return nc, nil
}

// drop forgets nc, closed, so that the next request dials again.
func (c *Conn) drop(nc net.Conn) {
	c.mu.Lock()
	if c.c == nc {
		c.c = nil
	}
	c.mu.Unlock()
	nc.Close()
}

// request sends one message and reads its reply, within ctx: the socket's deadline is ctx's,
// and ctx's cancellation closes the socket, which ends a blocked read or write at once.
func (c *Conn) request(ctx context.Context, typ uint32, payload []byte) ([]byte, error) {
	c.turn.Lock()
	defer c.turn.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	nc, err := c.conn(ctx)
	if err != nil {
		return nil, err
	}
	dl, _ := ctx.Deadline() // zero without one: no deadline
	if err := nc.SetDeadline(dl); err != nil {
		c.drop(nc)
		return nil, c.why(ctx, err)
	}
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	body, err := roundTrip(nc, typ, payload)
	if !stop() || err != nil {
		// Failed, or ctx ended just as the reply arrived and the socket is being closed.
		c.drop(nc)
	}
	if err != nil {
		return nil, c.why(ctx, err)
	}
	return body, nil
}

func roundTrip(nc net.Conn, typ uint32, payload []byte) ([]byte, error) {
	if err := writeMessage(nc, typ, payload); err != nil {
		return nil, err
	}
	for {
		got, body, err := readMessage(nc)
		if err != nil {
			return nil, err
		}
		if got == typ {
			return body, nil
		}
		if got&eventBit == 0 {
			return nil, fmt.Errorf("swayipc: a reply of type %d to a message of type %d", got, typ)
		}
		// An event on a request connection (never subscribed here): skip it.
	}
}

// why says why a request failed: ctx's error when ctx cut it short, ErrClosed when Close did,
// else the I/O error.
func (c *Conn) why(ctx context.Context, err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		// Only ctx sets deadlines here; its own timer may fire a hair after the socket's.
		<-ctx.Done()
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) {
		return fmt.Errorf("swayipc: the compositor closed the connection: %w", err)
	}
	if strings.HasPrefix(err.Error(), "swayipc:") {
		return err
	}
	return fmt.Errorf("swayipc: %w", err)
}

func writeMessage(w io.Writer, typ uint32, payload []byte) error {
	if len(payload) > maxPayload {
		return fmt.Errorf("swayipc: a message of %d bytes (at most %d)", len(payload), maxPayload)
	}
	buf := make([]byte, 0, headerLen+len(payload))
	buf = append(buf, magic...)
	buf = binary.NativeEndian.AppendUint32(buf, uint32(len(payload)))
	buf = binary.NativeEndian.AppendUint32(buf, typ)
	buf = append(buf, payload...)
	_, err := w.Write(buf)
	return err
}

// readMessage reads one message: its type and payload. A stream that ends before the header
// returns io.EOF as it is (a connection closed between messages); anything else malformed is an
// error that says what.
func readMessage(r io.Reader) (uint32, []byte, error) {
	var hdr [headerLen]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, nil, fmt.Errorf("swayipc: short header: %w", err)
		}
		return 0, nil, err
	}
	if string(hdr[:len(magic)]) != magic {
		return 0, nil, fmt.Errorf("swayipc: bad magic %q, not an i3-ipc stream", hdr[:len(magic)])
	}
	n := binary.NativeEndian.Uint32(hdr[len(magic):])
	typ := binary.NativeEndian.Uint32(hdr[len(magic)+4:])
	if n > maxPayload {
		return 0, nil, fmt.Errorf("swayipc: a message of %d bytes (at most %d)", n, maxPayload)
	}
	// Grow with what arrives rather than trusting the length up front: a corrupt header
	// followed by a short stream costs what was read, not the claimed size.
	var body []byte
	if n <= 1<<20 {
		body = make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return 0, nil, shortBody(err, n)
		}
	} else {
		var b bytes.Buffer
		b.Grow(1 << 20)
		if _, err := io.CopyN(&b, r, int64(n)); err != nil {
			return 0, nil, shortBody(err, n)
		}
		body = b.Bytes()
	}
	return typ, body, nil
}

func shortBody(err error, n uint32) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("swayipc: short message (%d bytes announced): %w", n, err)
}

// get runs a request and decodes its JSON reply into v.
func (c *Conn) get(ctx context.Context, typ uint32, payload []byte, v any) error {
	body, err := c.request(ctx, typ, payload)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("swayipc: reply to message %d: %w", typ, err)
	}
	return nil
}

// Tree returns sway's tree (GET_TREE): the root, its outputs (the first one "__i3", holding the
// scratchpad workspace "__i3_scratch"), their workspaces, containers and views.
func (c *Conn) Tree(ctx context.Context) (*Node, error) {
	var n Node
	if err := c.get(ctx, typeGetTree, nil, &n); err != nil {
		return nil, err
	}
	return &n, nil
}

// Outputs lists the outputs (GET_OUTPUTS), disabled ones included (Active false).
func (c *Conn) Outputs(ctx context.Context) ([]Output, error) {
	var o []Output
	if err := c.get(ctx, typeGetOutputs, nil, &o); err != nil {
		return nil, err
	}
	return o, nil
}

// Workspaces lists the workspaces (GET_WORKSPACES), the scratchpad excluded.
func (c *Conn) Workspaces(ctx context.Context) ([]Workspace, error) {
	var w []Workspace
	if err := c.get(ctx, typeGetWorkspaces, nil, &w); err != nil {
		return nil, err
	}
	return w, nil
}

// Seats lists the seats (GET_SEATS) and their input devices.
func (c *Conn) Seats(ctx context.Context) ([]Seat, error) {
	var s []Seat
	if err := c.get(ctx, typeGetSeats, nil, &s); err != nil {
		return nil, err
	}
	return s, nil
}

// Version is GET_VERSION's reply.
type Version struct {
	HumanReadable string `json:"human_readable"`
	Major         int    `json:"major"`
	Minor         int    `json:"minor"`
	Patch         int    `json:"patch"`
	ConfigFile    string `json:"loaded_config_file_name"`
}

// Version asks the compositor's version.
func (c *Conn) Version(ctx context.Context) (Version, error) {
	var v Version
	err := c.get(ctx, typeGetVersion, nil, &v)
	return v, err
}

// CommandError is a command sway refused (RUN_COMMAND's success false).
type CommandError struct {
	Command string // the command that failed, when it can be told apart from the others sent with it
	Message string // sway's error
	Parse   bool   // the command is unknown or did not parse
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("sway: %q: %s", e.Command, e.Message)
}

// commandResult is one entry of RUN_COMMAND's reply.
type commandResult struct {
	Success    bool   `json:"success"`
	Error      string `json:"error"`
	ParseError bool   `json:"parse_error"`
}

// Command runs cmd (RUN_COMMAND). Several commands may be separated by ";" (or by "," to share
// criteria); sway answers for each in order, and each that failed becomes a *CommandError: the
// error is that one, or several joined (errors.As finds the first). Sway goes on after a command
// that fails but stops at one it cannot parse, so the reply may be shorter than the list.
func (c *Conn) Command(ctx context.Context, cmd string) error {
	var res []commandResult
	if err := c.get(ctx, typeRunCommand, []byte(cmd), &res); err != nil {
		return err
	}
	return commandErrors(cmd, res)
}

func commandErrors(cmd string, res []commandResult) error {
	parts := splitCommands(cmd)
	var errs []error
	for i, r := range res {
		if r.Success {
			continue
		}
		part := cmd
		if len(res) <= len(parts) {
			part = parts[i]
		}
		errs = append(errs, &CommandError{Command: part, Message: r.Error, Parse: r.ParseError})
	}
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return errors.Join(errs...)
}

// splitCommands cuts cmd where sway does, so that each result can name its command: at ";" and
// ",", outside quotes and criteria brackets. A command after "," keeps the criteria of the one
// before it, as sway applies them (sway-ipc's reply has one entry per command either way).
func splitCommands(cmd string) []string {
	var parts []string
	var criteria string
	start, quote, bracket := 0, byte(0), false
	flush := func(end int, sep byte) {
		p := strings.TrimSpace(cmd[start:end])
		if p == "" {
			start = end + 1
			return
		}
		if strings.HasPrefix(p, "[") {
			if i := criteriaEnd(p); i > 0 {
				criteria = p[:i]
			}
		} else if criteria != "" {
			p = criteria + " " + p
		}
		parts = append(parts, p)
		if sep == ';' {
			criteria = ""
		}
		start = end + 1
	}
	for i := 0; i < len(cmd); i++ {
		ch := cmd[i]
		switch {
		case quote != 0:
			if ch == '\\' {
				i++
			} else if ch == quote {
				quote = 0
			}
		case ch == '"' || ch == '\'':
			quote = ch
		case ch == '[':
			bracket = true
		case ch == ']':
			bracket = false
		case !bracket && (ch == ';' || ch == ','):
			flush(i, ch)
		}
	}
	flush(len(cmd), ';')
	return parts
}

// criteriaEnd is the length of the "[...]" criteria p starts with, 0 when they do not close.
func criteriaEnd(p string) int {
	quote := byte(0)
	for i := 1; i < len(p); i++ {
		switch ch := p[i]; {
		case quote != 0:
			if ch == '\\' {
				i++
			} else if ch == quote {
				quote = 0
			}
		case ch == '"' || ch == '\'':
			quote = ch
		case ch == ']':
			return i + 1
		}
	}
	return 0
}

// Event is one event of a subscription.
type Event struct {
	Type      string // "window", "workspace", "output", "shutdown", … ("0x…" for one unknown)
	Change    string // what happened: "new", "close", "focus", "title", "move", "floating", …
	Container *Node  // the window, for window events
	Raw       json.RawMessage
}

var eventNames = map[uint32]string{0: "workspace", 1: "output", 2: "mode", 3: "window", 4: "barconfig_update",
	5: "binding", 6: "shutdown", 7: "tick", 20: "bar_state_update", 21: "input"}

// eventName names an event type, without its high bit.
func eventName(typ uint32) string {
	if n, ok := eventNames[typ]; ok {
		return n
	}
	return "0x" + strconv.FormatUint(uint64(typ|eventBit), 16)
}

// Subscribe opens a connection of its own (a subscribed connection carries events, which would
// interleave with replies), subscribes to the events named, and delivers them until ctx ends or
// the compositor goes away; then the channel closes and so does the connection. An event is
// held until it is received or ctx ends: a reader that stops reading must end ctx.
func Subscribe(ctx context.Context, path string, events ...string) (<-chan Event, error) {
	if len(events) == 0 {
		return nil, errors.New("swayipc: a subscription to no events")
	}
	c, err := Dial(ctx, path)
	if err != nil {
		return nil, err
	}
	names, _ := json.Marshal(events)
	var res struct {
		Success bool `json:"success"`
	}
	if err := c.get(ctx, typeSubscribe, names, &res); err != nil {
		c.Close()
		return nil, err
	}
	// The socket now carries events: take it from c, which is not used again.
	c.mu.Lock()
	nc := c.c
	c.c = nil
	c.mu.Unlock()
	if !res.Success || nc == nil {
		if nc != nil {
			nc.Close()
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("swayipc: sway refused the subscription to %s", names)
	}
	_ = nc.SetDeadline(time.Time{})
	out := make(chan Event, 16)
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	go func() {
		defer close(out)
		defer stop()
		defer nc.Close()
		for {
			typ, body, err := readMessage(nc)
			if err != nil {
				return
			}
			if typ&eventBit == 0 {
				continue
			}
			e := Event{Type: eventName(typ &^ eventBit), Raw: body}
			var d struct {
				Change    string `json:"change"`
				Container *Node  `json:"container"`
			}
			if json.Unmarshal(body, &d) == nil {
				e.Change, e.Container = d.Change, d.Container
			}
			select {
			case out <- e:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// SocketPath finds the IPC socket of the sway session we run in: $SWAYSOCK (or i3's $I3SOCK,
// which sway sets too), else a sway-ipc.*.sock in $XDG_RUNTIME_DIR whose sway still runs (the
// newest when there are several).
func SocketPath() (string, error) {
	for _, v := range []string{"SWAYSOCK", "I3SOCK"} {
		if p := os.Getenv(v); p != "" {
			return p, nil
		}
	}
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir == "" {
		return "", errors.New("swayipc: neither SWAYSOCK nor XDG_RUNTIME_DIR is set")
	}
	socks := sockets(dir)
	var live []socket
	for _, s := range socks {
		if _, err := os.Stat("/proc/" + strconv.Itoa(s.pid)); err == nil {
			live = append(live, s)
		}
	}
	if len(live) == 0 {
		return "", fmt.Errorf("swayipc: SWAYSOCK is not set and %s holds no socket of a running sway", dir)
	}
	sort.Slice(live, func(i, j int) bool { return live[i].mod.After(live[j].mod) })
	return live[0].path, nil
}

// FindSocket returns the IPC socket in runtimeDir of the sway whose pid is pid. Sway names it
// sway-ipc.UID.PID.sock; only the pid is matched, since the uid is the one sway sees, which
// differs from ours when sway runs in a user namespace (a pid namespace would change the pid
// too, but mcec does not use one).
func FindSocket(runtimeDir string, pid int) (string, error) {
	for _, s := range sockets(runtimeDir) {
		if s.pid == pid {
			return s.path, nil
		}
	}
	return "", fmt.Errorf("swayipc: no IPC socket of sway %d in %s: %w", pid, runtimeDir, os.ErrNotExist)
}

type socket struct {
	path string
	pid  int
	mod  time.Time
}

// sockets lists the sway-ipc.UID.PID.sock sockets in dir.
func sockets(dir string) []socket {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []socket
	for _, e := range ents {
		name := e.Name()
		if e.Type()&os.ModeSocket == 0 || !strings.HasPrefix(name, "sway-ipc.") || !strings.HasSuffix(name, ".sock") {
			continue
		}
		fields := strings.Split(strings.TrimSuffix(strings.TrimPrefix(name, "sway-ipc."), ".sock"), ".")
		if len(fields) != 2 {
			continue
		}
		pid, err := strconv.Atoi(fields[1])
		if err != nil || pid <= 0 {
			continue
		}
		s := socket{path: filepath.Join(dir, name), pid: pid}
		if fi, err := e.Info(); err == nil {
			s.mod = fi.ModTime()
		}
		out = append(out, s)
	}
	return out
}
