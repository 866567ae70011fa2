// Package dbuswire is a minimal D-Bus client for the accessibility walk's hot path: method
// calls with a few basic-typed arguments whose replies are decoded by hand.
//
// godbus, which mcec uses for everything else, spends ≈ 70–130 µs of CPU per call on this
// machine: a goroutine and a cancelable context per call, the message encoded twice (once to
// count file descriptors), three reads per reply and reflection on both sides. A tree of
// gtk3-widget-factory is ≈ 270 calls, so that overhead was most of the tree's cost. This
// connection writes each call with one buffered write, reads replies through one buffered
// reader and hands the body bytes to typed decoders. It does not serve method calls or
// signals, pass file descriptors, or speak anything but unix sockets with EXTERNAL auth;
// callers fall back to godbus when Dial fails.
package dbuswire

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ErrClosed is returned by calls on a closed or broken connection.
var ErrClosed = errors.New("dbuswire: connection closed")

// Message types.
const (
	typeMethodCall   = 1
	typeMethodReturn = 2
	typeError        = 3
)

// Header field codes.
const (
	fieldPath        = 1
	fieldInterface   = 2
	fieldMember      = 3
	fieldErrorName   = 4
	fieldReplySerial = 5
	fieldDestination = 6
	fieldSignature   = 8
)

// maxMessage is the D-Bus limit on a whole message.
const maxMessage = 1 << 27

// maxWriteWait bounds one write when a call has no timeout of its own: a bus daemon that stops
// reading must cost a deadline, not a goroutine blocked forever with the write lock held.
const maxWriteWait = 10 * time.Second

// Conn is one authenticated connection to a message bus or a peer. It is safe for concurrent use.
type Conn struct {
	nc net.Conn

	wmu  sync.Mutex // serializes writes; wbuf is reused under it
	wbuf []byte
	// dispatching: the reader is handing replies out; calls sent meanwhile (most from the
	// reply handlers themselves) wait in wbuf and leave in one write when it runs out of
	// buffered replies, instead of one write (and one wake-up of the peer) each.
	dispatching bool

	serial atomic.Uint32

	mu      sync.Mutex
	pending map[uint32]*pending
	err     error         // why the connection ended
	done    chan struct{} // closed when the reader stops

	closeOnce sync.Once
}

// Reply is a method return or an error reply.
type Reply struct {
	// ErrorName is set for error replies; Body then usually holds a message string.
	ErrorName string
	Signature string
	Body      []byte
	order     binary.ByteOrder
}

// Dial connects to a bus address (unix:path= or unix:abstract=; the first usable of a
// ;-separated list), authenticates with EXTERNAL and says Hello, all within ctx. Calls must
// name a destination.
func Dial(ctx context.Context, addr string) (*Conn, error) {
	c, err := dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	r, err := c.Call(ctx, 0, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello")
	if err == nil {
		err = r.Err()
	}
	if err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("dbuswire: Hello: %w", err)
	}
	return c, nil
}

// DialPeer connects to one process's own D-Bus server (a peer-to-peer connection: no bus
// daemon, no Hello) and authenticates with EXTERNAL, within ctx. Calls name no destination.
func DialPeer(ctx context.Context, addr string) (*Conn, error) {
	return dial(ctx, addr)
}

func dial(ctx context.Context, addr string) (*Conn, error) {
	network, sock, err := unixSocket(addr)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, sock)
	if err != nil {
		return nil, err
	}
	c := &Conn{nc: nc, pending: make(map[uint32]*pending), done: make(chan struct{})}
	rd := bufio.NewReaderSize(nc, 64<<10)
	if err := c.auth(ctx, rd); err != nil {
		_ = nc.Close()
		return nil, err
	}
	go c.readLoop(rd)
	return c, nil
}

func unixSocket(addr string) (network, sock string, err error) {
	for _, a := range strings.Split(addr, ";") {
		rest, ok := strings.CutPrefix(a, "unix:")
		if !ok {
			continue
		}
		for _, kv := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(kv, "=")
			v, err := url.PathUnescape(v)
			if err != nil {
				continue
			}
			switch k {
			case "path":
				return "unix", v, nil
			case "abstract":
				return "unix", "@" + v, nil
			}
		}
	}
	return "", "", fmt.Errorf("dbuswire: no unix path or abstract socket in %q", addr)
}

func (c *Conn) auth(ctx context.Context, rd *bufio.Reader) error {
	if dl, ok := ctx.Deadline(); ok {
		_ = c.nc.SetDeadline(dl)
		defer c.nc.SetDeadline(time.Time{})
	}
	uid := hex.EncodeToString([]byte(strconv.Itoa(os.Geteuid())))
	if _, err := c.nc.Write([]byte("\x00AUTH EXTERNAL " + uid + "\r\n")); err != nil {
		return err
	}
	line, err := rd.ReadString('\n')
	if err != nil {
		return fmt.Errorf("dbuswire: auth: %w", err)
	}
	if !strings.HasPrefix(line, "OK ") {
		return fmt.Errorf("dbuswire: auth refused: %q", strings.TrimSpace(line))
	}
	_, err = c.nc.Write([]byte("BEGIN\r\n"))
	return err
}

// Close closes the connection; calls waiting for replies fail with ErrClosed.
func (c *Conn) Close() error {
	var err error
	c.closeOnce.Do(func() { err = c.nc.Close() })
	return err
}

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// pending is a call waiting for its reply.
type pending struct {
	done  func(*Reply, error)
	timer *time.Timer
}

// Call sends a method call and waits for its reply, ctx, or timeout (0: none). Arguments
// may be uint32, int32 or string. An error reply is returned as a Reply (see Reply.Err),
// not as an error; the error is ctx's, context.DeadlineExceeded when timeout passed,
// ErrClosed, or an encoding failure.
func (c *Conn) Call(ctx context.Context, timeout time.Duration, dest, path, iface, member string, args ...any) (*Reply, error) {
	type result struct {
		r   *Reply
		err error
	}
	ch := make(chan result, 1)
	serial, err := c.Send(timeout, dest, path, iface, member, func(r *Reply, err error) { ch <- result{r, err} }, args...)
	if err != nil {
		return nil, err
	}
	select {
	case res := <-ch:
		return res.r, res.err
	case <-ctx.Done():
		if c.Abandon(serial) {
			return nil, ctx.Err()
		}
		res := <-ch // done is running or about to
		return res.r, res.err
	}
}

// Send sends a method call without waiting. done is called exactly once, unless Abandon
// returns true first: with the reply, or with context.DeadlineExceeded when timeout (0:
// none) passes first, or ErrClosed. It runs on the connection's reader or a timer, so it
// must not block. An error from Send itself means done will not be called.
func (c *Conn) Send(timeout time.Duration, dest, path, iface, member string, done func(*Reply, error), args ...any) (uint32, error) {
	serial := c.serial.Add(1)
	p := &pending{done: done}
	c.mu.Lock()
	if c.err != nil || c.pending == nil {
		c.mu.Unlock()
		return 0, ErrClosed
	}
	c.pending[serial] = p
	if timeout > 0 {
		p.timer = time.AfterFunc(timeout, func() {
			if c.take(serial) != nil {
				done(nil, context.DeadlineExceeded)
			}
		})
	}
	c.mu.Unlock()

	c.wmu.Lock()
	queued := len(c.wbuf)
	buf, err := appendCall(c.wbuf, serial, dest, path, iface, member, args)
	switch {
	case err != nil:
		buf = buf[:queued]
	case c.dispatching:
		c.wbuf = buf
		c.wmu.Unlock()
		return serial, nil // the reader writes it with the others (flush)
	default:
		wait := maxWriteWait
		if timeout > 0 {
			wait = min(timeout, maxWriteWait)
		}
		err = c.write(buf, wait)
		buf = buf[:0]
	}
	c.wbuf = buf
	c.wmu.Unlock()
	if err != nil {
		if c.take(serial) == nil {
			return serial, nil // already answered (closed): done ran
		}
		if _, ok := err.(encodeError); ok {
			return 0, err
		}
		_ = c.Close()
		return 0, ErrClosed
	}
	return serial, nil
}

// write writes buf within wait; the caller holds wmu. A write cut short by its deadline leaves
// a partial message on the wire: the connection is then closed and callers fall back to godbus.
func (c *Conn) write(buf []byte, wait time.Duration) error {
	_ = c.nc.SetWriteDeadline(time.Now().Add(wait))
	_, err := c.nc.Write(buf)
	return err
}

// setDispatching marks the reader as handing replies out or, when on is false, about to wait
// for more: the calls queued meanwhile are written then. A failed write closes the connection,
// and the reader then fails every waiting call, the queued ones included.
func (c *Conn) setDispatching(on bool) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.dispatching = on
	if on || len(c.wbuf) == 0 {
		return
	}
	err := c.write(c.wbuf, maxWriteWait)
	c.wbuf = c.wbuf[:0]
	if err != nil {
		_ = c.Close()
	}
}

// Abandon forgets a call sent with Send; it reports whether the call was still waiting, in
// which case its done will never run.
func (c *Conn) Abandon(serial uint32) bool {
	return c.take(serial) != nil
}

// take removes a waiting call and stops its timer; nil when it was no longer waiting.
func (c *Conn) take(serial uint32) *pending {
	c.mu.Lock()
	p := c.pending[serial]
	delete(c.pending, serial)
	c.mu.Unlock()
	if p != nil && p.timer != nil {
		p.timer.Stop()
	}
	return p
}

func (c *Conn) readLoop(rd *bufio.Reader) {
	var err error
	for {
		if rd.Buffered() == 0 {
			c.setDispatching(false)
		}
		var m *message
		m, err = readMessage(rd)
		if err != nil {
			break
		}
		c.setDispatching(true)
		if m.typ != typeMethodReturn && m.typ != typeError {
			// Signals need match rules we never add; nobody calls methods on an AT-SPI
			// client's connection. Either is dropped.
			continue
		}
		if p := c.take(m.replySerial); p != nil {
			p.done(&Reply{ErrorName: m.errorName, Signature: m.signature, Body: m.body, order: m.order}, nil)
		}
	}
	_ = c.nc.Close()
	c.mu.Lock()
	if err == nil {
		err = ErrClosed
	}
	c.err = err
	left := c.pending
	c.pending = nil
	c.mu.Unlock()
	close(c.done)
	for _, p := range left {
		if p.timer != nil {
			p.timer.Stop()
		}
		p.done(nil, ErrClosed)
	}
}

// message is a parsed incoming message: only what a caller needs.
type message struct {
	typ         byte
	order       binary.ByteOrder
	replySerial uint32
	errorName   string
	signature   string
	body        []byte
}

// readMessage reads one whole message from rd. Header fields other than the reply serial,
// error name and signature are skipped.
func readMessage(rd io.Reader) (*message, error) {
	var fixed [16]byte
	if _, err := io.ReadFull(rd, fixed[:]); err != nil {
		return nil, err
	}
	m := &message{typ: fixed[1]}
	switch fixed[0] {
	case 'l':
		m.order = binary.LittleEndian
	case 'B':
		m.order = binary.BigEndian
	default:
		return nil, errors.New("dbuswire: bad byte order")
	}
	bodyLen := m.order.Uint32(fixed[4:8])
	fieldsLen := m.order.Uint32(fixed[12:16])
	if uint64(bodyLen)+uint64(fieldsLen)+16+7 > maxMessage {
		return nil, errors.New("dbuswire: message too long")
	}
	hdr := make([]byte, 16+pad8(int(fieldsLen)))
	copy(hdr, fixed[:])
	if _, err := io.ReadFull(rd, hdr[16:]); err != nil {
		return nil, err
	}
	if err := m.parseFields(hdr[:16+fieldsLen]); err != nil {
		return nil, err
	}
	m.body = make([]byte, bodyLen)
	if _, err := io.ReadFull(rd, m.body); err != nil {
		return nil, err
	}
	return m, nil
}

func pad8(n int) int { return (n + 7) &^ 7 }

// parseFields reads the a(yv) header fields; hdr holds the message from its first byte, so
// alignment is by index.
func (m *message) parseFields(hdr []byte) error {
	d := decoder{b: hdr, pos: 16, order: m.order}
	for d.pos < len(hdr) {
		d.align(8)
		code := d.byte()
		sig := d.signature()
		switch {
		case d.err != nil:
			return d.err
		case code == fieldReplySerial && sig == "u":
			m.replySerial = d.uint32()
		case code == fieldErrorName && sig == "s":
			m.errorName = d.string()
		case code == fieldSignature && sig == "g":
			m.signature = d.signature()
		default:
			d.skipBasic(sig)
		}
		if d.err != nil {
			return d.err
		}
	}
	return nil
}

type encodeError string

func (e encodeError) Error() string { return string(e) }

// appendCall encodes a method call in little-endian order after the messages b holds already
// (alignment counts from the message's own first byte).
func appendCall(b []byte, serial uint32, dest, path, iface, member string, args []any) ([]byte, error) {
	m := len(b) // where this message starts
	var sig []byte
	for _, a := range args {
		switch a.(type) {
		case uint32:
			sig = append(sig, 'u')
		case int32:
			sig = append(sig, 'i')
		case string:
			sig = append(sig, 's')
		default:
			return b, encodeError(fmt.Sprintf("dbuswire: unsupported argument type %T", a))
		}
	}
	align := func(n int) {
		for (len(b)-m)%n != 0 {
			b = append(b, 0)
		}
	}
	b = append(b, 'l', typeMethodCall, 0, 1, 0, 0, 0, 0)
	b = binary.LittleEndian.AppendUint32(b, serial)
	b = append(b, 0, 0, 0, 0) // fields length, set below
	field := func(code byte, typ byte, v string) {
		align(8)
		b = append(b, code, 1, typ, 0)
		if typ == 'g' {
			b = append(b, byte(len(v)))
		} else {
			b = binary.LittleEndian.AppendUint32(b, uint32(len(v)))
		}
		b = append(b, v...)
		b = append(b, 0)
	}
	field(fieldPath, 'o', path)
	if iface != "" {
		field(fieldInterface, 's', iface)
	}
	field(fieldMember, 's', member)
	if dest != "" {
		field(fieldDestination, 's', dest)
	}
	if len(sig) > 0 {
		field(fieldSignature, 'g', string(sig))
	}
	binary.LittleEndian.PutUint32(b[m+12:m+16], uint32(len(b)-m-16))
	align(8)
	start := len(b)
	for _, a := range args {
		switch v := a.(type) {
		case uint32:
			align(4)
			b = binary.LittleEndian.AppendUint32(b, v)
		case int32:
			align(4)
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		case string:
			align(4)
			b = binary.LittleEndian.AppendUint32(b, uint32(len(v)))
			b = append(b, v...)
			b = append(b, 0)
		}
	}
	binary.LittleEndian.PutUint32(b[m+4:m+8], uint32(len(b)-start))
	return b, nil
}
