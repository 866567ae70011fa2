package xinput2

import "testing"

// The parsers read bytes from the X server: whatever arrives, they must not panic, and what
// they accept must be consistent with its length.

func FuzzParseEvent(f *testing.F) {
	f.Add(rawEvent(131, xiRawKeyPress, 3, 6, 39, 0))
	f.Add(rawEvent(131, xiHierarchyEvent, 0, 0, 0, 1))
	f.Add(make([]byte, 32))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ParseEvent(b, 131)
		if len(b) >= 32 {
			if n, err := packetLen(b[:32]); err == nil && (n < 32 || n > 32+maxExtra) {
				t.Fatalf("packet length %d", n)
			}
		}
	})
}

func FuzzParseQueryDevice(f *testing.F) {
	f.Add(queryDeviceReply([]Device{{ID: 5, Use: SlaveKeyboard, Name: "Virtual core XTEST keyboard"}}))
	f.Add(make([]byte, 32))
	f.Fuzz(func(t *testing.T, b []byte) {
		devs, err := parseQueryDevice(b)
		if err == nil && len(devs)*12 > len(b) {
			t.Fatalf("%d devices from %d bytes", len(devs), len(b))
		}
	})
}

func FuzzParseKeyboardMapping(f *testing.F) {
	b := make([]byte, 40)
	b[0], b[1] = pktReply, 1
	le.PutUint32(b[4:], 2)
	f.Add(b, 2)
	f.Fuzz(func(t *testing.T, b []byte, count int) {
		if count < 0 || count > 256 {
			return
		}
		km, err := parseKeyboardMapping(b, 8, count)
		if err == nil {
			_ = km.Codes(0x73, 0xffe3)
		}
	})
}

func FuzzParseSetup(f *testing.F) {
	f.Add(setupReply(1), 0)
	f.Add(setupReply(3), 2)
	f.Fuzz(func(t *testing.T, b []byte, screen int) {
		_, _ = parseSetup(b, screen)
	})
}

func FuzzPickCookie(f *testing.F) {
	f.Add([]byte{1, 0, 0, 3, 'b', 'o', 'x', 0, 1, '0', 0, 18, 'M', 'I', 'T', '-', 'M', 'A', 'G', 'I', 'C', '-', 'C', 'O', 'O', 'K', 'I', 'E', '-', '1', 0, 1, 'x'})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = pickCookie(b, "0", "box", "", true)
	})
}
