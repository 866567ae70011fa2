// Package xinput2 is a minimal X11 client for XInput2 raw key events (and device presses on one
// window, device.go): it connects on its own
// socket, selects XI_RawKeyPress/XI_RawKeyRelease and XI_HierarchyChanged on the root window,
// lists the input devices (XIQueryDevice) and reads the keyboard mapping. mcec's emergency stop
// (internal/estop) uses it to see which physical device produced every key, which the core
// protocol does not say.
//
// It exists because xgb v1.1.1 has no XInput package and ignores the extra length of
// GenericEvents, which desynchronizes its stream as soon as an XI2 event arrives. Everything
// read from the server goes through the parsers in this file, which never trust a length.
package xinput2

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

var le = binary.LittleEndian // we open the connection little-endian ('l')

// Packet types and event codes (X11 core protocol, XI2proto).
const (
	pktError         = 0
	pktReply         = 1
	evMappingNotify  = 34
	evGenericEvent   = 35
	sendEventFlag    = 0x80
	xiRawKeyPress    = 13
	xiRawKeyRelease  = 14
	xiRawButtonPress = 15
	xiHierarchyEvent = 11

	// maxExtra bounds the extra length of one reply or GenericEvent: a keyboard mapping of 256
	// keycodes × 8 keysyms is 8 KiB, a device list a few KiB.
	maxExtra = 1 << 20
)

// Device uses (XIDeviceInfo.use).
const (
	MasterPointer  = 1
	MasterKeyboard = 2
	SlavePointer   = 3
	SlaveKeyboard  = 4
	FloatingSlave  = 5
)

// Device selectors of XISelectEvents and XIQueryDevice.
const (
	AllDevices       = 0
	AllMasterDevices = 1
)

// EventKind says what an Event is.
type EventKind int

// Event kinds.
const (
	Other EventKind = iota
	RawKeyPress
	RawKeyRelease
	HierarchyChanged
	MappingNotify
	XError
	KeyPress       // XI_KeyPress (device event, SelectWindowPresses)
	ButtonPress    // XI_ButtonPress
	RawButtonPress // XI_RawButtonPress: Keycode holds the button
)

// Event is one event (or asynchronous error) read from the server.
type Event struct {
	Kind EventKind
	// Device is the device the event was delivered for (a master with AllMasterDevices);
	// Source is the slave that produced it (raw events).
	Device, Source uint16
	// Keycode of a raw key event (the button of a raw button press).
	Keycode uint32
	// Detail (keycode or button), Window (the event window), EventX/EventY (the pointer in
	// that window) and Mods (effective modifiers) of a device event.
	Detail         uint32
	Window         uint32
	EventX, EventY int
	Mods           uint32
	// Flags of a raw event (XIKeyRepeat = 1<<16).
	Flags uint32
	// Request of a MappingNotify (0 modifier, 1 keyboard, 2 pointer).
	Request byte
	// Synthetic is set for events sent by a client with SendEvent: never hardware.
	Synthetic bool
	// ErrorCode, Seq of an XError.
	ErrorCode byte
	Seq       uint16
}

// Device is one entry of XIQueryDevice.
type Device struct {
	ID         uint16
	Use        uint16
	Attachment uint16
	Enabled    bool
	Name       string
}

// KeyRepeat marks a repeated key in a key event's flags (XIKeyRepeat).
const KeyRepeat = 1 << 16

// IsXTest recognizes the XTEST slave devices ("Virtual core XTEST keyboard", "<master> XTEST
// pointer"): every XTEST client's input, mcec's own and xdotool's included, comes from them.
func (d Device) IsXTest() bool { return strings.Contains(d.Name, "XTEST") }

// Physical reports whether d is a slave device, attached or floating, that is not an XTEST
// device: input a person makes on a keyboard or a pointer.
func (d Device) Physical() bool {
	switch d.Use {
	case SlaveKeyboard, SlavePointer, FloatingSlave:
		return !d.IsXTest()
	}
	return false
}

// packetLen is the full length of the packet whose first 32 bytes are head: replies and
// GenericEvents carry extra 4-byte units, everything else is 32 bytes.
func packetLen(head []byte) (int, error) {
	if len(head) < 32 {
		return 0, errors.New("short packet header")
	}
	// Events sent with SendEvent (high bit set) are always 32 bytes.
	switch head[0] {
	case pktReply, evGenericEvent:
		extra := le.Uint32(head[4:8])
		if extra > maxExtra/4 {
			return 0, fmt.Errorf("packet announces %d extra bytes (over %d)", uint64(extra)*4, maxExtra)
		}
		return 32 + int(extra)*4, nil
	}
	return 32, nil
}

// ParseEvent decodes an event packet (32 bytes, or more for a GenericEvent). Unknown events are
// Other; a packet too short for its kind is an error.
func ParseEvent(b []byte, xiOpcode byte) (Event, error) {
	if len(b) < 32 {
		return Event{}, errors.New("short event")
	}
	ev := Event{Synthetic: b[0]&sendEventFlag != 0, Seq: le.Uint16(b[2:4])}
	switch b[0] &^ sendEventFlag {
	case pktError:
		ev.Kind, ev.ErrorCode = XError, b[1]
	case evMappingNotify:
		ev.Kind, ev.Request = MappingNotify, b[4]
	case evGenericEvent:
		if b[1] != xiOpcode {
			return ev, nil
		}
		switch le.Uint16(b[8:10]) {
		case xiRawKeyPress, xiRawKeyRelease:
			ev.Kind = RawKeyPress
			if le.Uint16(b[8:10]) == xiRawKeyRelease {
				ev.Kind = RawKeyRelease
			}
			ev.Device = le.Uint16(b[10:12])
			ev.Keycode = le.Uint32(b[16:20])
			ev.Source = le.Uint16(b[20:22])
			ev.Flags = le.Uint32(b[24:28])
		case xiRawButtonPress:
			ev.Kind = RawButtonPress
			ev.Device = le.Uint16(b[10:12])
			ev.Keycode = le.Uint32(b[16:20])
			ev.Source = le.Uint16(b[20:22])
			ev.Flags = le.Uint32(b[24:28])
		case xiHierarchyEvent:
			ev.Kind = HierarchyChanged
			ev.Device = le.Uint16(b[10:12])
		case xiKeyPress, xiButtonPress:
			ev.Kind = KeyPress
			if le.Uint16(b[8:10]) == xiButtonPress {
				ev.Kind = ButtonPress
			}
			if err := parseDeviceEvent(&ev, b); err != nil {
				return Event{}, err
			}
		}
	}
	return ev, nil
}

// setupInfo is what the connection setup reply tells us.
type setupInfo struct {
	root                   uint32
	minKeycode, maxKeycode byte
}

func pad4(n int) int { return (n + 3) &^ 3 }

// parseSetup decodes the connection setup reply (its 8-byte head included) and picks screen.
func parseSetup(b []byte, screen int) (setupInfo, error) {
	if len(b) < 8 {
		return setupInfo{}, errors.New("short setup reply")
	}
	switch b[0] {
	case 0, 2:
		n := int(b[1])
		if b[0] == 2 {
			n = len(b) - 8
		}
		reason := ""
		if 8+n <= len(b) {
			reason = string(b[8 : 8+n])
		}
		return setupInfo{}, fmt.Errorf("the X server refused the connection: %q", reason)
	case 1:
	default:
		return setupInfo{}, fmt.Errorf("bad setup reply status %d", b[0])
	}
	if len(b) < 40 {
		return setupInfo{}, errors.New("short setup reply")
	}
	info := setupInfo{minKeycode: b[34], maxKeycode: b[35]}
	vendor := int(le.Uint16(b[24:26]))
	nscreens, nformats := int(b[28]), int(b[29])
	off := 40 + pad4(vendor) + 8*nformats
	if screen < 0 || screen >= nscreens {
		return setupInfo{}, fmt.Errorf("the display has %d screens, not a screen %d", nscreens, screen)
	}
	for i := 0; ; i++ {
		if off+40 > len(b) {
			return setupInfo{}, errors.New("setup reply truncated in the screen list")
		}
		if i == screen {
			info.root = le.Uint32(b[off : off+4])
			return info, nil
		}
		ndepths := int(b[off+39])
		off += 40
		for range ndepths {
			if off+8 > len(b) {
				return setupInfo{}, errors.New("setup reply truncated in a depth list")
			}
			off += 8 + 24*int(le.Uint16(b[off+2:off+4]))
		}
	}
}

// parseQueryDevice decodes an XIQueryDevice reply.
func parseQueryDevice(b []byte) ([]Device, error) {
	if len(b) < 32 || b[0] != pktReply {
		return nil, errors.New("short XIQueryDevice reply")
	}
	n := int(le.Uint16(b[8:10]))
	off := 32
	out := make([]Device, 0, min(n, 64))
	for range n {
		if off+12 > len(b) {
			return nil, errors.New("XIQueryDevice reply truncated")
		}
		d := Device{ID: le.Uint16(b[off:]), Use: le.Uint16(b[off+2:]), Attachment: le.Uint16(b[off+4:]),
			Enabled: b[off+10] != 0}
		nclasses, nameLen := int(le.Uint16(b[off+6:])), int(le.Uint16(b[off+8:]))
		off += 12
		if off+pad4(nameLen) > len(b) {
			return nil, errors.New("XIQueryDevice reply truncated in a device name")
		}
		d.Name = string(b[off : off+nameLen])
		off += pad4(nameLen)
		for range nclasses {
			if off+4 > len(b) {
				return nil, errors.New("XIQueryDevice reply truncated in a class")
			}
			units := int(le.Uint16(b[off+2:]))
			if units == 0 {
				return nil, errors.New("XIQueryDevice reply has an empty class")
			}
			off += 4 * units
		}
		if off > len(b) {
			return nil, errors.New("XIQueryDevice reply truncated in a class")
		}
		out = append(out, d)
	}
	return out, nil
}

// Keymap is the keyboard mapping: the keysyms of each keycode from Min.
type Keymap struct {
	Min     byte
	PerCode int
	Syms    []uint32
}

// parseKeyboardMapping decodes a GetKeyboardMapping reply for count keycodes from first.
func parseKeyboardMapping(b []byte, first byte, count int) (Keymap, error) {
	if len(b) < 32 || b[0] != pktReply {
		return Keymap{}, errors.New("short GetKeyboardMapping reply")
	}
	per := int(b[1])
	words := int(le.Uint32(b[4:8]))
	if per == 0 || words != per*count || len(b) < 32+4*words {
		return Keymap{}, fmt.Errorf("GetKeyboardMapping reply of %d keysyms for %d keycodes × %d", words, count, per)
	}
	km := Keymap{Min: first, PerCode: per, Syms: make([]uint32, words)}
	for i := range words {
		km.Syms[i] = le.Uint32(b[32+4*i:])
	}
	return km, nil
}

// Codes lists the keycodes that carry any of syms at any level.
func (k Keymap) Codes(syms ...uint32) []uint32 {
	var out []uint32
	if k.PerCode == 0 {
		return nil
	}
	for i := 0; i+k.PerCode <= len(k.Syms); i += k.PerCode {
	col:
		for _, s := range k.Syms[i : i+k.PerCode] {
			for _, want := range syms {
				if s == want && s != 0 {
					out = append(out, uint32(k.Min)+uint32(i/k.PerCode))
					break col
				}
			}
		}
	}
	return out
}

// errorName names the core X errors a request here can meet.
func errorName(code byte) string {
	switch code {
	case 1:
		return "BadRequest"
	case 2:
		return "BadValue"
	case 3:
		return "BadWindow"
	case 8:
		return "BadMatch"
	case 10:
		return "BadAccess"
	case 11:
		return "BadAlloc"
	case 16:
		return "BadLength"
	case 17:
		return "BadImplementation"
	}
	return fmt.Sprintf("X error %d", code)
}
