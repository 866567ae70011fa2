package wire

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// pair is a connection and the compositor's end of its socket.
func pair(t *testing.T) (*Conn, *net.UnixConn) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	conn := func(fd int) *net.UnixConn {
		f := os.NewFile(uintptr(fd), "socket")
		defer f.Close()
		c, err := net.FileConn(f)
		if err != nil {
			t.Fatal(err)
		}
		return c.(*net.UnixConn)
	}
	c := newConn(conn(fds[0]))
	server := conn(fds[1])
	t.Cleanup(func() { c.Close(); server.Close() })
	return c, server
}

// message is what the compositor writes: a header and words.
func message(obj uint32, op uint16, payload ...[]byte) []byte {
	body := bytes.Join(payload, nil)
	b := binary.NativeEndian.AppendUint32(nil, obj)
	b = binary.NativeEndian.AppendUint32(b, uint32(headerSize+len(body))<<16|uint32(op))
	return append(b, body...)
}

func u32(v uint32) []byte { return binary.NativeEndian.AppendUint32(nil, v) }

func str(s string) []byte {
	b := append(u32(uint32(len(s)+1)), s...)
	b = append(b, 0)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func TestEncode(t *testing.T) {
	got, fds, err := encode(7, 3, []Arg{Uint(1), Int(-2), Fixed(1.5), String("ab"), Array([]byte{9}), FD(42), Object(0)})
	if err != nil {
		t.Fatal(err)
	}
	want := message(7, 3, u32(1), u32(0xfffffffe), u32(0x180), u32(3), []byte{'a', 'b', 0, 0}, u32(1), []byte{9, 0, 0, 0}, u32(0))
	if !bytes.Equal(got, want) {
		t.Errorf("encode = % x\nwant     % x", got, want)
	}
	if len(fds) != 1 || fds[0] != 42 {
		t.Errorf("fds %v, want [42]", fds)
	}
	if _, _, err := encode(1, 0, []Arg{{}}); err == nil {
		t.Error("an argument made without a constructor was encoded")
	}
	if _, _, err := encode(1, 0, []Arg{Array(make([]byte, maxMessage))}); err == nil {
		t.Error("an oversized message was encoded")
	}
}

// TestRoundtrip: sync goes out with a fresh id, the compositor's done completes it, and the
// delete_id that follows returns the id to use.
func TestRoundtrip(t *testing.T) {
	c, server := pair(t)
	done := make(chan error, 1)
	go func() { done <- c.Roundtrip(context.Background()) }()
	req := make([]byte, 12)
	if _, err := server.Read(req); err != nil {
		t.Fatal(err)
	}
	if want := message(DisplayID, displaySync, u32(2)); !bytes.Equal(req, want) {
		t.Fatalf("sync request % x, want % x", req, want)
	}
	if _, err := server.Write(append(message(2, callbackDone, u32(0)), message(DisplayID, displayDeleteID, u32(2))...)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if id := c.NewObject(nil); id == 2 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("id 2 was not reused after delete_id (got %d)", id)
		}
		time.Sleep(time.Millisecond) // the reader handles delete_id on its own goroutine
	}
}

// TestProtocolError: wl_display.error breaks the connection; waits end with it, and later
// requests fail instead of hanging.
func TestProtocolError(t *testing.T) {
	c, server := pair(t)
	done := make(chan error, 1)
	go func() { done <- c.Roundtrip(context.Background()) }()
	if _, err := server.Write(message(DisplayID, displayError, u32(5), u32(1), str("invalid object"))); err != nil {
		t.Fatal(err)
	}
	var pe *ProtocolError
	if err := <-done; !errors.As(err, &pe) || pe.ObjectID != 5 || pe.Code != 1 || pe.Message != "invalid object" {
		t.Fatalf("Roundtrip = %v, want the protocol error", err)
	}
	if err := c.Send(3, 0); !errors.As(err, &pe) {
		t.Errorf("Send after the error = %v", err)
	}
}

// TestFDs: an fd sent with a request arrives; one received with an event is handed to the
// handler.
func TestFDs(t *testing.T) {
	c, server := pair(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if err := c.Send(9, 1, String("x"), FD(int(w.Fd()))); err != nil {
		t.Fatal(err)
	}
	buf, oob := make([]byte, 64), make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := server.ReadMsgUnix(buf, oob)
	if err != nil {
		t.Fatal(err)
	}
	if got := parseRights(oob[:oobn]); len(got) != 1 {
		t.Fatalf("%d fds arrived, want 1", len(got))
	} else {
		unix.Close(got[0])
	}

	got := make(chan string, 1)
	id := c.NewObject(func(op uint16, m *Message) {
		f := m.File("pipe")
		if f == nil {
			got <- "no fd"
			return
		}
		defer f.Close()
		b := make([]byte, 5)
		n, _ := f.Read(b)
		got <- string(b[:n])
	})
	if _, err := w.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := server.WriteMsgUnix(message(id, 0), unix.UnixRights(int(r.Fd())), nil); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != "hello" {
			t.Errorf("the handler read %q through the fd", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the event with an fd never reached its handler")
	}
}

func TestCloseEndsWaits(t *testing.T) {
	c, _ := pair(t)
	done := make(chan error, 1)
	go func() { done <- c.Roundtrip(context.Background()) }()
	c.Close()
	select {
	case err := <-done:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("Roundtrip after Close = %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close left a round trip waiting")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c2, _ := pair(t)
	if err := c2.Roundtrip(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Roundtrip with an ended context = %v", err)
	}
}

func TestSocketPath(t *testing.T) {
	for _, tt := range []struct{ display, dir, want string }{
		{"", "/run/u", "/run/u/wayland-0"}, {"wayland-1", "/run/u", "/run/u/wayland-1"}, {"/x/wl", "/run/u", "/x/wl"},
	} {
		if got := SocketPath(tt.display, tt.dir); got != tt.want {
			t.Errorf("SocketPath(%q, %q) = %q, want %q", tt.display, tt.dir, got, tt.want)
		}
	}
}

// FuzzDispatch feeds the event parser any bytes: it never panics, and reads past an event's end
// are errors, not crashes.
func FuzzDispatch(f *testing.F) {
	f.Add(message(1, displayDeleteID, u32(3)))
	f.Add(message(1, displayError, u32(5), u32(1), str("x")))
	f.Add(message(4, 0, str("wl_output"), u32(4)))
	f.Add([]byte{1, 0, 0, 0, 4, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		c := &Conn{handlers: map[uint32]Handler{}, done: make(chan struct{})}
		read := func(op uint16, m *Message) {
			m.Uint()
			_ = m.String()
			m.Array()
			m.Fixed()
			m.FD()
		}
		for id := uint32(1); id < 8; id++ {
			c.handlers[id] = read
		}
		_, _, _ = c.dispatch(b, nil)
	})
}
