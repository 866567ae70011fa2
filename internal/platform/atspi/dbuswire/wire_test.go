package dbuswire

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// TestAppendCallDecodesWithGodbus checks our encoding against godbus's decoder.
func TestAppendCallDecodesWithGodbus(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		dest, path, iface, member string
		args                      []any
		sig                       string
	}{
		{"no args", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello", nil, ""},
		{"extents", ":1.3", "/org/a11y/atspi/accessible/231", "org.a11y.atspi.Component", "GetExtents", []any{uint32(0)}, "u"},
		{"text", ":1.3", "/a", "org.a11y.atspi.Text", "GetText", []any{int32(0), int32(-1)}, "ii"},
		{"property", ":1.12", "/org/a11y/atspi/accessible/root", "org.freedesktop.DBus.Properties", "Get",
			[]any{"org.a11y.atspi.Value", "CurrentValue"}, "ss"},
		{"no iface", ":1.3", "/x", "", "Ping", []any{"é", uint32(7), "", int32(math.MinInt32)}, "susi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := appendCall(nil, 42, tc.dest, tc.path, tc.iface, tc.member, tc.args)
			if err != nil {
				t.Fatal(err)
			}
			m, err := dbus.DecodeMessage(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("godbus cannot decode: %v", err)
			}
			h := func(f dbus.HeaderField) any { return m.Headers[f].Value() }
			if m.Type != dbus.TypeMethodCall || h(dbus.FieldPath) != dbus.ObjectPath(tc.path) ||
				h(dbus.FieldMember) != tc.member || h(dbus.FieldDestination) != tc.dest {
				t.Errorf("headers %v", m.Headers)
			}
			if tc.iface != "" && h(dbus.FieldInterface) != tc.iface {
				t.Errorf("interface %v", h(dbus.FieldInterface))
			}
			if got := dbus.SignatureOf(m.Body...).String(); got != tc.sig {
				t.Errorf("signature %q, want %q", got, tc.sig)
			}
			for i, a := range tc.args {
				if m.Body[i] != a {
					t.Errorf("arg %d = %#v, want %#v", i, m.Body[i], a)
				}
			}
		})
	}
	if _, err := appendCall(nil, 1, "d", "/p", "i", "m", []any{1.5}); err == nil {
		t.Error("float64 argument accepted")
	}
}

// reply encodes a reply the way a bus would deliver it, with godbus's encoder.
func reply(t testing.TB, order binary.ByteOrder, serial uint32, errName string, body ...any) []byte {
	t.Helper()
	typ := dbus.TypeMethodReply
	hdr := map[dbus.HeaderField]dbus.Variant{
		dbus.FieldReplySerial: dbus.MakeVariant(serial),
		dbus.FieldSender:      dbus.MakeVariant(":1.3"),
		dbus.FieldDestination: dbus.MakeVariant(":1.9"),
	}
	if errName != "" {
		typ = dbus.TypeError
		hdr[dbus.FieldErrorName] = dbus.MakeVariant(errName)
	}
	if len(body) > 0 {
		hdr[dbus.FieldSignature] = dbus.MakeVariant(dbus.SignatureOf(body...))
	}
	m := &dbus.Message{Type: typ, Headers: hdr, Body: body}
	var buf bytes.Buffer
	if err := m.EncodeTo(&buf, order); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDecodeReplies(t *testing.T) {
	type ext struct{ X, Y, W, H int32 }
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		read := func(b []byte) *Reply {
			t.Helper()
			m, err := readMessage(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if m.replySerial != 7 {
				t.Fatalf("reply serial %d", m.replySerial)
			}
			return &Reply{ErrorName: m.errorName, Signature: m.signature, Body: m.body, order: m.order}
		}
		if got, err := read(reply(t, order, 7, "", ext{10, -20, 300, math.MaxInt32})).Int32x4(); err != nil || got != [4]int32{10, -20, 300, math.MaxInt32} {
			t.Errorf("%v: extents %v %v", order, got, err)
		}
		if got, err := read(reply(t, order, 7, "", "héllo")).String(); err != nil || got != "héllo" {
			t.Errorf("%v: string %q %v", order, got, err)
		}
		if got, err := read(reply(t, order, 7, "", []uint32{1 << 31, 3})).Uint32s(); err != nil || len(got) != 2 || got[0] != 1<<31 || got[1] != 3 {
			t.Errorf("%v: au %v %v", order, got, err)
		}
		for _, v := range []any{int32(-5), uint32(5), 2.5, "name", true, int64(-1), uint64(1 << 40), byte(9), int16(-3), uint16(3)} {
			if got, err := read(reply(t, order, 7, "", dbus.MakeVariant(v))).Variant(); err != nil || got != v {
				t.Errorf("%v: variant %#v = %#v %v", order, v, got, err)
			}
		}
		if _, err := read(reply(t, order, 7, "", dbus.MakeVariant([]string{"a"}))).Variant(); err == nil {
			t.Errorf("%v: array variant accepted", order)
		}
		r := read(reply(t, order, 7, "org.freedesktop.DBus.Error.UnknownObject", "no such object"))
		var e *Error
		if !errors.As(r.Err(), &e) || e.Name != "org.freedesktop.DBus.Error.UnknownObject" || e.Message != "no such object" {
			t.Errorf("%v: error %v", order, r.Err())
		}
		if _, err := r.Int32x4(); err == nil {
			t.Errorf("%v: error reply decoded as extents", order)
		}
		if _, err := read(reply(t, order, 7, "", "s")).Int32x4(); err == nil {
			t.Errorf("%v: wrong signature decoded", order)
		}
	}
}

// FuzzReadMessage: any bytes give a message or an error, never a panic or a huge allocation.
func FuzzReadMessage(f *testing.F) {
	f.Add(reply(f, binary.LittleEndian, 7, "", int32(1), int32(2), int32(3), int32(4)))
	f.Add(reply(f, binary.BigEndian, 7, "org.freedesktop.DBus.Error.Failed", "x"))
	f.Add(reply(f, binary.LittleEndian, 9, "", dbus.MakeVariant(2.5)))
	f.Add(reply(f, binary.LittleEndian, 9, "", map[string]dbus.Variant{"A": dbus.MakeVariant(map[string]string{"k": "v"})}))
	f.Add([]byte("l\x02\x00\x01\x00\x00\x00\x00\x01\x00\x00\x00\xff\xff\xff\x7f"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := readMessage(bytes.NewReader(b))
		if err != nil {
			return
		}
		r := &Reply{ErrorName: m.errorName, Signature: m.signature, Body: m.body, order: m.order}
		_, _ = r.Int32x4()
		_, _ = r.String()
		_, _ = r.Uint32s()
		_, _ = r.Variant()
		_ = r.Err()
		if d, err := r.Decoder(r.Signature); err == nil {
			d.Skip(r.Signature)
		}
		if d, err := r.Decoder(r.Signature); err == nil {
			end := d.Array(8)
			for d.More(end) {
				d.Struct()
				_ = d.String()
			}
			d.End(end)
		}
	})
}

// fakeBus accepts one connection, authenticates it, and answers each method call with what
// answer returns (nil: no answer).
func fakeBus(t *testing.T, answer func(m *dbus.Message) *dbus.Message) string {
	t.Helper()
	sock := t.TempDir() + "/bus"
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		nc, err := l.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		buf := make([]byte, 256)
		n, _ := nc.Read(buf) // "\0AUTH EXTERNAL ...\r\n"
		if n == 0 || !bytes.Contains(buf[:n], []byte("AUTH EXTERNAL")) {
			return
		}
		_, _ = nc.Write([]byte("OK 0123456789abcdef\r\n"))
		line := make([]byte, len("BEGIN\r\n"))
		if _, err := nc.Read(line); err != nil {
			return
		}
		for {
			m, err := dbus.DecodeMessage(nc)
			if err != nil {
				return
			}
			if m.Headers[dbus.FieldMember].Value() == "Hello" {
				r := &dbus.Message{Type: dbus.TypeMethodReply, Headers: map[dbus.HeaderField]dbus.Variant{
					dbus.FieldReplySerial: dbus.MakeVariant(m.Serial()),
					dbus.FieldSignature:   dbus.MakeVariant(dbus.SignatureOf("")),
				}, Body: []any{":1.9"}}
				_ = r.EncodeTo(nc, binary.LittleEndian)
				continue
			}
			if r := answer(m); r != nil {
				r.Headers[dbus.FieldReplySerial] = dbus.MakeVariant(m.Serial())
				_ = r.EncodeTo(nc, binary.LittleEndian)
			}
		}
	}()
	return "unix:path=" + sock + ",guid=0123456789abcdef"
}

func TestConnCalls(t *testing.T) {
	addr := fakeBus(t, func(m *dbus.Message) *dbus.Message {
		if m.Headers[dbus.FieldMember].Value() == "Hang" {
			return nil
		}
		return &dbus.Message{Type: dbus.TypeMethodReply, Headers: map[dbus.HeaderField]dbus.Variant{
			dbus.FieldSignature: dbus.MakeVariant(dbus.SignatureOf(int32(0), int32(0), int32(0), int32(0))),
		}, Body: []any{int32(1), int32(2), int32(3), int32(4)}}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The fake bus answers (iiii) unwrapped as iiii; only the signature differs.
	r, err := c.Call(ctx, 5*time.Second, ":1.3", "/o", "org.a11y.atspi.Component", "GetExtents", uint32(0))
	if err != nil || r.Signature != "iiii" {
		t.Fatalf("call: %+v %v", r, err)
	}
	// A call nobody answers ends at its own timeout, and the next call still works.
	start := time.Now()
	if _, err := c.Call(ctx, 100*time.Millisecond, ":1.3", "/o", "x.y", "Hang"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("hung call: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("hung call took %v", d)
	}
	cctx, ccancel := context.WithCancel(ctx)
	ccancel()
	if _, err := c.Call(cctx, 5*time.Second, ":1.3", "/o", "x.y", "Hang"); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled call: %v", err)
	}
	if _, err := c.Call(ctx, 5*time.Second, ":1.3", "/o", "x.y", "Again"); err != nil {
		t.Errorf("after a timeout: %v", err)
	}
	// Closing fails what is waiting and what comes after.
	res := make(chan error, 1)
	if _, err := c.Send(0, ":1.3", "/o", "x.y", "Hang", func(_ *Reply, err error) { res <- err }); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	select {
	case err := <-res:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("waiting call after Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("waiting call not failed by Close")
	}
	if _, err := c.Call(ctx, time.Second, ":1.3", "/o", "x.y", "Again"); !errors.Is(err, ErrClosed) {
		t.Errorf("call after Close: %v", err)
	}
}

// A bus that stops reading costs each call its deadline, never a writer blocked for good.
func TestStuckBusCostsADeadline(t *testing.T) {
	stuck := make(chan struct{})
	addr := fakeBus(t, func(m *dbus.Message) *dbus.Message {
		<-stuck // the fake bus stops reading after the first call
		return nil
	})
	t.Cleanup(func() { close(stuck) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := Dial(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	big := strings.Repeat("x", 256<<10) // fills the socket buffers within a few calls
	for i := 0; ; i++ {
		errc := make(chan error, 1)
		go func() {
			_, err := c.Call(ctx, 200*time.Millisecond, ":1.3", "/o", "x.y", "Big", big)
			errc <- err
		}()
		var err error
		select {
		case err = <-errc:
		case <-time.After(5 * time.Second):
			t.Fatalf("call %d is still blocked after 5 s", i)
		}
		if errors.Is(err, ErrClosed) {
			return // the write timed out and the connection was given up
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("call %d: %v", i, err)
		}
		if i > 100 {
			t.Fatal("100 calls of 256 KiB never filled the socket")
		}
	}
}

func TestUnixSocket(t *testing.T) {
	for addr, want := range map[string]string{
		"unix:path=/run/user/0/at-spi/bus_0,guid=ab": "/run/user/0/at-spi/bus_0",
		"unix:abstract=/tmp/dbus-X,guid=ab":          "@/tmp/dbus-X",
		"tcp:host=x,port=1;unix:path=/a%20b":         "/a b",
		"unix:guid=1,path=/tmp/s":                    "/tmp/s",
	} {
		if _, got, err := unixSocket(addr); err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", addr, got, err, want)
		}
	}
	if _, _, err := unixSocket("tcp:host=localhost,port=5"); err == nil {
		t.Error("tcp address accepted")
	}
}

// A GetAll reply's properties are skipped whatever their type: at-spi2 2.5x's Accessible has an
// a{ss} among them, and a decoder that stopped there sent every long list's rows to a second,
// slower GetAll (issue 16).
func TestSkipContainers(t *testing.T) {
	type ref struct {
		Bus  string
		Path dbus.ObjectPath
	}
	props := map[string]dbus.Variant{
		"Attributes": dbus.MakeVariant(map[string]string{"toolkit": "gtk", "b": ""}),
		"Empty":      dbus.MakeVariant(map[string]string{}),
		"Parent":     dbus.MakeVariant(ref{":1.2", "/org/a11y/atspi/accessible/3"}),
		"Nested":     dbus.MakeVariant([][]int64{{1, 2}, {}, {3}}),
		"Boxed":      dbus.MakeVariant(dbus.MakeVariant(uint16(9))),
		"Structs": dbus.MakeVariant([]struct {
			A byte
			B float64
		}{{1, 2.5}, {3, 4}}),
		"ChildCount":   dbus.MakeVariant(int32(1500)),
		"Name":         dbus.MakeVariant("row 7"),
		"AccessibleId": dbus.MakeVariant("id-7"),
	}
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		m, err := readMessage(bytes.NewReader(reply(t, order, 7, "", props)))
		if err != nil {
			t.Fatal(err)
		}
		r := &Reply{Signature: m.signature, Body: m.body, order: m.order}
		d, err := r.Decoder("a{sv}")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]any{}
		end := d.Array(8)
		for d.More(end) {
			d.Struct()
			key, sig := d.String(), d.Signature()
			switch sig {
			case "s":
				got[key] = d.String()
			case "i":
				got[key] = d.Int32()
			default:
				d.Skip(sig)
				got[key] = sig
			}
		}
		d.End(end)
		if d.Err() != nil {
			t.Fatalf("%v: %v", order, d.Err())
		}
		want := map[string]any{"Attributes": "a{ss}", "Empty": "a{ss}", "Parent": "(so)", "Nested": "aax", "Boxed": "v",
			"Structs": "a(yd)", "ChildCount": int32(1500), "Name": "row 7", "AccessibleId": "id-7"}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%v: decoded %v, want %v", order, got, want)
		}
	}
}

// TestAppendCallAfterOthers: calls queued behind others (written in one burst) are encoded
// exactly as alone; alignment counts from each message's first byte, not the buffer's.
func TestAppendCallAfterOthers(t *testing.T) {
	args := []any{int32(0), "CurrentValue", uint32(7)}
	alone, err := appendCall(nil, 9, "", "/org/a11y/atspi/accessible/42", "org.a11y.atspi.Text", "GetText", args)
	if err != nil {
		t.Fatal(err)
	}
	for _, before := range []string{"l", "odd", "seven b", "abcdefghijk"} {
		queued, err := appendCall([]byte(before), 9, "", "/org/a11y/atspi/accessible/42", "org.a11y.atspi.Text", "GetText", args)
		if err != nil {
			t.Fatal(err)
		}
		if got := queued[len(before):]; !bytes.Equal(got, alone) {
			t.Errorf("after %d queued bytes:\n got %x\nwant %x", len(before), got, alone)
		}
	}
}
