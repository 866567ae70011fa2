// Package wire speaks the Wayland wire protocol as a client: a Unix socket, messages of a header
// and 32-bit aligned arguments, file descriptors passed beside them (SCM_RIGHTS), object ids the
// client allocates and the server frees (wl_display.delete_id), and round trips through
// wl_display.sync. It knows wl_display and wl_callback; every other interface is the caller's
// (internal/wayland/protocol holds their opcodes).
//
// Events are read by one goroutine per connection and handed to the handler of the object they
// are for, on that goroutine: handlers must not block.
package wire

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// DisplayID is wl_display's object id, the one object every connection starts with.
const DisplayID = 1

// wl_display's and wl_callback's messages.
const (
	displaySync        = 0 // request sync(callback new_id)
	displayGetRegistry = 1 // request get_registry(registry new_id)
	displayError       = 0 // event error(object_id object, code uint, message string)
	displayDeleteID    = 1 // event delete_id(id uint)
	callbackDone       = 0 // event done(callback_data uint)
)

// Limits of what a connection accepts.
const (
	headerSize = 8
	maxMessage = 4096 // libwayland's own limit on a message
	maxFDs     = 28   // per sendmsg, as libwayland
	// errorWait is how long a failed write waits for the compositor's protocol error.
	errorWait = time.Second
)

// ProtocolError is a fatal error the compositor reported (wl_display.error): the connection is
// unusable after it.
type ProtocolError struct {
	ObjectID uint32
	Code     uint32
	Message  string
}

func (e *ProtocolError) Error() string {
	return fmt.Sprintf("wayland: protocol error %d on object %d: %s", e.Code, e.ObjectID, e.Message)
}

// ErrClosed is the error of a connection closed by Close.
var ErrClosed = errors.New("wayland: connection closed")

// Handler receives the events of one object.
type Handler func(opcode uint16, m *Message)

// Conn is a client connection. It is safe for concurrent use.
type Conn struct {
	c *net.UnixConn

	wmu sync.Mutex // one message written at a time

	mu       sync.Mutex
	handlers map[uint32]Handler
	next     uint32   // the next fresh client id
	free     []uint32 // ids the server has released (delete_id)
	err      error    // set once: the connection is broken
	done     chan struct{}
	closed   bool
}

// SocketPath resolves WAYLAND_DISPLAY the way libwayland does: an absolute path as it is, a name
// in runtimeDir, "wayland-0" when empty.
func SocketPath(waylandDisplay, runtimeDir string) string {
	if waylandDisplay == "" {
		waylandDisplay = "wayland-0"
	}
	if filepath.IsAbs(waylandDisplay) {
		return waylandDisplay
	}
	return filepath.Join(runtimeDir, waylandDisplay)
}

// Dial connects to the compositor's socket at path.
func Dial(ctx context.Context, path string) (*Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	return newConn(nc.(*net.UnixConn)), nil
}

// newConn starts the reader on an open socket.
func newConn(uc *net.UnixConn) *Conn {
	c := &Conn{c: uc, handlers: map[uint32]Handler{}, next: 2, done: make(chan struct{})}
	c.handlers[DisplayID] = c.displayEvent
	go c.read()
	return c
}

// Close closes the connection; pending and later calls fail with ErrClosed. Idempotent.
func (c *Conn) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.fail(ErrClosed)
	return nil
}

// Err is the error that broke the connection, nil while it works.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// PeerPID is the process id of the compositor at the other end (SO_PEERCRED).
func (c *Conn) PeerPID() (int, error) {
	rc, err := c.c.SyscallConn()
	if err != nil {
		return 0, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := rc.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, err
	}
	if credErr != nil {
		return 0, credErr
	}
	return int(cred.Pid), nil
}

// Done closes when the connection breaks.
func (c *Conn) Done() <-chan struct{} { return c.done }

// fail breaks the connection with err (the first error wins) and closes the socket.
func (c *Conn) fail(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	close(c.done)
	c.mu.Unlock()
	c.c.Close()
}

// NewObject allocates a client object id with its event handler (nil: its events are dropped).
func (c *Conn) NewObject(h Handler) uint32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var id uint32
	if n := len(c.free); n > 0 {
		id, c.free = c.free[n-1], c.free[:n-1]
	} else {
		id = c.next
		c.next++
	}
	if h == nil {
		h = func(uint16, *Message) {}
	}
	c.handlers[id] = h
	return id
}

// Handle sets the handler of an object the server created (a new_id in an event).
func (c *Conn) Handle(id uint32, h Handler) {
	c.mu.Lock()
	c.handlers[id] = h
	c.mu.Unlock()
}

// Forget drops an object's handler once the client has destroyed it; its id returns to use when
// the server says so (delete_id).
func (c *Conn) Forget(id uint32) {
	c.mu.Lock()
	delete(c.handlers, id)
	c.mu.Unlock()
}

// Arg is one request argument; make them with the functions below.
type Arg struct {
	kind byte // 'u' uint/int/fixed/object/new_id, 's' string, 'a' array, 'h' fd
	u    uint32
	s    string
	b    []byte
	fd   int
}

// Uint is a uint argument (also enum values).
func Uint(v uint32) Arg { return Arg{kind: 'u', u: v} }

// Int is an int argument.
func Int(v int32) Arg { return Arg{kind: 'u', u: uint32(v)} }

// Fixed is a fixed-point (24.8) argument.
func Fixed(v float64) Arg { return Arg{kind: 'u', u: uint32(int32(math.Round(v * 256)))} }

// Object is an object argument (0: null).
func Object(id uint32) Arg { return Arg{kind: 'u', u: id} }

// NewID is a typed new_id argument.
func NewID(id uint32) Arg { return Arg{kind: 'u', u: id} }

// String is a string argument.
func String(s string) Arg { return Arg{kind: 's', s: s} }

// Array is an array argument.
func Array(b []byte) Arg { return Arg{kind: 'a', b: b} }

// FD is a file descriptor argument: it is passed beside the message (the caller keeps its own).
func FD(fd int) Arg { return Arg{kind: 'h', fd: fd} }

// encode builds one message's bytes and the fds that go with it.
func encode(obj uint32, opcode uint16, args []Arg) ([]byte, []int, error) {
	b := make([]byte, headerSize, 64)
	var fds []int
	for _, a := range args {
		switch a.kind {
		case 'u':
			b = binary.NativeEndian.AppendUint32(b, a.u)
		case 's':
			b = binary.NativeEndian.AppendUint32(b, uint32(len(a.s)+1))
			b = append(b, a.s...)
			b = append(b, 0)
			b = pad(b)
		case 'a':
			b = binary.NativeEndian.AppendUint32(b, uint32(len(a.b)))
			b = append(b, a.b...)
			b = pad(b)
		case 'h':
			fds = append(fds, a.fd)
		default:
			return nil, nil, errors.New("wayland: an argument made without wire's constructors")
		}
	}
	if len(b) > maxMessage || len(fds) > maxFDs {
		return nil, nil, fmt.Errorf("wayland: a message of %d bytes and %d fds is too large", len(b), len(fds))
	}
	binary.NativeEndian.PutUint32(b[0:], obj)
	binary.NativeEndian.PutUint32(b[4:], uint32(len(b))<<16|uint32(opcode))
	return b, fds, nil
}

func pad(b []byte) []byte {
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// Send writes one request.
func (c *Conn) Send(obj uint32, opcode uint16, args ...Arg) error {
	msg, fds, err := encode(obj, opcode, args)
	if err != nil {
		return err
	}
	if err := c.Err(); err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	if _, _, err := c.c.WriteMsgUnix(msg, oob, nil); err != nil {
		// A compositor hangs up right after it reports a protocol error, which the reader may
		// not have read yet: that error says more than the broken pipe.
		t := time.NewTimer(errorWait)
		select {
		case <-c.done:
		case <-t.C:
		}
		t.Stop()
		c.fail(fmt.Errorf("wayland: write: %w", err))
		return c.Err()
	}
	return nil
}

// Roundtrip waits until the compositor has handled every request sent before it (and the
// connection has dispatched every event sent before its answer).
func (c *Conn) Roundtrip(ctx context.Context) error {
	done := make(chan struct{})
	var once sync.Once
	var id uint32
	id = c.NewObject(func(op uint16, _ *Message) {
		if op == callbackDone {
			c.Forget(id) // the compositor frees a callback's id itself (delete_id follows)
			once.Do(func() { close(done) })
		}
	})
	if err := c.Send(DisplayID, displaySync, NewID(id)); err != nil {
		return err
	}
	select {
	case <-done:
		return nil
	case <-c.done:
		return c.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// GetRegistry creates the registry object with its handler.
func (c *Conn) GetRegistry(h Handler) (uint32, error) {
	id := c.NewObject(h)
	return id, c.Send(DisplayID, displayGetRegistry, NewID(id))
}

func (c *Conn) displayEvent(op uint16, m *Message) {
	switch op {
	case displayError:
		e := &ProtocolError{ObjectID: m.Uint(), Code: m.Uint(), Message: m.String()}
		c.fail(e)
	case displayDeleteID:
		id := m.Uint()
		c.mu.Lock()
		delete(c.handlers, id)
		c.free = append(c.free, id)
		c.mu.Unlock()
	}
}

// read reads and dispatches events until the connection breaks.
func (c *Conn) read() {
	buf := make([]byte, 0, 2*maxMessage)
	chunk := make([]byte, maxMessage)
	oob := make([]byte, unix.CmsgSpace(maxFDs*4))
	var fds []int
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	for {
		n, oobn, _, _, err := c.c.ReadMsgUnix(chunk, oob)
		if oobn > 0 {
			fds = append(fds, parseRights(oob[:oobn])...)
		}
		if err != nil || n == 0 {
			c.mu.Lock()
			closed := c.closed
			c.mu.Unlock()
			if closed {
				c.fail(ErrClosed)
			} else if err != nil {
				c.fail(fmt.Errorf("wayland: read: %w", err))
			} else {
				c.fail(errors.New("wayland: the compositor closed the connection"))
			}
			return
		}
		buf = append(buf, chunk[:n]...)
		var rest []byte
		rest, fds, err = c.dispatch(buf, fds)
		if err != nil {
			c.fail(err)
			return
		}
		buf = append(buf[:0], rest...)
	}
}

// dispatch hands every whole message in b to its handler and returns what is left of b and of
// the fd queue.
func (c *Conn) dispatch(b []byte, fds []int) ([]byte, []int, error) {
	for len(b) >= headerSize {
		obj := binary.NativeEndian.Uint32(b[0:])
		word := binary.NativeEndian.Uint32(b[4:])
		size, op := int(word>>16), uint16(word)
		if size < headerSize || size%4 != 0 || size > maxMessage {
			return nil, fds, fmt.Errorf("wayland: a message of %d bytes", size)
		}
		if len(b) < size {
			break
		}
		c.mu.Lock()
		h := c.handlers[obj]
		c.mu.Unlock()
		m := &Message{data: b[headerSize:size], fds: fds}
		if h != nil {
			h(op, m)
		}
		fds = m.fds
		b = b[size:]
	}
	return b, fds, nil
}

// parseRights returns the fds of SCM_RIGHTS control messages.
func parseRights(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var out []int
	for _, m := range msgs {
		if fds, err := unix.ParseUnixRights(&m); err == nil {
			out = append(out, fds...)
		}
	}
	return out
}

// Message is one event's arguments, read in order. A read past the end yields zero values and
// sets Err.
type Message struct {
	data []byte
	off  int
	fds  []int // the connection's queue of received fds: FD takes the first
	err  error
}

// Err reports a read past the message's end.
func (m *Message) Err() error { return m.err }

func (m *Message) word() uint32 {
	if m.off+4 > len(m.data) {
		m.err = errors.New("wayland: event shorter than its arguments")
		m.off = len(m.data)
		return 0
	}
	v := binary.NativeEndian.Uint32(m.data[m.off:])
	m.off += 4
	return v
}

// Uint reads a uint (or enum, object, new_id).
func (m *Message) Uint() uint32 { return m.word() }

// Int reads an int.
func (m *Message) Int() int32 { return int32(m.word()) }

// Fixed reads a fixed-point number.
func (m *Message) Fixed() float64 { return float64(int32(m.word())) / 256 }

// Array reads an array.
func (m *Message) Array() []byte {
	n := int(m.word())
	padded := (n + 3) &^ 3
	if n < 0 || m.off+padded > len(m.data) {
		m.err = errors.New("wayland: array longer than its event")
		m.off = len(m.data)
		return nil
	}
	b := m.data[m.off : m.off+n]
	m.off += padded
	return b
}

// String reads a string ("" for null).
func (m *Message) String() string {
	b := m.Array()
	if len(b) == 0 {
		return ""
	}
	if b[len(b)-1] != 0 {
		m.err = errors.New("wayland: string without its terminating NUL")
		return ""
	}
	return string(b[:len(b)-1])
}

// FD takes the next received file descriptor, now the handler's to close; -1 when none came.
func (m *Message) FD() int {
	if len(m.fds) == 0 {
		m.err = errors.New("wayland: an fd argument without an fd")
		return -1
	}
	fd := m.fds[0]
	m.fds = m.fds[1:]
	return fd
}

// File is FD as an *os.File named name.
func (m *Message) File(name string) *os.File {
	fd := m.FD()
	if fd < 0 {
		return nil
	}
	return os.NewFile(uintptr(fd), name)
}
