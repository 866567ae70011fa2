package wlclient

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/mcec/mcec/internal/wayland/wire"
)

// Pointer is the connection's virtual pointer (wlr-virtual-pointer), made once and kept: a
// fresh device loses its first events while applications bind to the seat's new capability.
// Every request is followed by a frame and a round trip, so the compositor has handled it
// before the next one.
type Pointer struct {
	cl *Client
	id uint32

	mu   sync.Mutex
	down []uint32 // buttons pressed and not released
}

// Pointer returns the virtual pointer, making it on first use.
func (cl *Client) Pointer(ctx context.Context) (*Pointer, error) {
	cl.ptrOnce.Do(func() {
		var mgr, seat uint32
		if mgr, cl.ptrErr = cl.need(ifVirtualPointer); cl.ptrErr != nil {
			return
		}
		if seat, cl.ptrErr = cl.need(ifSeat); cl.ptrErr != nil {
			return
		}
		p := &Pointer{cl: cl, id: cl.c.NewObject(nil)}
		if cl.ptrErr = cl.c.Send(mgr, pointerManagerCreate, wire.Object(seat), wire.NewID(p.id)); cl.ptrErr == nil {
			cl.ptrErr = cl.c.Roundtrip(ctx)
		}
		if cl.ptrErr == nil {
			cl.ptr = p
		}
	})
	return cl.ptr, cl.ptrErr
}

// now is the event time wayland wants: milliseconds of a monotonic clock.
func now() uint32 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return uint32(ts.Sec*1000 + ts.Nsec/1e6)
}

// MotionAbsolute moves the pointer to x,y in layout coordinates.
func (p *Pointer) MotionAbsolute(ctx context.Context, x, y int) error {
	x0, y0, x1, y1 := p.cl.layout()
	if x < x0 || y < y0 || x >= x1 || y >= y1 {
		return fmt.Errorf("wayland: point %d,%d is outside the outputs (%d,%d to %d,%d)", x, y, x0, y0, x1, y1)
	}
	if err := p.cl.c.Send(p.id, pointerMotionAbs, wire.Uint(now()), wire.Uint(uint32(x-x0)), wire.Uint(uint32(y-y0)),
		wire.Uint(uint32(x1-x0)), wire.Uint(uint32(y1-y0))); err != nil {
		return err
	}
	return p.frame(ctx)
}

func (p *Pointer) frame(ctx context.Context) error {
	if err := p.cl.c.Send(p.id, pointerFrame); err != nil {
		return err
	}
	return p.cl.c.Roundtrip(ctx)
}

// Button presses or releases a button by its evdev code (BTN_LEFT is 0x110).
func (p *Pointer) Button(ctx context.Context, code uint32, pressed bool) error {
	state := uint32(0)
	if pressed {
		state = 1
	}
	if err := p.cl.c.Send(p.id, pointerButton, wire.Uint(now()), wire.Uint(code), wire.Uint(state)); err != nil {
		return err
	}
	p.mu.Lock()
	if pressed {
		p.down = append(p.down, code)
	} else if i := slices.Index(p.down, code); i >= 0 {
		p.down = slices.Delete(p.down, i, i+1)
	}
	p.mu.Unlock()
	return p.frame(ctx)
}

// Axis turns the wheel by clicks: vertical positive is down, horizontal positive is right.
func (p *Pointer) Axis(ctx context.Context, vertical bool, clicks int) error {
	axis := uint32(axisHorizontal)
	if vertical {
		axis = axisVertical
	}
	if err := p.cl.c.Send(p.id, pointerAxisSource, wire.Uint(axisSourceWheel)); err != nil {
		return err
	}
	// 15 is the value of one wheel click in libinput's units, which toolkits expect.
	if err := p.cl.c.Send(p.id, pointerAxisDiscrete, wire.Uint(now()), wire.Uint(axis), wire.Fixed(float64(15*clicks)), wire.Int(int32(clicks))); err != nil {
		return err
	}
	return p.frame(ctx)
}

// destroy releases held buttons and destroys the device.
func (p *Pointer) destroy() {
	p.mu.Lock()
	down := slices.Clone(p.down)
	p.mu.Unlock()
	for _, b := range down {
		_ = p.cl.c.Send(p.id, pointerButton, wire.Uint(now()), wire.Uint(b), wire.Uint(0))
	}
	_ = p.cl.c.Send(p.id, pointerFrame)
	_ = p.cl.c.Send(p.id, pointerDestroy)
}

// Keyboard is the connection's virtual keyboard (virtual-keyboard), made once and kept. Its
// keys are what the last keymap uploaded (SetKeymap) says.
type Keyboard struct {
	cl *Client
	id uint32

	mu     sync.Mutex
	keymap []Key    // the loaded keymap
	down   []uint32 // evdev codes pressed and not released
}

// Key is one key of a keymap: its evdev code and the keysyms of its levels (the first without
// Shift, the second, if any, with it).
type Key struct {
	Code uint32
	Syms []uint32
}

// Keyboard returns the virtual keyboard, making it on first use (with a keymap of its own, as
// the protocol wants one before any key).
func (cl *Client) Keyboard(ctx context.Context) (*Keyboard, error) {
	cl.kbdOnce.Do(func() {
		var mgr, seat uint32
		if mgr, cl.kbdErr = cl.need(ifVirtualKeyboard); cl.kbdErr != nil {
			return
		}
		if seat, cl.kbdErr = cl.need(ifSeat); cl.kbdErr != nil {
			return
		}
		k := &Keyboard{cl: cl, id: cl.c.NewObject(nil)}
		if cl.kbdErr = cl.c.Send(mgr, keyboardManagerCreate, wire.Object(seat), wire.NewID(k.id)); cl.kbdErr != nil {
			return
		}
		if cl.kbdErr = k.SetKeymap(ctx, []Key{{Code: 28, Syms: []uint32{0xff0d}}}); cl.kbdErr == nil { // KEY_ENTER: Return
			cl.kbd = k
		}
	})
	return cl.kbd, cl.kbdErr
}

// MaxCode is the highest evdev code a keymap can hold (XKB keycodes end at 255, evdev's are
// XKB's minus 8).
const MaxCode = 255 - 8

// modifierOf names the XKB modifier a modifier keysym sets.
var modifierOf = map[uint32]string{
	0xffe1: "Shift", 0xffe2: "Shift", 0xffe3: "Control", 0xffe4: "Control",
	0xffe9: "Mod1", 0xffea: "Mod1", 0xffe7: "Mod1", 0xffe8: "Mod1",
	0xffeb: "Mod4", 0xffec: "Mod4", 0xfe03: "Mod5", 0xffe5: "Lock",
}

// SetKeymap uploads a keymap of keys; modifier keysyms set their modifiers. The same keymap
// again is not uploaded twice.
func (k *Keyboard) SetKeymap(ctx context.Context, keys []Key) error {
	for _, key := range keys {
		if key.Code < 1 || key.Code > MaxCode || len(key.Syms) == 0 || len(key.Syms) > 2 {
			return fmt.Errorf("wayland: key %d with %d levels cannot go on a keymap", key.Code, len(key.Syms))
		}
	}
	k.mu.Lock()
	same := slices.EqualFunc(k.keymap, keys, func(a, b Key) bool { return a.Code == b.Code && slices.Equal(a.Syms, b.Syms) })
	k.mu.Unlock()
	if same {
		return nil
	}
	text := keymapText(keys)
	fd, err := unix.MemfdCreate("mcec-keymap", unix.MFD_CLOEXEC)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if _, err := unix.Write(fd, append([]byte(text), 0)); err != nil {
		return err
	}
	if err := k.cl.c.Send(k.id, keyboardKeymap, wire.Uint(keymapFormatXKBv1), wire.FD(fd), wire.Uint(uint32(len(text)+1))); err != nil {
		return err
	}
	if err := k.cl.c.Roundtrip(ctx); err != nil {
		return err
	}
	k.mu.Lock()
	k.keymap = slices.Clone(keys)
	k.mu.Unlock()
	return nil
}

// keymapText is an XKB keymap of keys (keysyms by value, which xkbcommon reads as hexadecimal
// numbers; the key type, one or two levels, guessed from them as xkbcommon does), types and
// compatibility from the standard set.
func keymapText(keys []Key) string {
	var b strings.Builder
	b.WriteString("xkb_keymap {\nxkb_keycodes \"mcec\" {\n minimum = 8;\n maximum = 255;\n")
	for _, key := range keys {
		fmt.Fprintf(&b, " <K%d> = %d;\n", key.Code, key.Code+8)
	}
	b.WriteString("};\nxkb_types \"mcec\" { include \"complete\" };\nxkb_compat \"mcec\" { include \"complete\" };\nxkb_symbols \"mcec\" {\n")
	for _, key := range keys {
		syms := make([]string, len(key.Syms))
		for i, s := range key.Syms {
			syms[i] = fmt.Sprintf("0x%08x", s)
		}
		fmt.Fprintf(&b, " key <K%d> { [ %s ] };\n", key.Code, strings.Join(syms, ", "))
	}
	for _, key := range keys {
		if mod, ok := modifierOf[key.Syms[0]]; ok {
			fmt.Fprintf(&b, " modifier_map %s { <K%d> };\n", mod, key.Code)
		}
	}
	b.WriteString("};\n};\n")
	return b.String()
}

// Key presses or releases the key of evdev code code.
func (k *Keyboard) Key(ctx context.Context, code uint32, pressed bool) error {
	state := uint32(0)
	if pressed {
		state = 1
	}
	if err := k.cl.c.Send(k.id, keyboardKey, wire.Uint(now()), wire.Uint(code), wire.Uint(state)); err != nil {
		return err
	}
	k.mu.Lock()
	if pressed {
		k.down = append(k.down, code)
	} else if i := slices.Index(k.down, code); i >= 0 {
		k.down = slices.Delete(k.down, i, i+1)
	}
	k.mu.Unlock()
	return k.cl.c.Roundtrip(ctx)
}

// Modifiers sends the modifier state (XKB masks: Shift 1, Lock 2, Control 4, Mod1 8, Mod4 64,
// Mod5 128).
func (k *Keyboard) Modifiers(ctx context.Context, depressed, latched, locked, group uint32) error {
	if err := k.cl.c.Send(k.id, keyboardModifiers, wire.Uint(depressed), wire.Uint(latched), wire.Uint(locked), wire.Uint(group)); err != nil {
		return err
	}
	return k.cl.c.Roundtrip(ctx)
}

// destroy releases held keys and modifiers and destroys the device.
func (k *Keyboard) destroy() {
	k.mu.Lock()
	down := slices.Clone(k.down)
	k.mu.Unlock()
	for _, c := range down {
		_ = k.cl.c.Send(k.id, keyboardKey, wire.Uint(now()), wire.Uint(c), wire.Uint(0))
	}
	_ = k.cl.c.Send(k.id, keyboardModifiers, wire.Uint(0), wire.Uint(0), wire.Uint(0), wire.Uint(0))
	_ = k.cl.c.Send(k.id, keyboardDestroy)
}
