package x11

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"

	"github.com/mcec/mcec/internal/keysym"
	"github.com/mcec/mcec/internal/platform"
)

const (
	// releaseLimit bounds the clean-up of a gesture (releases, keymap restore), which runs on a
	// fresh context because the caller's may be what ended the gesture.
	releaseLimit = 2 * time.Second
	// appSyncLimit bounds the wait for an application to answer _NET_WM_PING; an application
	// that is busy longer is treated as having seen the input.
	appSyncLimit = 250 * time.Millisecond
	// remapSettle is what a client that cannot be pinged gets to translate keys typed through
	// remapped keycodes before they change again: Xlib fetches the new mapping only when it reads
	// a key after the MappingNotify, so a restore that comes first makes it read the old one.
	// With no wait GTK loses most characters; with 5 ms it still lost one in 40 on a loaded
	// machine (TestMeasureRemapSettle); with 30 ms xterm (no _NET_WM_PING) lost all three
	// remapped characters of a line while two CPU-bound test suites ran beside it. Only typing
	// that needs a remap, into a client without the ping, pays it.
	remapSettle = 200 * time.Millisecond
	// dragStep is the longest pointer jump within a drag, in pixels.
	dragStep = 8
	// typeBatch is how many characters go to the server between round trips: a cancelled Type
	// stops within one batch.
	typeBatch = 64
)

// Core event types, as XTEST FakeInput takes them.
const (
	fakeKeyPress      = xproto.KeyPress
	fakeKeyRelease    = xproto.KeyRelease
	fakeButtonPress   = xproto.ButtonPress
	fakeButtonRelease = xproto.ButtonRelease
	fakeMotion        = xproto.MotionNotify
)

var errGestureEnded = errors.New("the gesture already ended")

// inputState is the connection's XTEST and keyboard state.
type inputState struct {
	gesture chan struct{} // capacity 1: one gesture at a time, waiters can give up

	// mu is held while input requests are written, so they reach the server in gesture order
	// even when an abandoned call (its caller's ctx ended) is still writing.
	// primed: the connection's first gesture has sent its priming motion (see prime).
	primed atomic.Bool

	mu   sync.Mutex
	held []heldInput // pressed through XTEST and not released, in press order; under mu
	// latched are presses meant to outlive their gesture (Press, ButtonDown); gesture end leaves
	// them down. Under mu.
	latched []heldInput

	km      atomic.Pointer[keymap]
	kmGen   atomic.Uint64 // bumped on every MappingNotify
	pingSeq atomic.Uint32

	spareLimit int            // tests: use at most this many spare keycodes (0: all)
	settle     *time.Duration // tests: wait this long instead of pinging before a restore
}

func (s *inputState) init() {
	s.gesture = make(chan struct{}, 1)
	s.pingSeq.Store(0x6d636563) // "mcec": far from the window manager's own small ping ids
}

type heldInput struct {
	button bool
	code   byte
}

// inputOp is one request of a gesture: a FakeInput event, or the remapping of a keycode.
type inputOp struct {
	typ    byte // fake*; 0 for a remap
	detail byte // keycode or button
	x, y   int16
	remap  []xproto.Keysym // the keycode's new keysyms
	orig   []xproto.Keysym // and the ones to restore
	latch  bool            // a press that stays down after the gesture (see inputState.latched)
}

// gesture is one atomic use of XTEST. end releases whatever it left pressed and restores the
// keycodes it remapped, in that order, whatever happened.
type gesture struct {
	c    *Conn
	what string
	// Under c.in.mu (never taken outside await: a writer blocked on a stuck server holds it):
	done     bool                               // later writes of an abandoned call are dropped
	remapped map[xproto.Keycode][]xproto.Keysym // original keysyms of keycodes remapped

	remapping atomic.Bool // set with the first remap
}

// Input returns the XTEST input synthesizer of this connection.
func (c *Conn) Input() platform.Input { return input{c} }

type input struct{ c *Conn }

func (c *Conn) beginGesture(ctx context.Context, what string) (*gesture, error) {
	if err := c.alive(what); err != nil {
		return nil, err
	}
	if !c.ext.XTest {
		return nil, fmt.Errorf("%w: %s: the X server has no XTEST extension", platform.ErrDisplayUnavailable, what)
	}
	select {
	case c.in.gesture <- struct{}{}:
		g := &gesture{c: c, what: what}
		if !c.in.primed.Load() {
			g.prime(ctx)
		}
		return g, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("%s: waiting for another gesture to finish: %w", what, ctx.Err())
	case <-c.dead:
		return nil, c.alive(what)
	}
}

// send writes ops in order and makes a round trip, so the server has processed them when it
// returns (applications get the events asynchronously; see appSync).
func (g *gesture) send(ctx context.Context, ops ...inputOp) error {
	c := g.c
	err := c.await(ctx, g.what, func() error {
		c.in.mu.Lock()
		if g.done {
			c.in.mu.Unlock()
			return errGestureEnded
		}
		for _, op := range ops {
			g.writeLocked(op)
		}
		c.in.mu.Unlock()
		_, err := xproto.GetInputFocus(c.xc).Reply()
		return err
	})
	return xerr(err, platform.ErrDisplayUnavailable, "%s", g.what)
}

// writeLocked writes one op and keeps the held list and the remap record. Under c.in.mu.
func (g *gesture) writeLocked(op inputOp) {
	c := g.c
	if op.typ == 0 {
		if g.remapped == nil {
			g.remapped = map[xproto.Keycode][]xproto.Keysym{}
			g.remapping.Store(true)
		}
		if _, ok := g.remapped[xproto.Keycode(op.detail)]; !ok {
			g.remapped[xproto.Keycode(op.detail)] = op.orig
		}
		xproto.ChangeKeyboardMapping(c.xc, 1, xproto.Keycode(op.detail), byte(len(op.remap)), op.remap)
		return
	}
	root := xproto.Window(0)
	if op.typ == fakeMotion {
		root = c.scr.root
	}
	xtest.FakeInput(c.xc, op.typ, op.detail, 0, root, op.x, op.y, 0)
	switch op.typ {
	case fakeKeyPress, fakeButtonPress:
		h := heldInput{button: op.typ == fakeButtonPress, code: op.detail}
		if op.latch {
			c.in.latched = append(c.in.latched, h)
		} else {
			c.in.held = append(c.in.held, h)
		}
	case fakeKeyRelease, fakeButtonRelease:
		h := heldInput{button: op.typ == fakeButtonRelease, code: op.detail}
		if !unhold(&c.in.held, h) {
			unhold(&c.in.latched, h)
		}
	}
}

// end finishes the gesture: it releases what is still pressed (in reverse order), lets the
// focused application translate the keys it got, restores remapped keycodes, and frees the
// gesture lock. It runs on a fresh, bounded context.
func (g *gesture) end() {
	c := g.c
	defer func() { <-c.in.gesture }()
	ctx, cancel := context.WithTimeout(context.Background(), releaseLimit)
	defer cancel()
	_ = c.await(ctx, "releasing input", func() error {
		c.in.mu.Lock()
		g.done = true
		for i := len(c.in.held) - 1; i >= 0; i-- {
			h := c.in.held[i]
			typ := byte(fakeKeyRelease)
			if h.button {
				typ = fakeButtonRelease
			}
			xtest.FakeInput(c.xc, typ, h.code, 0, 0, 0, 0, 0)
		}
		c.in.held = c.in.held[:0]
		c.in.mu.Unlock()
		_, err := xproto.GetInputFocus(c.xc).Reply()
		return err
	})
	g.restore(ctx)
}

// restore gives remapped keycodes their keysyms back, after the focused application has read
// the keys typed through them: it translates a key with the mapping current when it reads the
// event, not when the key was pressed.
func (g *gesture) restore(ctx context.Context) {
	c := g.c
	if !g.remapping.Load() {
		return
	}
	if c.in.settle != nil {
		sleepCtx(ctx, *c.in.settle)
	} else {
		c.appSync(ctx, c.focusedClient(ctx))
	}
	_ = c.await(ctx, "restoring the keyboard mapping", func() error {
		c.in.mu.Lock()
		g.done = true // in case the release above gave up before it ran
		for code, syms := range g.remapped {
			xproto.ChangeKeyboardMapping(c.xc, 1, code, byte(len(syms)), syms)
		}
		g.remapped = nil
		c.in.mu.Unlock()
		_, err := xproto.GetInputFocus(c.xc).Reply()
		return err
	})
}

// checkPoint rejects points outside the screen, which the server would silently clamp.
func (c *Conn) checkPoint(p platform.Point) error {
	b := c.ScreenBounds()
	if p.X < b.X || p.Y < b.Y || p.X >= b.X+b.Width || p.Y >= b.Y+b.Height {
		return fmt.Errorf("%w: point %d,%d is outside the screen %dx%d", platform.ErrUnsupported, p.X, p.Y, b.Width, b.Height)
	}
	return nil
}

func checkButton(b platform.Button) error {
	if b < 1 || b > 9 {
		return fmt.Errorf("%w: mouse button %d (want 1 to 9)", platform.ErrUnsupported, b)
	}
	return nil
}

// prime makes the first XTEST event of this connection count. The first event from the XTEST
// device switches the master pointer's slave device, and GTK was seen to drop the event that
// caused the switch (xdotool's first click on a fresh desktop; shared/spec/linux-desktop-notes.md).
// Clicks here move before they press, and the loss did not reproduce through them (even with
// the pointer already on the target); the priming is cheap insurance for every gesture kind: the
// first gesture starts with a one-pixel motion there and back and waits until the application
// under the pointer has read it. Once per connection: later switches (a user's physical mouse on
// an attached desktop) end on the motion that comes before every press.
func (g *gesture) prime(ctx context.Context) {
	c := g.c
	var at platform.Point
	err := c.await(ctx, "priming input", func() error {
		r, err := xproto.QueryPointer(c.xc, c.scr.root).Reply()
		if err == nil {
			at = platform.Point{X: int(r.RootX), Y: int(r.RootY)}
		}
		return err
	})
	if err != nil {
		return // the gesture itself will say what is wrong
	}
	nudge := at
	if nudge.X > 0 {
		nudge.X--
	} else {
		nudge.X++
	}
	if g.send(ctx, motion(nudge), motion(at)) != nil {
		return
	}
	c.appSync(ctx, c.clientAt(ctx, at))
	c.in.primed.Store(true)
}

func motion(p platform.Point) inputOp {
	return inputOp{typ: fakeMotion, x: int16(p.X), y: int16(p.Y)}
}

// Click moves the pointer to p and clicks button count times in one burst, so the presses fall
// well within any double-click time. It does not raise the window under p: call Raise (or
// WindowOp foreground) first when p belongs to a window that may be covered. A tooltip over p
// is given time to close before the press (moveToPress).
//
// It returns once the window manager has seen the click: a window manager that binds clicks
// into windows (openbox's click-to-focus) holds a synchronous grab, and the server keeps the
// pointer frozen until the window manager replays the press. Input sent meanwhile queues behind
// it and the held-back release takes the pointer position of whatever moved it next.
func (in input) Click(ctx context.Context, p platform.Point, button platform.Button, count int) error {
	c := in.c
	if err := c.checkPoint(p); err != nil {
		return err
	}
	if err := checkButton(button); err != nil {
		return err
	}
	if count < 1 || count > 3 {
		return fmt.Errorf("%w: click count %d (want 1 to 3)", platform.ErrUnsupported, count)
	}
	g, err := c.beginGesture(ctx, "clicking")
	if err != nil {
		return err
	}
	defer g.end()
	if err := g.moveToPress(ctx, p); err != nil {
		return err
	}
	var ops []inputOp
	for range count {
		ops = append(ops,
			inputOp{typ: fakeButtonPress, detail: byte(button)},
			inputOp{typ: fakeButtonRelease, detail: byte(button)})
	}
	if err := g.send(ctx, ops...); err != nil {
		return err
	}
	_, err = c.wmSync(ctx)
	return err
}

// Drag presses button at path[0], moves through the path in steps of at most dragStep pixels,
// each step processed by the server before the next, and releases at the last point. The
// application under the start point is pinged after the press, after the first steps (where a
// toolkit decides a drag has begun and grabs the pointer) and before the release, so it has
// read what came before each of them.
func (in input) Drag(ctx context.Context, path []platform.Point, button platform.Button) error {
	c := in.c
	if len(path) == 0 {
		return fmt.Errorf("%w: empty drag path", platform.ErrUnsupported)
	}
	for _, p := range path {
		if err := c.checkPoint(p); err != nil {
			return err
		}
	}
	if err := checkButton(button); err != nil {
		return err
	}
	g, err := c.beginGesture(ctx, "dragging")
	if err != nil {
		return err
	}
	defer g.end()
	if err := g.moveToPress(ctx, path[0]); err != nil {
		return err
	}
	app := c.clientAt(ctx, path[0])
	if err := g.send(ctx, inputOp{typ: fakeButtonPress, detail: byte(button)}); err != nil {
		return err
	}
	// The window manager may hold the press (see Click) before the application gets it.
	if _, err := c.wmSync(ctx); err != nil {
		return err
	}
	c.appSync(ctx, app)
	steps := platform.Densify(path, dragStep)
	for i, p := range steps[1:] {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("dragging: %w", err)
		}
		if err := g.send(ctx, motion(p)); err != nil {
			return err
		}
		if i == 2 {
			c.appSync(ctx, app)
		}
	}
	c.appSync(ctx, app)
	if err := g.send(ctx, inputOp{typ: fakeButtonRelease, detail: byte(button)}); err != nil {
		return err
	}
	_, err = c.wmSync(ctx)
	return err
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// Chord presses the keys in order and releases them in reverse. A keysym reachable only with
// Shift gets Shift pressed just before it unless the chord holds a Shift already; a keysym
// missing from the keymap is pressed through a spare keycode remapped for the chord.
func (in input) Chord(ctx context.Context, keys ...string) error {
	c := in.c
	if len(keys) == 0 {
		return fmt.Errorf("%w: empty key chord", platform.ErrUnsupported)
	}
	syms := make([]uint32, len(keys))
	hasShift := false
	for i, k := range keys {
		s, err := keysym.FromName(k)
		if err != nil {
			return fmt.Errorf("%w: %v", platform.ErrUnsupported, err)
		}
		syms[i] = s
		hasShift = hasShift || s == 0xffe1 || s == 0xffe2 // Shift_L, Shift_R
	}
	g, err := c.beginGesture(ctx, "pressing keys")
	if err != nil {
		return err
	}
	defer g.end()
	km, err := c.keymap(ctx, true)
	if err != nil {
		return xerr(err, platform.ErrDisplayUnavailable, "pressing keys")
	}
	need := map[uint32]bool{}
	for _, s := range syms {
		need[s] = true
	}
	spares := c.limitSpares(km.spares(need))
	var ops, releases []inputOp
	used := map[uint32]xproto.Keycode{}
	for i, s := range syms {
		pos, ok := km.lookup(s)
		if !ok {
			code, seen := used[s]
			if !seen {
				if len(spares) == 0 {
					return fmt.Errorf("%w: no spare keycode left to press %s", platform.ErrUnsupported, keys[i])
				}
				code, spares = spares[0], spares[1:]
				used[s] = code
				ops = append(ops, km.remapOp(code, s))
			}
			pos = keyPos{code: code}
		}
		if pos.shift && !hasShift && km.shift != 0 {
			ops = append(ops, inputOp{typ: fakeKeyPress, detail: byte(km.shift)})
			releases = append(releases, inputOp{typ: fakeKeyRelease, detail: byte(km.shift)})
		}
		ops = append(ops, inputOp{typ: fakeKeyPress, detail: byte(pos.code)})
		releases = append(releases, inputOp{typ: fakeKeyRelease, detail: byte(pos.code)})
	}
	for i := len(releases) - 1; i >= 0; i-- {
		ops = append(ops, releases[i])
	}
	return g.send(ctx, ops...)
}

func (c *Conn) limitSpares(s []xproto.Keycode) []xproto.Keycode {
	if c.in.spareLimit > 0 && len(s) > c.in.spareLimit {
		return s[:c.in.spareLimit]
	}
	return s
}

// typeSegment is a run of keystrokes typed with one set of remapped keycodes.
type typeSegment struct {
	remaps  []inputOp
	strokes []keyPos
}

// Type types text: each character through the key (and Shift level) that produces it in the
// current keymap, else through a spare keycode remapped to the character's keysym. When the
// text needs more distinct missing characters than there are spare keycodes, it is typed in
// segments, and the application is pinged before keycodes are remapped again.
func (in input) Type(ctx context.Context, text string) error {
	c := in.c
	runes := []rune(text)
	for _, r := range runes {
		if keysym.ForText(r) == nil {
			return fmt.Errorf("%w: cannot type control character U+%04X", platform.ErrUnsupported, r)
		}
	}
	if len(runes) == 0 {
		return nil
	}
	g, err := c.beginGesture(ctx, "typing")
	if err != nil {
		return err
	}
	defer g.end()
	km, capsLock, err := c.keyboardState(ctx)
	if err != nil {
		return xerr(err, platform.ErrDisplayUnavailable, "typing")
	}
	segs, err := planType(km, runes, capsLock, c.limitSpares(km.spares(neededSyms(runes))))
	if err != nil {
		return err
	}
	for i, seg := range segs {
		if i > 0 && len(seg.remaps) > 0 {
			c.appSync(ctx, c.focusedClient(ctx))
		}
		ops := seg.remaps
		for j, st := range seg.strokes {
			if st.shift {
				ops = append(ops, inputOp{typ: fakeKeyPress, detail: byte(km.shift)})
			}
			ops = append(ops, inputOp{typ: fakeKeyPress, detail: byte(st.code)}, inputOp{typ: fakeKeyRelease, detail: byte(st.code)})
			if st.shift {
				ops = append(ops, inputOp{typ: fakeKeyRelease, detail: byte(km.shift)})
			}
			if (j+1)%typeBatch == 0 || j == len(seg.strokes)-1 {
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("typing: %w", err)
				}
				if err := g.send(ctx, ops...); err != nil {
					return err
				}
				ops = nil
			}
		}
	}
	return nil
}

// keyboardState reads the keymap and whether Caps Lock is on.
func (c *Conn) keyboardState(ctx context.Context) (*keymap, bool, error) {
	var lock bool
	qp := func() error {
		r, err := xproto.QueryPointer(c.xc, c.scr.root).Reply()
		if err != nil {
			return err
		}
		lock = r.Mask&xproto.ModMaskLock != 0
		return nil
	}
	if err := c.await(ctx, "reading the keyboard state", qp); err != nil {
		return nil, false, err
	}
	km, err := c.keymap(ctx, true)
	return km, lock, err
}

func neededSyms(runes []rune) map[uint32]bool {
	need := map[uint32]bool{}
	for _, r := range runes {
		for _, s := range keysym.ForText(r) {
			need[s] = true
		}
	}
	return need
}

// planType turns text into keystrokes and the remaps they need, in segments of at most
// len(spares) distinct remapped characters.
func planType(km *keymap, runes []rune, capsLock bool, spares []xproto.Keycode) ([]typeSegment, error) {
	var segs []typeSegment
	seg := typeSegment{}
	assigned := map[uint32]xproto.Keycode{}
	free := spares
	for i, r := range runes {
		if r == '\r' && i+1 < len(runes) && runes[i+1] == '\n' {
			continue // CRLF is one Return
		}
		syms := keysym.ForText(r)
		found := false
		for _, s := range syms {
			if pos, ok := km.lookup(s); ok {
				if pos.shift && km.shift == 0 {
					continue
				}
				if capsLock && km.cased(pos.code) {
					pos.shift = !pos.shift
				}
				seg.strokes = append(seg.strokes, pos)
				found = true
				break
			}
		}
		if found {
			continue
		}
		s := syms[0]
		code, ok := assigned[s]
		if !ok {
			if len(spares) == 0 {
				return nil, fmt.Errorf("%w: no spare keycode to type %q", platform.ErrUnsupported, r)
			}
			if len(free) == 0 {
				segs = append(segs, seg)
				seg, assigned, free = typeSegment{}, map[uint32]xproto.Keycode{}, spares
			}
			code, free = free[0], free[1:]
			assigned[s] = code
			seg.remaps = append(seg.remaps, km.remapOp(code, s))
		}
		seg.strokes = append(seg.strokes, keyPos{code: code})
	}
	return append(segs, seg), nil
}

// Held lists the keys (by the keysym of their first level) and buttons ("button1") that the
// server has down now, whoever pressed them.
func (in input) Held(ctx context.Context) ([]string, error) {
	c := in.c
	var keys [32]byte
	var mask uint16
	err := c.await(ctx, "reading held keys", func() error {
		kc := xproto.QueryKeymap(c.xc)
		pc := xproto.QueryPointer(c.xc, c.scr.root)
		kr, err := kc.Reply()
		if err != nil {
			return err
		}
		pr, err := pc.Reply()
		if err != nil {
			return err
		}
		copy(keys[:], kr.Keys)
		mask = pr.Mask
		return nil
	})
	if err != nil {
		return nil, xerr(err, platform.ErrDisplayUnavailable, "reading held keys")
	}
	var out []string
	var km *keymap
	for code := range 256 {
		if keys[code/8]&(1<<(code%8)) == 0 {
			continue
		}
		if km == nil {
			if km, err = c.keymap(ctx, false); err != nil {
				return nil, xerr(err, platform.ErrDisplayUnavailable, "reading held keys")
			}
		}
		name := fmt.Sprintf("keycode %d", code)
		for _, s := range km.symsOf(xproto.Keycode(code)) {
			if s != 0 {
				name = keysym.Name(uint32(s))
				break
			}
		}
		out = append(out, name)
	}
	for b := range 5 {
		if mask&(xproto.ButtonMask1<<b) != 0 {
			out = append(out, fmt.Sprintf("button%d", b+1))
		}
	}
	return out, nil
}

// appSync waits until the client owning top-level window w has read every event the server
// sent it before now: a _NET_WM_PING goes behind them in its queue, and the client answers it
// when it gets there. Without a window that supports the ping it waits remapSettle instead.
// It gives up silently after appSyncLimit: a busy application then simply gets the events later.
func (c *Conn) appSync(ctx context.Context, w xproto.Window) {
	ctx, cancel := context.WithTimeout(ctx, appSyncLimit)
	defer cancel()
	if w == 0 || !c.supportsPing(ctx, w) {
		sleepCtx(ctx, remapSettle)
		return
	}
	token := c.in.pingSeq.Add(1)
	pong := make(chan struct{})
	c.mu.Lock()
	c.pongs[token] = pong
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pongs, token)
		c.mu.Unlock()
	}()
	ev := xproto.ClientMessageEvent{
		Format: 32, Window: w, Type: c.atoms.wmProtocols,
		Data: xproto.ClientMessageDataUnionData32New([]uint32{uint32(c.atoms.netWMPing), token, uint32(w), 0, 0}),
	}
	// No event mask: the event goes to the client that created w.
	if err := c.await(ctx, "pinging an application", func() error {
		return xproto.SendEventChecked(c.xc, false, w, 0, string(ev.Bytes())).Check()
	}); err != nil {
		return
	}
	select {
	case <-pong:
	case <-ctx.Done():
	case <-c.dead:
	}
}

// supportsPing reports whether w lists _NET_WM_PING in WM_PROTOCOLS.
func (c *Conn) supportsPing(ctx context.Context, w xproto.Window) bool {
	ok := false
	_ = c.await(ctx, "pinging an application", func() error {
		r, err := xproto.GetProperty(c.xc, false, w, c.atoms.wmProtocols, xproto.AtomAtom, 0, 32).Reply()
		if err != nil {
			return err
		}
		for _, a := range prop32(r) {
			ok = ok || xproto.Atom(a) == c.atoms.netWMPing
		}
		return nil
	})
	return ok
}

// focusedClient is the window that receives typed keys: the active window (0 when unknown).
func (c *Conn) focusedClient(ctx context.Context) xproto.Window {
	var w xproto.Window
	_ = c.await(ctx, "finding the focused window", func() error {
		r, err := xproto.GetProperty(c.xc, false, c.scr.root, c.atoms.netActiveWindow, xproto.AtomWindow, 0, 1).Reply()
		if err != nil {
			return err
		}
		if v := prop32(r); len(v) > 0 {
			w = xproto.Window(v[0])
		}
		return nil
	})
	return w
}

// clientAt finds the client window (the one with WM_STATE) under root point p by walking down
// from the top-level window there (0 when p is on the root, a decoration or an unmanaged window).
func (c *Conn) clientAt(ctx context.Context, p platform.Point) xproto.Window {
	var found xproto.Window
	_ = c.await(ctx, "finding the window under the pointer", func() error {
		r, err := xproto.TranslateCoordinates(c.xc, c.scr.root, c.scr.root, int16(p.X), int16(p.Y)).Reply()
		if err != nil {
			return err
		}
		w := r.Child
		for depth := 0; w != 0 && depth < 6; depth++ {
			st := xproto.GetProperty(c.xc, false, w, c.atoms.wmState, xproto.GetPropertyTypeAny, 0, 0)
			tc := xproto.TranslateCoordinates(c.xc, c.scr.root, w, int16(p.X), int16(p.Y))
			sr, err1 := st.Reply()
			tr, err2 := tc.Reply()
			if err1 != nil || err2 != nil {
				return nil // gone meanwhile
			}
			if sr.Type != xproto.AtomNone {
				found = w
				return nil
			}
			w = tr.Child
		}
		return nil
	})
	return found
}
