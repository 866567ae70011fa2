package testdesk

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/mcec/mcec/internal/xgbext"
	"github.com/mcec/mcec/internal/xinput2"
)

// Source is what injected input claims to come from.
type Source int

const (
	// Physical input is XTEST FakeInput with the XInput 1 device event types and the id of the
	// Xvfb keyboard or pointer: the server reports it as that device's, as it would a person's.
	Physical Source = iota
	// XTEST is plain XTEST core input: what mcec, xdotool and every XTEST client produce.
	XTEST
)

func (s Source) String() string {
	if s == Physical {
		return "physical"
	}
	return "XTEST"
}

// XInput 1 device event types, as offsets from the extension's first event code.
const (
	deviceKeyPress      = 1
	deviceKeyRelease    = 2
	deviceButtonPress   = 3
	deviceButtonRelease = 4
)

// Hardware is the person at the test desktop's keyboard and mouse. Tests of code that must
// tell a person's input from an agent's press the same keys and buttons as either Source.
type Hardware struct {
	t                 testing.TB
	x                 *xgb.Conn
	root              xproto.Window
	firstEvent        byte
	keyboard, pointer byte // the Xvfb devices' ids
	keymap            xinput2.Keymap
}

// NewHardware finds the Xvfb keyboard and pointer on the test desktop and opens an X
// connection to inject input on, closed at cleanup.
func NewHardware(t testing.TB) *Hardware {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	display := Desktop().Display()
	xi, err := xinput2.Dial(ctx, display)
	if err != nil {
		t.Fatalf("testdesk: XInput2 connection: %v", err)
	}
	defer xi.Close()
	devs, err := xi.QueryDevices()
	if err != nil {
		t.Fatalf("testdesk: query input devices: %v", err)
	}
	h := &Hardware{t: t, firstEvent: xi.XIFirstEvent}
	for _, d := range devs {
		if d.IsXTest() {
			continue // the XTEST slave devices: input through them is what Physical is not
		}
		switch d.Use {
		case xinput2.SlaveKeyboard:
			if strings.Contains(d.Name, "keyboard") { // not the power button
				h.keyboard = byte(d.ID)
			}
		case xinput2.SlavePointer:
			h.pointer = byte(d.ID)
		}
	}
	if h.keyboard == 0 || h.pointer == 0 {
		t.Fatalf("testdesk: no Xvfb keyboard and pointer among %+v", devs)
	}
	if h.keymap, err = xi.KeyboardMapping(); err != nil {
		t.Fatalf("testdesk: keyboard mapping: %v", err)
	}
	if h.x, err = xgb.NewConnDisplay(display); err != nil {
		t.Fatalf("testdesk: connect to X: %v", err)
	}
	t.Cleanup(h.x.Close)
	if _, err := xgbext.RegisterAll(h.x); err != nil {
		t.Fatalf("testdesk: X extensions: %v", err)
	}
	h.root = xproto.Setup(h.x).DefaultScreen(h.x).Root
	return h
}

// Conn is the connection input is injected on, for a test's own queries on the desktop.
func (h *Hardware) Conn() *xgb.Conn { return h.x }

// Chord presses the keys carrying keysyms in order, releases them in reverse order, and
// returns once the server has processed the events. A keysym not on the keymap fails the test.
func (h *Hardware) Chord(src Source, keysyms ...uint32) {
	h.t.Helper()
	codes := make([]byte, len(keysyms))
	for i, sym := range keysyms {
		c := h.keymap.Codes(sym)
		if len(c) == 0 {
			h.t.Fatalf("testdesk: keysym %#x is not on the keymap", sym)
		}
		codes[i] = byte(c[0])
	}
	press, release, dev := byte(xproto.KeyPress), byte(xproto.KeyRelease), byte(0)
	if src == Physical {
		press, release, dev = h.firstEvent+deviceKeyPress, h.firstEvent+deviceKeyRelease, h.keyboard
	}
	for _, c := range codes {
		xtest.FakeInput(h.x, press, c, 0, 0, 0, 0, dev)
	}
	for i := len(codes) - 1; i >= 0; i-- {
		xtest.FakeInput(h.x, release, codes[i], 0, 0, 0, 0, dev)
	}
	h.sync()
}

// Key presses and releases the key carrying keysym (for Latin-1 characters, the character).
func (h *Hardware) Key(src Source, keysym uint32) {
	h.t.Helper()
	h.Chord(src, keysym)
}

// Click moves the pointer to root coordinates x,y, presses and releases button 1, and returns
// once the server has processed the events.
func (h *Hardware) Click(src Source, x, y int) {
	h.t.Helper()
	xproto.WarpPointer(h.x, 0, h.root, 0, 0, 0, 0, int16(x), int16(y))
	press, release, dev := byte(xproto.ButtonPress), byte(xproto.ButtonRelease), byte(0)
	if src == Physical {
		press, release, dev = h.firstEvent+deviceButtonPress, h.firstEvent+deviceButtonRelease, h.pointer
	}
	xtest.FakeInput(h.x, press, 1, 0, 0, 0, 0, dev)
	xtest.FakeInput(h.x, release, 1, 0, 0, 0, 0, dev)
	h.sync()
}

// Buttons is the core pointer's mask of pressed buttons 1 to 5 (whoever pressed them).
func (h *Hardware) Buttons() uint16 {
	h.t.Helper()
	r, err := xproto.QueryPointer(h.x, h.root).Reply()
	if err != nil {
		h.t.Fatalf("testdesk: query pointer: %v", err)
	}
	return r.Mask & (xproto.ButtonMask1 | xproto.ButtonMask2 | xproto.ButtonMask3 | xproto.ButtonMask4 | xproto.ButtonMask5)
}

// sync waits for a reply, so every request sent before it has been processed.
func (h *Hardware) sync() {
	h.t.Helper()
	if _, err := xproto.GetInputFocus(h.x).Reply(); err != nil {
		h.t.Fatalf("testdesk: X round trip: %v", err)
	}
}
