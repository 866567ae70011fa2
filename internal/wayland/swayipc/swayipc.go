// Package swayipc is a client of sway's IPC (sway-ipc(7)): i3's framing ("i3-ipc", payload
// length, message type, JSON) over the Unix socket named by SWAYSOCK. It reads the tree of
// windows and the outputs, runs commands, and subscribes to events.
package swayipc

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"time"
)

// Message types (sway-ipc(7)).
const (
	typeRunCommand = 0
	typeSubscribe  = 2
	typeGetOutputs = 3
	typeGetTree    = 4
	typeGetVersion = 7
	eventBit       = 1 << 31
)

const magic = "i3-ipc"

// maxPayload bounds a message: a tree of a busy session is a few hundred KB.
const maxPayload = 64 << 20

// Conn is one request connection. It is safe for concurrent use: requests take turns. A request
// cut short (its context ended mid-reply) leaves the connection unusable: the next request dials
// again.
type Conn struct {
	path string

	mu     sync.Mutex
	c      net.Conn // nil after a failure, until the next request
	closed bool
}

// Dial connects to sway's IPC socket at path.
func Dial(ctx context.Context, path string) (*Conn, error) {
	c := &Conn{path: path}
	if err := c.dial(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Conn) dial(ctx context.Context) error {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", c.path)
	if err != nil {
		return err
	}
	c.c = nc
	return nil
}

// Close closes the connection.
func (c *Conn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.c == nil {
		return nil
	}
	return c.c.Close()
}

// request sends one message and reads its reply, within ctx.
func (c *Conn) request(ctx context.Context, typ uint32, payload []byte) ([]byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, net.ErrClosed
	}
	if c.c == nil {
		if err := c.dial(ctx); err != nil {
			return nil, err
		}
	}
	nc := c.c
	if dl, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(dl)
	} else {
		_ = nc.SetDeadline(time.Time{})
	}
	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Now()) })
	defer stop()
	if err := writeMessage(nc, typ, payload); err != nil {
		return nil, c.fail(ctx, err)
	}
	for {
		got, body, err := readMessage(nc)
		if err != nil {
			return nil, c.fail(ctx, err)
		}
		if got == typ {
			return body, nil
		}
		// An event on a request connection (never subscribed here): skip it.
	}
}

// fail turns an I/O error that ctx caused into ctx's error. The connection is then unusable
// (a reply may be half read), so it is closed; the next request dials again.
func (c *Conn) fail(ctx context.Context, err error) error {
	c.c.Close()
	c.c = nil
	if errors.Is(err, os.ErrDeadlineExceeded) {
		// Only ctx sets deadlines here; its own timer may fire a hair later.
		<-ctx.Done()
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

func writeMessage(w io.Writer, typ uint32, payload []byte) error {
	buf := make([]byte, 0, len(magic)+8+len(payload))
	buf = append(buf, magic...)
	buf = binary.NativeEndian.AppendUint32(buf, uint32(len(payload)))
	buf = binary.NativeEndian.AppendUint32(buf, typ)
	buf = append(buf, payload...)
	_, err := w.Write(buf)
	return err
}

// readMessage reads one message: its type and payload.
func readMessage(r io.Reader) (uint32, []byte, error) {
	var hdr [len(magic) + 8]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	if string(hdr[:len(magic)]) != magic {
		return 0, nil, fmt.Errorf("swayipc: bad magic %q", hdr[:len(magic)])
	}
	n := binary.NativeEndian.Uint32(hdr[len(magic):])
	typ := binary.NativeEndian.Uint32(hdr[len(magic)+4:])
	if n > maxPayload {
		return 0, nil, fmt.Errorf("swayipc: a message of %d bytes (at most %d)", n, maxPayload)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return 0, nil, fmt.Errorf("swayipc: short message: %w", err)
	}
	return typ, body, nil
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

// Tree returns sway's tree (GET_TREE).
func (c *Conn) Tree(ctx context.Context) (*Node, error) {
	var n Node
	if err := c.get(ctx, typeGetTree, nil, &n); err != nil {
		return nil, err
	}
	return &n, nil
}

// Outputs lists the outputs (GET_OUTPUTS).
func (c *Conn) Outputs(ctx context.Context) ([]Output, error) {
	var o []Output
	return o, c.get(ctx, typeGetOutputs, nil, &o)
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
	return v, c.get(ctx, typeGetVersion, nil, &v)
}

// CommandError is a command sway refused.
type CommandError struct {
	Command string
	Message string
	Parse   bool // the command did not parse
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("sway: %q: %s", e.Command, e.Message)
}

// Command runs cmd (RUN_COMMAND; several separated by ";") and fails with the first
// *CommandError among their results.
func (c *Conn) Command(ctx context.Context, cmd string) error {
	var res []struct {
		Success    bool   `json:"success"`
		Error      string `json:"error"`
		ParseError bool   `json:"parse_error"`
	}
	if err := c.get(ctx, typeRunCommand, []byte(cmd), &res); err != nil {
		return err
	}
	parts := strings.Split(cmd, ";")
	for i, r := range res {
		if !r.Success {
			part := cmd
			if len(parts) == len(res) {
				part = strings.TrimSpace(parts[i])
			}
			return &CommandError{Command: part, Message: r.Error, Parse: r.ParseError}
		}
	}
	return nil
}

// Event is one event of a subscription.
type Event struct {
	Type      string // "window", "workspace", "output", …
	Change    string
	Container *Node // window events
	Raw       json.RawMessage
}

var eventNames = map[uint32]string{0: "workspace", 1: "output", 2: "mode", 3: "window", 4: "barconfig_update",
	5: "binding", 6: "shutdown", 7: "tick", 20: "bar_state_update", 21: "input"}

// Subscribe opens a connection of its own, subscribes to the events named, and delivers them
// until ctx ends or the compositor goes away; then the channel closes.
func Subscribe(ctx context.Context, path string, events ...string) (<-chan Event, error) {
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
	if !res.Success {
		c.Close()
		return nil, fmt.Errorf("swayipc: subscription to %v refused", events)
	}
	nc := c.c
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
			e := Event{Type: eventNames[typ&^eventBit], Raw: body}
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
