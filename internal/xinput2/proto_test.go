package xinput2

import (
	"bytes"
	"testing"
)

// rawEvent builds an XI2 raw key GenericEvent as the server sends it.
func rawEvent(opcode byte, evtype, device, source uint16, keycode uint32, valuators int) []byte {
	b := make([]byte, 32+4*valuators*3)
	b[0], b[1] = evGenericEvent, opcode
	le.PutUint32(b[4:], uint32(valuators*3))
	le.PutUint16(b[8:], evtype)
	le.PutUint16(b[10:], device)
	le.PutUint32(b[16:], keycode)
	le.PutUint16(b[20:], source)
	le.PutUint16(b[22:], uint16(valuators))
	return b
}

func TestParseEvent(t *testing.T) {
	ev, err := ParseEvent(rawEvent(131, xiRawKeyPress, 3, 6, 39, 0), 131)
	if err != nil || ev.Kind != RawKeyPress || ev.Device != 3 || ev.Source != 6 || ev.Keycode != 39 || ev.Synthetic {
		t.Errorf("raw press: %+v %v", ev, err)
	}
	if ev, _ := ParseEvent(rawEvent(131, xiRawKeyRelease, 3, 8, 50, 0), 131); ev.Kind != RawKeyRelease || ev.Source != 8 {
		t.Errorf("raw release: %+v", ev)
	}
	if ev, _ := ParseEvent(rawEvent(131, xiRawButtonPress, 2, 7, 3, 2), 131); ev.Kind != RawButtonPress || ev.Source != 7 || ev.Keycode != 3 {
		t.Errorf("raw button press: %+v", ev)
	}
	if ev, _ := ParseEvent(rawEvent(99, xiRawKeyPress, 3, 6, 39, 0), 131); ev.Kind != Other {
		t.Errorf("another extension's GenericEvent: %+v", ev)
	}
	m := make([]byte, 32)
	m[0], m[4] = evMappingNotify|sendEventFlag, 1
	if ev, _ := ParseEvent(m, 131); ev.Kind != MappingNotify || ev.Request != 1 || !ev.Synthetic {
		t.Errorf("mapping notify: %+v", ev)
	}
	if _, err := ParseEvent(make([]byte, 31), 131); err == nil {
		t.Error("a short event parsed")
	}
}

func TestPacketLen(t *testing.T) {
	for _, c := range []struct {
		head []byte
		want int
		ok   bool
	}{
		{rawEvent(131, xiRawKeyPress, 3, 6, 39, 2), 32 + 24, true},
		{append([]byte{evMappingNotify}, make([]byte, 31)...), 32, true},
		{func() []byte {
			b := rawEvent(131, 13, 3, 6, 39, 0)
			b[0] |= sendEventFlag
			le.PutUint32(b[4:], 9)
			return b
		}(), 32, true},
		{func() []byte { b := make([]byte, 32); b[0] = pktReply; le.PutUint32(b[4:], 1<<30); return b }(), 0, false},
	} {
		n, err := packetLen(c.head)
		if (err == nil) != c.ok || n != c.want {
			t.Errorf("%x: %d %v, want %d", c.head[:8], n, err, c.want)
		}
	}
}

// queryDeviceReply builds an XIQueryDevice reply.
func queryDeviceReply(devs []Device) []byte {
	var body bytes.Buffer
	for _, d := range devs {
		h := make([]byte, 12)
		le.PutUint16(h[0:], d.ID)
		le.PutUint16(h[2:], d.Use)
		le.PutUint16(h[4:], d.Attachment)
		le.PutUint16(h[6:], 1) // one class
		le.PutUint16(h[8:], uint16(len(d.Name)))
		h[10] = 1
		body.Write(h)
		body.Write(padded([]byte(d.Name)))
		class := make([]byte, 8)
		le.PutUint16(class[2:], 2)
		body.Write(class)
	}
	b := make([]byte, 32, 32+body.Len())
	b[0] = pktReply
	le.PutUint32(b[4:], uint32(body.Len()/4))
	le.PutUint16(b[8:], uint16(len(devs)))
	return append(b, body.Bytes()...)
}

func TestParseQueryDevice(t *testing.T) {
	want := []Device{{ID: 2, Use: MasterPointer, Attachment: 3, Enabled: true, Name: "Virtual core pointer"},
		{ID: 3, Use: MasterKeyboard, Attachment: 2, Enabled: true, Name: "Virtual core keyboard"},
		{ID: 5, Use: SlaveKeyboard, Attachment: 3, Enabled: true, Name: "Virtual core XTEST keyboard"},
		{ID: 7, Use: SlaveKeyboard, Attachment: 3, Enabled: true, Name: "Xvfb keyboard"}}
	got, err := parseQueryDevice(queryDeviceReply(want))
	if err != nil || len(got) != len(want) {
		t.Fatalf("%+v %v", got, err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("device %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	full := queryDeviceReply(want)
	for n := 0; n < len(full); n += 7 {
		if _, err := parseQueryDevice(full[:n]); err == nil {
			t.Errorf("a reply cut at %d bytes parsed", n)
		}
	}
}

func TestParseKeyboardMapping(t *testing.T) {
	b := make([]byte, 32+4*4)
	b[0], b[1] = pktReply, 2
	le.PutUint32(b[4:], 4)
	for i, s := range []uint32{'s', 'S', 0xffe3, 0} {
		le.PutUint32(b[32+4*i:], s)
	}
	km, err := parseKeyboardMapping(b, 39, 2)
	if err != nil {
		t.Fatal(err)
	}
	if c := km.Codes('S'); len(c) != 1 || c[0] != 39 {
		t.Errorf("S on %v", c)
	}
	if c := km.Codes(0xffe3); len(c) != 1 || c[0] != 40 {
		t.Errorf("Control_L on %v", c)
	}
	if _, err := parseKeyboardMapping(b, 39, 3); err == nil {
		t.Error("a reply for the wrong count parsed")
	}
}

func TestParseSetup(t *testing.T) {
	b := setupReply(2)
	for scr, root := range []uint32{0x100, 0x200} {
		info, err := parseSetup(b, scr)
		if err != nil || info.root != root || info.minKeycode != 8 || info.maxKeycode != 255 {
			t.Errorf("screen %d: %+v %v", scr, info, err)
		}
	}
	if _, err := parseSetup(b, 2); err == nil {
		t.Error("a third screen was found")
	}
	refused := append([]byte{0, 5, 11, 0, 0, 0, 2, 0}, []byte("nope!\x00\x00\x00")...)
	if _, err := parseSetup(refused, 0); err == nil {
		t.Error("a refusal parsed")
	}
}

// setupReply is a success reply with n screens of one depth with one visual each.
func setupReply(n int) []byte {
	b := make([]byte, 40)
	b[0] = 1
	le.PutUint16(b[24:], 4) // vendor length
	b[28], b[29] = byte(n), 1
	b[34], b[35] = 8, 255
	b = append(b, "Xvfb"...)
	b = append(b, make([]byte, 8)...) // one format
	for i := range n {
		s := make([]byte, 40+8+24)
		le.PutUint32(s, uint32(0x100*(i+1)))
		s[39] = 1
		le.PutUint16(s[42:], 1)
		b = append(b, s...)
	}
	le.PutUint16(b[6:], uint16((len(b)-8)/4))
	return b
}

func TestPickCookie(t *testing.T) {
	entry := func(family int, addr, num, name string, data []byte) []byte {
		var b []byte
		b = append(b, byte(family>>8), byte(family))
		for _, f := range [][]byte{[]byte(addr), []byte(num), []byte(name), data} {
			b = append(b, byte(len(f)>>8), byte(len(f)))
			b = append(b, f...)
		}
		return b
	}
	file := append(entry(familyLocal, "otherhost", "0", "MIT-MAGIC-COOKIE-1", []byte("wrong")),
		entry(familyLocal, "box", "1", "MIT-MAGIC-COOKIE-1", []byte("other display"))...)
	file = append(file, entry(familyLocal, "box", "0", "MIT-MAGIC-COOKIE-1", []byte("right"))...)
	if name, data := pickCookie(file, "0", "box", "", true); name != "MIT-MAGIC-COOKIE-1" || string(data) != "right" {
		t.Errorf("got %q %q", name, data)
	}
	if name, _ := pickCookie(file, "7", "box", "", true); name != "" {
		t.Error("a cookie for another display was used")
	}
	if name, _ := pickCookie(file[:len(file)-3], "0", "box", "", true); name != "" {
		t.Error("a truncated entry was used")
	}
}

func TestParseDisplay(t *testing.T) {
	for _, c := range []struct {
		in       string
		host     string
		num, scr int
		ok       bool
	}{
		{":0", "", 0, 0, true}, {":12.1", "", 12, 1, true}, {"unix:3", "unix", 3, 0, true},
		{"localhost:10.0", "localhost", 10, 0, true}, {"", "", 0, 0, false}, {":x", "", 0, 0, false}, {":1.y", "", 0, 0, false},
	} {
		h, n, s, err := parseDisplay(c.in)
		if (err == nil) != c.ok || (c.ok && (h != c.host || n != c.num || s != c.scr)) {
			t.Errorf("%q: %q %d %d %v", c.in, h, n, s, err)
		}
	}
}

func TestDevicePhysical(t *testing.T) {
	for _, tc := range []struct {
		d    Device
		want bool
	}{
		{Device{Use: SlaveKeyboard, Name: "Xvfb keyboard"}, true},
		{Device{Use: SlavePointer, Name: "Xvfb mouse"}, true},
		{Device{Use: FloatingSlave, Name: "Wacom tablet"}, true},
		{Device{Use: SlaveKeyboard, Name: "Virtual core XTEST keyboard"}, false},
		{Device{Use: SlavePointer, Name: "Virtual core XTEST pointer"}, false},
		{Device{Use: MasterKeyboard, Name: "Virtual core keyboard"}, false},
	} {
		if got := tc.d.Physical(); got != tc.want {
			t.Errorf("%+v: Physical() = %v", tc.d, got)
		}
	}
}
