package xinput2

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// Conn is one X connection with XInput2 ready. Its methods are not safe for concurrent use:
// one goroutine owns it (Close may be called from any goroutine to unblock it).
type Conn struct {
	nc       net.Conn
	r        *bufio.Reader
	seq      uint16
	setup    setupInfo
	xiOpcode byte
	// XIFirstEvent is the extension's first event code (XInput 1 device events are offsets
	// from it: DeviceKeyPress = +1, DeviceKeyRelease = +2).
	XIFirstEvent byte
	queued       []Event // events read while waiting for a reply
}

// ErrNoXInput2 is returned by Dial when the server has no XInputExtension 2.2.
var ErrNoXInput2 = errors.New("the X server has no XInput2 (XInputExtension 2.2)")

// Dial connects to display (":N[.S]", "unix:N", "host:N"), authenticating with the
// MIT-MAGIC-COOKIE-1 of $XAUTHORITY (or ~/.Xauthority) when there is one, and negotiates
// XInput 2.2. Every step is bounded by ctx.
func Dial(ctx context.Context, display string) (*Conn, error) {
	host, num, screen, err := parseDisplay(display)
	if err != nil {
		return nil, err
	}
	nc, err := dial(ctx, host, num)
	if err != nil {
		return nil, fmt.Errorf("connect to X display %s: %w", display, err)
	}
	c := &Conn{nc: nc, r: bufio.NewReaderSize(nc, 8192)}
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	defer stop()
	if dl, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(dl)
	}
	if err := c.handshake(host, num, screen); err != nil {
		nc.Close()
		return nil, ctxErr(ctx, err)
	}
	if err := c.initXI(); err != nil {
		nc.Close()
		return nil, ctxErr(ctx, err)
	}
	_ = nc.SetDeadline(time.Time{})
	return c, nil
}

func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return err
}

// parseDisplay splits DISPLAY.
func parseDisplay(d string) (host string, num, screen int, err error) {
	i := strings.LastIndexByte(d, ':')
	if i < 0 {
		return "", 0, 0, fmt.Errorf("bad DISPLAY %q", d)
	}
	host, rest := d[:i], d[i+1:]
	numStr, scrStr, hasScr := strings.Cut(rest, ".")
	if num, err = strconv.Atoi(numStr); err != nil || num < 0 {
		return "", 0, 0, fmt.Errorf("bad DISPLAY %q", d)
	}
	if hasScr {
		if screen, err = strconv.Atoi(scrStr); err != nil || screen < 0 {
			return "", 0, 0, fmt.Errorf("bad DISPLAY %q", d)
		}
	}
	return host, num, screen, nil
}

func dial(ctx context.Context, host string, num int) (net.Conn, error) {
	var d net.Dialer
	if host == "" || host == "unix" {
		path := "/tmp/.X11-unix/X" + strconv.Itoa(num)
		nc, err := d.DialContext(ctx, "unix", path)
		if err == nil {
			return nc, nil
		}
		if nc, err2 := d.DialContext(ctx, "unix", "@"+path); err2 == nil {
			return nc, nil
		}
		return nil, err
	}
	return d.DialContext(ctx, "tcp", net.JoinHostPort(host, strconv.Itoa(6000+num)))
}

// handshake sends the connection setup request and reads the reply.
func (c *Conn) handshake(host string, num, screen int) error {
	name, data := cookie(host, num)
	req := make([]byte, 12, 12+pad4(len(name))+pad4(len(data)))
	req[0] = 'l'
	le.PutUint16(req[2:], 11)
	le.PutUint16(req[6:], uint16(len(name)))
	le.PutUint16(req[8:], uint16(len(data)))
	req = append(req, padded([]byte(name))...)
	req = append(req, padded(data)...)
	if _, err := c.nc.Write(req); err != nil {
		return err
	}
	head := make([]byte, 8)
	if _, err := io.ReadFull(c.r, head); err != nil {
		return fmt.Errorf("reading the setup reply: %w", err)
	}
	extra := int(le.Uint16(head[6:8])) * 4
	b := make([]byte, 8+extra)
	copy(b, head)
	if _, err := io.ReadFull(c.r, b[8:]); err != nil {
		return fmt.Errorf("reading the setup reply: %w", err)
	}
	info, err := parseSetup(b, screen)
	if err != nil {
		return err
	}
	c.setup = info
	return nil
}

func padded(b []byte) []byte {
	out := make([]byte, pad4(len(b)))
	copy(out, b)
	return out
}

// initXI finds the extension and negotiates version 2.2.
func (c *Conn) initXI() error {
	const name = "XInputExtension"
	req := make([]byte, 8, 8+pad4(len(name)))
	req[0] = 98 // QueryExtension
	le.PutUint16(req[4:], uint16(len(name)))
	req = append(req, padded([]byte(name))...)
	rep, err := c.roundTrip(req)
	if err != nil {
		return fmt.Errorf("QueryExtension: %w", err)
	}
	if len(rep) < 12 || rep[8] == 0 {
		return ErrNoXInput2
	}
	c.xiOpcode, c.XIFirstEvent = rep[9], rep[10]
	req = make([]byte, 8)
	req[0], req[1] = c.xiOpcode, 47 // XIQueryVersion
	le.PutUint16(req[4:], 2)
	le.PutUint16(req[6:], 2)
	rep, err = c.roundTrip(req)
	if err != nil {
		return fmt.Errorf("XIQueryVersion: %w (%w)", err, ErrNoXInput2)
	}
	if len(rep) < 12 {
		return ErrNoXInput2
	}
	major, minor := le.Uint16(rep[8:]), le.Uint16(rep[10:])
	if major < 2 || (major == 2 && minor < 2) {
		return fmt.Errorf("%w: the server speaks XInput %d.%d", ErrNoXInput2, major, minor)
	}
	return nil
}

// Root is the root window of the display's screen.
func (c *Conn) Root() uint32 { return c.setup.root }

// XIOpcode is the XInputExtension's major opcode.
func (c *Conn) XIOpcode() byte { return c.xiOpcode }

// Close closes the connection; a blocked NextEvent returns an error.
func (c *Conn) Close() error { return c.nc.Close() }

// send writes one request (its length field is filled in here) and returns its sequence number.
func (c *Conn) send(req []byte) (uint16, error) {
	le.PutUint16(req[2:], uint16(len(req)/4))
	if _, err := c.nc.Write(req); err != nil {
		return 0, err
	}
	c.seq++
	return c.seq, nil
}

// roundTrip sends req and reads until its reply, queueing events read meanwhile. An X error
// for this or an earlier request fails it.
func (c *Conn) roundTrip(req []byte) ([]byte, error) {
	seq, err := c.send(req)
	if err != nil {
		return nil, err
	}
	for {
		p, err := c.readPacket()
		if err != nil {
			return nil, err
		}
		switch p[0] {
		case pktReply:
			if le.Uint16(p[2:4]) == seq {
				return p, nil
			}
		case pktError:
			return nil, fmt.Errorf("%s (request %d.%d)", errorName(p[1]), p[10], le.Uint16(p[8:10]))
		default:
			if ev, err := ParseEvent(p, c.xiOpcode); err == nil {
				c.queued = append(c.queued, ev)
			}
		}
	}
}

// readPacket reads one reply, error or event.
func (c *Conn) readPacket() ([]byte, error) {
	head := make([]byte, 32)
	if _, err := io.ReadFull(c.r, head); err != nil {
		return nil, err
	}
	n, err := packetLen(head)
	if err != nil {
		return nil, err
	}
	if n == 32 {
		return head, nil
	}
	p := make([]byte, n)
	copy(p, head)
	if _, err := io.ReadFull(c.r, p[32:]); err != nil {
		return nil, err
	}
	return p, nil
}

// withDeadline bounds the requests of f.
func (c *Conn) withDeadline(d time.Duration, f func() error) error {
	_ = c.nc.SetDeadline(time.Now().Add(d))
	defer c.nc.SetDeadline(time.Time{})
	return f()
}

// requestLimit bounds one request's round trip after Dial.
const requestLimit = 5 * time.Second

// SelectRawInput selects raw key presses and releases and raw button presses of every master
// device, and device hierarchy changes, on the root window.
func (c *Conn) SelectRawInput() error {
	rawMask := uint32(1<<xiRawKeyPress | 1<<xiRawKeyRelease | 1<<xiRawButtonPress)
	hierMask := uint32(1 << xiHierarchyEvent)
	req := make([]byte, 12+8+8)
	req[0], req[1] = c.xiOpcode, 46 // XISelectEvents
	le.PutUint32(req[4:], c.setup.root)
	le.PutUint16(req[8:], 2)
	le.PutUint16(req[12:], AllMasterDevices)
	le.PutUint16(req[14:], 1)
	le.PutUint32(req[16:], rawMask)
	le.PutUint16(req[20:], AllDevices)
	le.PutUint16(req[22:], 1)
	le.PutUint32(req[24:], hierMask)
	return c.withDeadline(requestLimit, func() error {
		if _, err := c.send(req); err != nil {
			return err
		}
		// A round trip surfaces a BadValue/BadAccess of the selection.
		if _, err := c.QueryDevices(); err != nil {
			return fmt.Errorf("XISelectEvents: %w", err)
		}
		return nil
	})
}

// QueryDevices lists every input device.
func (c *Conn) QueryDevices() ([]Device, error) {
	req := make([]byte, 8)
	req[0], req[1] = c.xiOpcode, 48 // XIQueryDevice
	le.PutUint16(req[4:], AllDevices)
	var devs []Device
	err := c.withDeadline(requestLimit, func() error {
		rep, err := c.roundTrip(req)
		if err != nil {
			return err
		}
		devs, err = parseQueryDevice(rep)
		return err
	})
	return devs, err
}

// KeyboardMapping reads the core keyboard mapping.
func (c *Conn) KeyboardMapping() (Keymap, error) {
	first, last := c.setup.minKeycode, c.setup.maxKeycode
	if last < first {
		return Keymap{}, errors.New("the server reports no keycodes")
	}
	count := int(last) - int(first) + 1
	req := make([]byte, 8)
	req[0] = 101 // GetKeyboardMapping
	req[4], req[5] = first, byte(count)
	var km Keymap
	err := c.withDeadline(requestLimit, func() error {
		rep, err := c.roundTrip(req)
		if err != nil {
			return err
		}
		km, err = parseKeyboardMapping(rep, first, count)
		return err
	})
	return km, err
}

// NextEvent returns the next event, blocking until one arrives or the connection closes.
func (c *Conn) NextEvent() (Event, error) {
	if len(c.queued) > 0 {
		ev := c.queued[0]
		c.queued = c.queued[1:]
		return ev, nil
	}
	for {
		p, err := c.readPacket()
		if err != nil {
			return Event{}, err
		}
		if p[0] == pktReply {
			continue // a reply nobody waits for (cannot happen: requests are synchronous)
		}
		return ParseEvent(p, c.xiOpcode)
	}
}

// authFile is $XAUTHORITY or ~/.Xauthority.
func authFile() string {
	if f := os.Getenv("XAUTHORITY"); f != "" {
		return f
	}
	if home, err := os.UserHomeDir(); err == nil {
		return home + "/.Xauthority"
	}
	return ""
}

// cookie finds the MIT-MAGIC-COOKIE-1 for the display; none is fine (servers without access
// control, like mcec's own Xvfb).
func cookie(host string, num int) (string, []byte) {
	f := authFile()
	if f == "" {
		return "", nil
	}
	data, err := os.ReadFile(f)
	if err != nil {
		return "", nil
	}
	hostname, _ := os.Hostname()
	local := host == "" || host == "unix" || host == "localhost"
	return pickCookie(data, strconv.Itoa(num), hostname, host, local)
}

// Xauthority address families. Internet entries (TCP displays by address) are not matched: a
// cookie is only ever sent where its entry names the host.
const (
	familyLocal = 256
	familyWild  = 65535
)

// pickCookie scans an Xauthority file for the display's MIT-MAGIC-COOKIE-1.
func pickCookie(data []byte, num, hostname, host string, local bool) (string, []byte) {
	const magic = "MIT-MAGIC-COOKIE-1"
	be := func(b []byte) int { return int(b[0])<<8 | int(b[1]) }
	field := func() ([]byte, bool) {
		if len(data) < 2 {
			return nil, false
		}
		n := be(data)
		if len(data) < 2+n {
			return nil, false
		}
		f := data[2 : 2+n]
		data = data[2+n:]
		return f, true
	}
	for len(data) >= 2 {
		family := be(data)
		data = data[2:]
		addr, ok1 := field()
		number, ok2 := field()
		name, ok3 := field()
		cookie, ok4 := field()
		if !(ok1 && ok2 && ok3 && ok4) {
			return "", nil
		}
		if string(name) != magic || (len(number) > 0 && string(number) != num) {
			continue
		}
		switch {
		case family == familyWild,
			family == familyLocal && local && string(addr) == hostname,
			family == familyLocal && !local && string(addr) == host:
			return magic, cookie
		}
	}
	return "", nil
}
