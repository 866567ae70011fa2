package xinput2

import "testing"

// deviceEvent builds an XIDeviceEvent as the server sends it (fixed part plus a button mask).
func deviceEvent(opcode byte, evtype, device, source uint16, detail, win uint32, x, y float64) []byte {
	b := make([]byte, deviceEventLen+4)
	b[0], b[1] = evGenericEvent, opcode
	le.PutUint32(b[4:], uint32((len(b)-32)/4))
	le.PutUint16(b[8:], evtype)
	le.PutUint16(b[10:], device)
	le.PutUint32(b[16:], detail)
	le.PutUint32(b[24:], win)
	le.PutUint32(b[40:], uint32(int32(x*65536)))
	le.PutUint32(b[44:], uint32(int32(y*65536)))
	le.PutUint16(b[48:], 1) // buttons_len
	le.PutUint16(b[52:], source)
	return b
}

func TestParseDeviceEvent(t *testing.T) {
	tests := []struct {
		name string
		b    []byte
		want Event
		err  bool
	}{
		{"button", deviceEvent(131, xiButtonPress, 2, 6, 1, 0x400001, 120.75, 33.5),
			Event{Kind: ButtonPress, Device: 2, Source: 6, Detail: 1, Window: 0x400001, EventX: 120, EventY: 33}, false},
		{"key", deviceEvent(131, xiKeyPress, 3, 7, 29, 0x400001, 0, 0),
			Event{Kind: KeyPress, Device: 3, Source: 7, Detail: 29, Window: 0x400001}, false},
		{"negative position", deviceEvent(131, xiButtonPress, 2, 6, 1, 9, -0.5, -3),
			Event{Kind: ButtonPress, Device: 2, Source: 6, Detail: 1, Window: 9, EventX: -1, EventY: -3}, false},
		{"other extension", deviceEvent(99, xiButtonPress, 2, 6, 1, 9, 1, 1), Event{}, false},
		{"truncated", deviceEvent(131, xiButtonPress, 2, 6, 1, 9, 1, 1)[:60], Event{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := ParseEvent(tt.b, 131)
			if (err != nil) != tt.err {
				t.Fatalf("err = %v", err)
			}
			ev.Seq = 0
			if ev != tt.want {
				t.Errorf("got %+v\nwant %+v", ev, tt.want)
			}
		})
	}
}

func FuzzParseDeviceEvent(f *testing.F) {
	f.Add(deviceEvent(131, xiButtonPress, 2, 6, 1, 0x400001, 120.75, 33.5))
	f.Add(deviceEvent(131, xiKeyPress, 3, 7, 29, 0x400001, 0, 0))
	f.Add(deviceEvent(131, xiKeyPress, 3, 7, 29, 0x400001, 0, 0)[:79])
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := ParseEvent(b, 131)
		if err == nil && (ev.Kind == KeyPress || ev.Kind == ButtonPress) && len(b) < deviceEventLen {
			t.Fatalf("device event from %d bytes", len(b))
		}
	})
}
