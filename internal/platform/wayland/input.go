package wayland

import (
	"context"
	"errors"
	"fmt"
	"image"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcec/mcec/internal/keysym"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/wayland/wlclient"
)

// Input on Wayland goes through one virtual pointer and one virtual keyboard, made once per
// connection and kept (shared/spec/wayland-notes.md §5, measured on sway 1.7):
//   - a seat starts without capabilities, and applications bind their pointer and keyboard only
//     after a device appears, so a fresh device's first events are lost: the devices are made
//     at Dial and the first gesture waits until deviceSettle has passed since;
//   - a press right behind the motion reaches the surface under the old position: every event
//     is followed by a round trip (wlclient), so the compositor has handled the motion first;
//   - a press is held pressHold, which every toolkit took as a click;
//   - keys are typed on a keyboard of mcec's own (keymap.go): a US keyboard, and spare keys for
//     the other characters text needs, whatever the user's layout.
//
// wlroots reports no pointer position to clients, so Pointer reports where mcec put it last.
const (
	deviceSettle = 300 * time.Millisecond
	pressHold    = 40 * time.Millisecond
	clickGap     = 60 * time.Millisecond // between the clicks of a double click
	dragStep     = 8                     // the longest pointer jump within a drag, in pixels
	// releaseLimit bounds the clean-up of a gesture (releases), which runs on a fresh context
	// because the caller's may be what ended the gesture.
	releaseLimit = 2 * time.Second
	maxScroll    = 100
)

// evdev button codes (linux/input-event-codes.h).
var evdevButton = map[platform.Button]uint32{
	platform.ButtonLeft:   0x110, // BTN_LEFT
	platform.ButtonRight:  0x111, // BTN_RIGHT
	platform.ButtonMiddle: 0x112, // BTN_MIDDLE
}

// Modifier keysyms and the XKB modifier each one sets (Shift, Control, Mod1 = Alt, Mod4 = Super,
// Mod5 = AltGr), sent to the compositor with the keys: the virtual keyboard's modifier state is
// the client's to say.
var modifierMask = map[uint32]uint32{
	0xffe1: 1, 0xffe2: 1, // Shift_L, Shift_R
	0xffe3: 4, 0xffe4: 4, // Control_L, Control_R
	0xffe9: 8, 0xffea: 8, // Alt_L, Alt_R
	0xffe7: 8, 0xffe8: 8, // Meta_L, Meta_R
	0xffeb: 64, 0xffec: 64, // Super_L, Super_R
	0xfe03: 128, // ISO_Level3_Shift
}

// pressed is a key (by keysym) or button (by platform.Button) that mcec holds down.
type pressed struct {
	key    uint32
	button platform.Button
	shift  bool // Shift was pressed for it (a shifted character) and goes up with it
}

// same reports whether p and q are the same key or button.
func (p pressed) same(q pressed) bool { return p.key == q.key && p.button == q.button }

// indexOf finds p's key or button in list.
func indexOf(list []pressed, p pressed) int { return slices.IndexFunc(list, p.same) }

func (p pressed) String() string {
	if p.button != 0 {
		return fmt.Sprintf("button%d", p.button)
	}
	return keysym.Name(p.key)
}

// pointerDevice is a pointer mcec drives: wlroots' virtual pointer, KWin's fake input or GNOME
// Shell's virtual pointer (through mcec's extension).
type pointerDevice interface {
	MotionAbsolute(ctx context.Context, x, y int) error
	Button(ctx context.Context, code uint32, pressed bool) error
	Axis(ctx context.Context, vertical bool, clicks int) error
}

// keyDevice is a keyboard mcec drives by evdev codes.
type keyDevice interface {
	Key(ctx context.Context, code uint32, pressed bool) error
}

// input implements platform.Input on the connection's virtual devices.
type input struct {
	c       *Conn
	gesture chan struct{} // capacity 1: one gesture at a time, waiters can give up

	mu     sync.Mutex
	devErr error
	ptr    pointerDevice
	kbd    keyDevice
	// vkbd is the virtual keyboard whose keymap and modifiers mcec sets; nil on KWin's fake
	// input and GNOME Shell's keyboard, whose codes go through the session's own keymap, assumed
	// to be a US one, and whose modifiers follow the modifier keys pressed.
	vkbd      *wlclient.Keyboard
	readyAt   time.Time
	at        platform.Point // where mcec last put the pointer
	atKnown   bool
	held      []pressed // down now, in press order
	latched   []pressed // pressed to outlive their gesture (Press, ButtonDown)
	lay       *layout   // the keyboard's keys, as last uploaded when loaded is true
	loaded    bool
	modifiers uint32 // the depressed modifier mask sent last
}

func newInput(c *Conn) *input {
	in := &input{c: c, gesture: make(chan struct{}, 1), lay: newLayout()}
	// Made now so that the seat's new capabilities reach applications before the first gesture.
	ctx, cancel := context.WithTimeout(context.Background(), releaseLimit)
	defer cancel()
	if in.devices(ctx) == nil {
		_ = in.load(ctx, nil) // the US keyboard, before any application caches the device's first keymap
	}
	return in
}

// Input implements platform.InputProvider.
func (c *Conn) Input() platform.Input { return c.in }

// devices makes the virtual devices once; a failure is kept and reported by every gesture.
func (in *input) devices(ctx context.Context) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.ptr != nil && in.kbd != nil || in.devErr != nil {
		return in.devErr
	}
	var err error
	if sc, ok := in.c.compositor.(*shellComp); ok {
		in.ptr, in.kbd, err = sc.sh.input(ctx, in.c.wl)
	} else {
		var ptr *wlclient.Pointer
		if ptr, err = in.c.wl.Pointer(ctx); err == nil {
			var kbd *wlclient.Keyboard
			if kbd, err = in.c.wl.Keyboard(ctx); err == nil {
				in.ptr, in.kbd, in.vkbd = ptr, kbd, kbd
			}
		}
	}
	if err != nil {
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
			in.devErr = wlErr("make the virtual input devices", err)
		}
		return wlErr("make the virtual input devices", err)
	}
	in.readyAt = time.Now().Add(deviceSettle)
	return nil
}

// begin starts a gesture: one at a time, on settled devices. end must follow.
func (in *input) begin(ctx context.Context, what string) error {
	select {
	case in.gesture <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", what, ctx.Err())
	}
	if err := in.devices(ctx); err != nil {
		<-in.gesture
		return err
	}
	in.mu.Lock()
	wait := time.Until(in.readyAt)
	in.mu.Unlock()
	if err := pause(ctx, wait); err != nil {
		<-in.gesture
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// end releases what the gesture pressed and did not latch, on a fresh context, and lets the
// next gesture start.
func (in *input) end() {
	ctx, cancel := context.WithTimeout(context.Background(), releaseLimit)
	defer cancel()
	in.releaseAll(ctx, false)
	<-in.gesture
}

// releaseAll releases every key and button mcec holds; latched ones too when all is set.
func (in *input) releaseAll(ctx context.Context, all bool) error {
	in.mu.Lock()
	held := slices.Clone(in.held)
	latched := slices.Clone(in.latched)
	in.mu.Unlock()
	var errs []error
	for i := len(held) - 1; i >= 0; i-- {
		if !all && indexOf(latched, held[i]) >= 0 {
			continue
		}
		errs = append(errs, in.send(ctx, held[i], false))
	}
	if all {
		in.mu.Lock()
		in.latched = nil
		in.mu.Unlock()
	}
	return errors.Join(errs...)
}

// close releases everything, latched presses included (Conn.Close).
func (in *input) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), releaseLimit)
	defer cancel()
	if in.ptr == nil && in.kbd == nil {
		return nil
	}
	return in.releaseAll(ctx, true)
}

// pause waits d unless ctx ends first.
func pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// send presses or releases one key or button and records it. A shifted character's key gets
// Shift around it unless a Shift is down already.
func (in *input) send(ctx context.Context, p pressed, down bool) error {
	if p.button != 0 {
		if err := in.ptr.Button(ctx, evdevButton[p.button], down); err != nil {
			return wlErr("input", err)
		}
		in.record(p, down)
		return nil
	}
	if down {
		in.mu.Lock()
		pl, ok := in.lay.place(p.key)
		shiftDown := slices.ContainsFunc(in.held, func(h pressed) bool { return modifierMask[h.key] == 1 })
		in.mu.Unlock()
		if !ok {
			return fmt.Errorf("%w: keysym %s is not on the keyboard", platform.ErrUnsupported, keysym.Name(p.key))
		}
		if pl.shifted && !shiftDown {
			if err := in.key(ctx, shiftL, true); err != nil {
				return err
			}
			p.shift = true
		}
		if err := in.key(ctx, p.key, true); err != nil {
			return err
		}
		in.record(p, true)
		return nil
	}
	in.mu.Lock()
	if i := indexOf(in.held, p); i >= 0 {
		p = in.held[i]
	}
	in.mu.Unlock()
	if err := in.key(ctx, p.key, false); err != nil {
		return err
	}
	in.record(p, false)
	if p.shift {
		return in.key(ctx, shiftL, false)
	}
	return nil
}

// shiftL is Shift_L's keysym.
const shiftL = 0xffe1

// record notes p pressed or released.
func (in *input) record(p pressed, down bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if down {
		in.held = append(in.held, p)
	} else if i := indexOf(in.held, p); i >= 0 {
		in.held = slices.Delete(in.held, i, i+1)
	}
}

// key presses or releases the key of keysym sym (load puts it on the keyboard), and sends the
// modifier state a modifier key changes.
func (in *input) key(ctx context.Context, sym uint32, down bool) error {
	in.mu.Lock()
	pl, ok := in.lay.place(sym)
	in.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: keysym %s is not on the keyboard", platform.ErrUnsupported, keysym.Name(sym))
	}
	if err := in.kbd.Key(ctx, pl.code, down); err != nil {
		return wlErr("input", err)
	}
	mask, ok := modifierMask[sym]
	if !ok || in.vkbd == nil {
		return nil
	}
	in.mu.Lock()
	mods := in.modifiers
	if down {
		mods |= mask
	} else {
		mods &^= mask
		for _, h := range in.held { // another key of the same modifier still down
			if h.key != sym && modifierMask[h.key] == mask {
				mods |= mask
			}
		}
	}
	in.modifiers = mods
	in.mu.Unlock()
	return wlErr("input", in.vkbd.Modifiers(ctx, mods, 0, 0, 0))
}

// load puts syms on the keyboard (keymap.go), uploading the keymap when it changed.
func (in *input) load(ctx context.Context, syms []uint32) error {
	if in.vkbd == nil {
		// The session's layout, which can change at any time, decides what the keys type.
		if err := in.checkLayout(ctx, syms); err != nil {
			return err
		}
	}
	in.mu.Lock()
	changed := in.lay.add(syms, in.heldKeysLocked()) || !in.loaded
	keys := slices.Clone(in.lay.keys)
	in.mu.Unlock()
	if !changed {
		return nil
	}
	if in.vkbd == nil {
		if len(keys) > base {
			in.mu.Lock()
			missing := make([]string, 0, len(in.lay.extras))
			for _, s := range in.lay.extras {
				missing = append(missing, keysym.Name(s))
			}
			in.lay = newLayout()
			in.mu.Unlock()
			return fmt.Errorf("%w: this compositor's input (KWin's fake input, GNOME Shell's keyboard) types through the session's keyboard layout, taken to be a US one, and %s is not on it; "+
				"set the text with invoke setvalue, or paste it through the clipboard", platform.ErrCompositorUnsupported, strings.Join(missing, ", "))
		}
		in.mu.Lock()
		in.loaded = true
		in.mu.Unlock()
		return nil
	}
	if err := in.vkbd.SetKeymap(ctx, keys); err != nil {
		return wlErr("load a keymap", err)
	}
	in.mu.Lock()
	in.loaded = true
	in.mu.Unlock()
	return nil
}

// checkPoint fails for a point outside every output.
func (in *input) checkPoint(ctx context.Context, p platform.Point) error {
	outs, err := in.c.wl.Outputs(ctx)
	if err != nil {
		return wlErr("read the outputs", err)
	}
	for _, o := range outs {
		if image.Pt(p.X, p.Y).In(image.Rect(o.X, o.Y, o.X+o.Width, o.Y+o.Height)) {
			return nil
		}
	}
	return fmt.Errorf("%w: point %d,%d is on no output", platform.ErrUnsupported, p.X, p.Y)
}

func checkButton(b platform.Button) error {
	if _, ok := evdevButton[b]; !ok {
		return fmt.Errorf("%w: mouse button %d (want 1 left, 2 middle or 3 right)", platform.ErrUnsupported, b)
	}
	return nil
}

// move puts the pointer at p.
func (in *input) move(ctx context.Context, p platform.Point) error {
	if err := in.ptr.MotionAbsolute(ctx, p.X, p.Y); err != nil {
		return wlErr("move the pointer", err)
	}
	in.mu.Lock()
	in.at, in.atKnown = p, true
	in.mu.Unlock()
	return nil
}

// Click moves the pointer to p and clicks button count times.
func (in *input) Click(ctx context.Context, p platform.Point, button platform.Button, count int) error {
	if err := checkButton(button); err != nil {
		return err
	}
	if count < 1 || count > 3 {
		return fmt.Errorf("%w: click count %d (want 1 to 3)", platform.ErrUnsupported, count)
	}
	if err := in.begin(ctx, "clicking"); err != nil {
		return err
	}
	defer in.end()
	if err := in.checkPoint(ctx, p); err != nil {
		return err
	}
	if err := in.move(ctx, p); err != nil {
		return err
	}
	b := pressed{button: button}
	for i := range count {
		if i > 0 {
			if err := pause(ctx, clickGap); err != nil {
				return err
			}
		}
		if err := in.send(ctx, b, true); err != nil {
			return err
		}
		if err := pause(ctx, pressHold); err != nil {
			return err
		}
		if err := in.send(ctx, b, false); err != nil {
			return err
		}
	}
	return nil
}

// Drag presses button at path[0], moves through the path in steps of at most dragStep pixels
// and releases at the last point; the button is released whatever happens (end).
func (in *input) Drag(ctx context.Context, path []platform.Point, button platform.Button) error {
	if len(path) == 0 {
		return fmt.Errorf("%w: empty drag path", platform.ErrUnsupported)
	}
	if err := checkButton(button); err != nil {
		return err
	}
	if err := in.begin(ctx, "dragging"); err != nil {
		return err
	}
	defer in.end()
	for _, p := range path {
		if err := in.checkPoint(ctx, p); err != nil {
			return err
		}
	}
	if err := in.move(ctx, path[0]); err != nil {
		return err
	}
	b := pressed{button: button}
	if err := in.send(ctx, b, true); err != nil {
		return err
	}
	for _, p := range platform.Densify(path, dragStep)[1:] {
		if err := in.move(ctx, p); err != nil {
			return err
		}
	}
	return in.send(ctx, b, false)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// keysyms resolves key names, failing on the first unknown one.
func keysyms(keys []string) ([]uint32, error) {
	syms := make([]uint32, len(keys))
	for i, k := range keys {
		s, err := keysym.FromName(k)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", platform.ErrUnsupported, err)
		}
		syms[i] = s
	}
	return syms, nil
}

// Chord presses the keys in order and releases them in reverse. Every keysym is on the keymap
// as it is (no Shift is added for upper-case letters: the keymap gives each its own key).
func (in *input) Chord(ctx context.Context, keys ...string) error {
	if len(keys) == 0 {
		return fmt.Errorf("%w: empty key chord", platform.ErrUnsupported)
	}
	syms, err := keysyms(keys)
	if err != nil {
		return err
	}
	if err := in.begin(ctx, "pressing keys"); err != nil {
		return err
	}
	defer in.end()
	if err := in.load(ctx, syms); err != nil {
		return err
	}
	for _, s := range syms {
		if err := in.send(ctx, pressed{key: s}, true); err != nil {
			return err
		}
	}
	for i := len(syms) - 1; i >= 0; i-- {
		if err := in.send(ctx, pressed{key: syms[i]}, false); err != nil {
			return err
		}
	}
	return nil
}

// Type types text literally through keymaps made for it, keymapSize distinct characters at a
// time. A cancelled Type stops between two characters.
func (in *input) Type(ctx context.Context, text string) error {
	var syms []uint32
	for _, r := range text {
		ks := keysym.ForText(r)
		if len(ks) == 0 {
			return fmt.Errorf("%w: character %U cannot be typed", platform.ErrUnsupported, r)
		}
		syms = append(syms, ks[0])
	}
	if len(syms) == 0 {
		return nil
	}
	if err := in.begin(ctx, "typing"); err != nil {
		return err
	}
	defer in.end()
	for len(syms) > 0 {
		// The longest prefix whose keysyms fit beside the base keymap goes on one keymap.
		var chunk []uint32
		n := 0
		for ; n < len(syms); n++ {
			if !slices.Contains(chunk, syms[n]) {
				if _, ok := in.placeOf(syms[n]); !ok && extras(chunk, in) >= spareKeys-len(in.heldKeys()) {
					break
				}
				chunk = append(chunk, syms[n])
			}
		}
		if err := in.load(ctx, chunk); err != nil {
			return err
		}
		for _, s := range syms[:n] {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("typing: %w", err)
			}
			if err := in.send(ctx, pressed{key: s}, true); err != nil {
				return err
			}
			if err := in.send(ctx, pressed{key: s}, false); err != nil {
				return err
			}
		}
		syms = syms[n:]
	}
	return nil
}

// Held lists the keys and buttons mcec holds down ("Shift_L", "button1"). Only mcec's own
// devices are known: a Wayland client cannot read another's.
func (in *input) Held(ctx context.Context) ([]string, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make([]string, 0, len(in.held))
	for _, h := range in.held {
		out = append(out, h.String())
	}
	return out, nil
}

// Press presses key and leaves it down until Release.
func (in *input) Press(ctx context.Context, key string) error { return in.hold(ctx, key, true) }

// Release releases a key that Press left down (a key that is not down is released harmlessly).
func (in *input) Release(ctx context.Context, key string) error { return in.hold(ctx, key, false) }

func (in *input) hold(ctx context.Context, key string, down bool) error {
	syms, err := keysyms([]string{key})
	if err != nil {
		return err
	}
	p := pressed{key: syms[0]}
	if err := in.begin(ctx, "holding a key"); err != nil {
		return err
	}
	defer in.end()
	if !down && !in.isHeld(p) {
		return nil
	}
	if err := in.load(ctx, syms); err != nil {
		return err
	}
	return in.latch(ctx, p, down)
}

// latch presses p to outlive its gesture, or releases a latched p.
func (in *input) latch(ctx context.Context, p pressed, down bool) error {
	if err := in.send(ctx, p, down); err != nil {
		return err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if down {
		in.latched = append(in.latched, p)
	} else if i := indexOf(in.latched, p); i >= 0 {
		in.latched = slices.Delete(in.latched, i, i+1)
	}
	return nil
}

// heldKeys lists the keys held now.
func (in *input) heldKeys() []uint32 {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.heldKeysLocked()
}

func (in *input) heldKeysLocked() []uint32 {
	var out []uint32
	for _, h := range in.held {
		if h.button == 0 {
			out = append(out, h.key)
		}
	}
	return out
}

// placeOf finds a keysym on the keyboard as it is now.
func (in *input) placeOf(sym uint32) (place, bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.lay.place(sym)
}

// extras counts the keysyms of chunk that are not on the keyboard yet.
func extras(chunk []uint32, in *input) int {
	n := 0
	for _, s := range chunk {
		if _, ok := in.placeOf(s); !ok {
			n++
		}
	}
	return n
}

func (in *input) isHeld(p pressed) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return indexOf(in.held, p) >= 0
}

// ButtonDown moves the pointer to p and presses button, leaving it down.
func (in *input) ButtonDown(ctx context.Context, p platform.Point, button platform.Button) error {
	return in.buttonHold(ctx, p, button, true)
}

// ButtonUp moves the pointer to p and releases button.
func (in *input) ButtonUp(ctx context.Context, p platform.Point, button platform.Button) error {
	return in.buttonHold(ctx, p, button, false)
}

func (in *input) buttonHold(ctx context.Context, p platform.Point, button platform.Button, down bool) error {
	if err := checkButton(button); err != nil {
		return err
	}
	if err := in.begin(ctx, "holding a button"); err != nil {
		return err
	}
	defer in.end()
	if err := in.checkPoint(ctx, p); err != nil {
		return err
	}
	if err := in.move(ctx, p); err != nil {
		return err
	}
	b := pressed{button: button}
	if !down && !in.isHeld(b) {
		return nil
	}
	return in.latch(ctx, b, down)
}

// MoveTo moves the pointer to p.
func (in *input) MoveTo(ctx context.Context, p platform.Point) error {
	if err := in.begin(ctx, "moving the pointer"); err != nil {
		return err
	}
	defer in.end()
	if err := in.checkPoint(ctx, p); err != nil {
		return err
	}
	return in.move(ctx, p)
}

// Pointer reports where mcec last put the pointer: wlroots tells no client where it is.
func (in *input) Pointer(ctx context.Context) (platform.Point, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if !in.atKnown {
		return platform.Point{}, fmt.Errorf("%w: a Wayland compositor does not tell clients where the pointer is; it is known once mcec has moved it (click, move)",
			platform.ErrCompositorUnsupported)
	}
	return in.at, nil
}

// Scroll turns the wheel where the pointer is, one click per unit: dy > 0 down, dx > 0 right.
func (in *input) Scroll(ctx context.Context, dx, dy int) error {
	if abs(dx) > maxScroll || abs(dy) > maxScroll {
		return fmt.Errorf("%w: scroll of %d,%d clicks (at most %d each way)", platform.ErrUnsupported, dx, dy, maxScroll)
	}
	if dx == 0 && dy == 0 {
		return nil
	}
	if err := in.begin(ctx, "scrolling"); err != nil {
		return err
	}
	defer in.end()
	if dy != 0 {
		if err := in.ptr.Axis(ctx, true, dy); err != nil {
			return wlErr("scroll", err)
		}
	}
	if dx != 0 {
		if err := in.ptr.Axis(ctx, false, dx); err != nil {
			return wlErr("scroll", err)
		}
	}
	return nil
}
