package x11

import (
	"context"
	"fmt"
	"time"

	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/platform"
)

const (
	// opLimit is how long the window manager gets to carry out one request.
	opLimit = 2 * time.Second
	// opPoll re-reads the window should an event not come (a window manager that changes
	// nothing sends none).
	opPoll = 50 * time.Millisecond
	// geomSlack is the tolerated difference, in pixels, between a requested and the resulting
	// client-area position or size.
	geomSlack = 1
)

// EWMH and ICCCM values.
const (
	sourcePager        = 2 // source indication: a pager, obeyed without focus-stealing checks
	gravityNorthWest   = 1
	gravityStatic      = 10
	stateRemove        = 0
	stateAdd           = 1
	iconicState        = 3
	moveResizeX        = 1 << 8
	moveResizeY        = 1 << 9
	moveResizeW        = 1 << 10
	moveResizeH        = 1 << 11
	hintPMinSize       = 1 << 4
	hintPMaxSize       = 1 << 5
	hintPResizeInc     = 1 << 6
	hintPBaseSize      = 1 << 8
	hintPWinGravity    = 1 << 9
	maxX11Coordinate   = 1<<15 - 1
	maxX11WindowLength = 1<<15 - 1
)

// WindowOp moves, resizes, minimizes, maximizes, restores or activates a managed window and
// waits until the window manager has done it, as Window reports it. Move and resize take the
// client area's position and size (decorations excluded). An unknown handle gives
// ErrWindowClosed; a window manager that does not comply within opLimit gives ErrActionFailed
// (ErrForeground for foreground).
func (c *Conn) WindowOp(ctx context.Context, handle uint32, op platform.WindowOp) error {
	switch op.Kind {
	case platform.OpMove:
		if abs(op.X) > maxX11Coordinate || abs(op.Y) > maxX11Coordinate {
			return fmt.Errorf("%w: position %d,%d is outside X11 coordinates", platform.ErrUnsupported, op.X, op.Y)
		}
	case platform.OpResize:
		if op.Width < 1 || op.Height < 1 || op.Width > maxX11WindowLength || op.Height > maxX11WindowLength {
			return fmt.Errorf("%w: size %dx%d (want 1 to %d a side)", platform.ErrUnsupported, op.Width, op.Height, maxX11WindowLength)
		}
	case platform.OpMinimize, platform.OpMaximize, platform.OpRestore, platform.OpActivate:
	default:
		return fmt.Errorf("%w: unknown window operation %q", platform.ErrUnsupported, op.Kind)
	}
	if op.Kind == platform.OpActivate {
		return c.Raise(ctx, handle)
	}
	ww, err := c.watchWindow(ctx, xproto.Window(handle))
	if err != nil {
		return err
	}
	defer ww.close()
	switch op.Kind {
	case platform.OpMove, platform.OpResize:
		return ww.moveResize(ctx, op)
	case platform.OpMinimize:
		return ww.minimize(ctx)
	case platform.OpMaximize:
		if err := ww.deiconify(ctx); err != nil {
			return err
		}
		return ww.setMaximized(ctx, true)
	default: // restore
		if err := ww.deiconify(ctx); err != nil {
			return err
		}
		return ww.setMaximized(ctx, false)
	}
}

// Raise activates the window (de-iconifying it) and waits until it is the active window and
// the window manager has raised it, so a click inside it reaches it unless the window manager
// keeps something above it (a panel, the window's own dialog, an always-on-top window). When
// the window is active and no ordinary window is stacked above it, it only reads (about
// 0.3 ms). Failure is ErrForeground.
func (c *Conn) Raise(ctx context.Context, handle uint32) error {
	ww, err := c.watchWindow(ctx, xproto.Window(handle))
	if err != nil {
		return err
	}
	defer ww.close()
	return ww.raise(ctx)
}

// winWatch is an operation in progress on one client window: its events and the root's wake it.
type winWatch struct {
	c          *Conn
	w          xproto.Window
	ev, rootEv <-chan struct{}
	cancel     []func()
	info       platform.Window // last description read
}

// watchWindow subscribes to the events of w and of the root, selects them on w, and reads w
// (ErrWindowClosed when it is not a managed window).
func (c *Conn) watchWindow(ctx context.Context, w xproto.Window) (*winWatch, error) {
	ww := &winWatch{c: c, w: w}
	var cancel func()
	ww.ev, cancel = c.subscribe(w)
	ww.cancel = append(ww.cancel, cancel)
	ww.rootEv, cancel = c.subscribe(c.scr.root)
	ww.cancel = append(ww.cancel, cancel)
	// Checked first: the mask must never land on the root (it would replace rootEventMask).
	info, err := c.Window(ctx, uint32(w))
	if err == nil {
		err = c.await(ctx, "watching a window", func() error {
			return xproto.ChangeWindowAttributesChecked(c.xc, w, xproto.CwEventMask, []uint32{clientEventMask}).Check()
		})
	}
	if err == nil {
		// Read again: a change between the first read and the selection sent no event.
		info, err = c.Window(ctx, uint32(w))
	}
	ww.info = info
	if err != nil {
		ww.close()
		return nil, xerr(err, platform.ErrDisplayUnavailable, "window 0x%x", w)
	}
	return ww, nil
}

func (ww *winWatch) close() {
	for _, f := range ww.cancel {
		f()
	}
}

// wait re-reads the window on each event about it or the root (and every opPoll) until cond
// holds, for at most limit. It reports whether cond held; errors are ctx's or a closed window.
func (ww *winWatch) wait(ctx context.Context, limit time.Duration, cond func(platform.Window) (bool, error)) (bool, error) {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	poll := time.NewTicker(opPoll)
	defer poll.Stop()
	for {
		ok, err := cond(ww.info)
		if err != nil || ok {
			return ok, err
		}
		select {
		case <-ww.ev:
		case <-ww.rootEv:
		case <-poll.C:
		case <-deadline.C:
			return false, nil
		case <-ctx.Done():
			return false, fmt.Errorf("window 0x%x: %w", ww.w, ctx.Err())
		}
		if ww.info, err = ww.c.Window(ctx, uint32(ww.w)); err != nil {
			return false, err
		}
	}
}

// clientMessage sends an EWMH/ICCCM request about the window to the window manager.
func (ww *winWatch) clientMessage(ctx context.Context, typ xproto.Atom, data ...uint32) error {
	c := ww.c
	d := make([]uint32, 5)
	copy(d, data)
	ev := xproto.ClientMessageEvent{Format: 32, Window: ww.w, Type: typ, Data: xproto.ClientMessageDataUnionData32New(d)}
	err := c.await(ctx, "sending a window manager request", func() error {
		return xproto.SendEventChecked(c.xc, false, c.scr.root,
			xproto.EventMaskSubstructureNotify|xproto.EventMaskSubstructureRedirect, string(ev.Bytes())).Check()
	})
	return xerr(err, platform.ErrDisplayUnavailable, "window 0x%x", ww.w)
}

// settle waits until the window manager has finished what it was asked (see wmSync) and
// re-reads the window.
func (ww *winWatch) settle(ctx context.Context) error {
	if _, err := ww.c.wmSync(ctx); err != nil {
		return err
	}
	info, err := ww.c.Window(ctx, uint32(ww.w))
	if err == nil {
		ww.info = info
	}
	return err
}

func (ww *winWatch) failed(what string) error {
	return fmt.Errorf("%w: the window manager did not %s window 0x%x within %v (now %+v)", platform.ErrActionFailed, what, ww.w, opLimit, ww.info)
}

func (ww *winWatch) raise(ctx context.Context) error {
	c := ww.c
	if !ww.info.Minimized && ww.info.Focused {
		if top, err := c.onTop(ctx, ww.w); err != nil || top {
			return err
		}
	}
	// The active window goes in data[2], as EWMH asks; CurrentTime is fine with source 2.
	if err := ww.clientMessage(ctx, c.atoms.netActiveWindow, sourcePager, xproto.TimeCurrentTime, uint32(c.focusedClient(ctx))); err != nil {
		return err
	}
	ok, err := ww.wait(ctx, opLimit, func(w platform.Window) (bool, error) { return w.Focused && !w.Minimized, nil })
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: the window manager did not activate window 0x%x within %v (active window 0x%x, minimized %v)",
			platform.ErrForeground, ww.w, opLimit, c.focusedClient(ctx), ww.info.Minimized)
	}
	// Focus can come before the raise (or, for an already active window, be there all along):
	// the window manager has raised it once it has handled the request. Whatever it keeps
	// above (panels, the window's own dialogs, always-on-top windows) stays there.
	return ww.settle(ctx)
}

// onTop reports whether no visible managed window is stacked above w, except windows kept
// above all others (_NET_WM_STATE_ABOVE), which raising cannot pass.
func (c *Conn) onTop(ctx context.Context, w xproto.Window) (bool, error) {
	top := false
	err := c.await(ctx, "reading the stacking order", func() error {
		r, err := xproto.GetProperty(c.xc, false, c.scr.root, c.atoms.netClientListStacking, xproto.AtomWindow, 0, maxClients).Reply()
		if err != nil {
			return err
		}
		list := prop32(r)
		i := len(list) - 1
		for ; i >= 0 && xproto.Window(list[i]) != w; i-- {
		}
		if i < 0 {
			top = len(list) == 0 // a window manager without the stacking list: nothing to check
			return nil
		}
		above := list[i+1:]
		cookies := make([]xproto.GetPropertyCookie, len(above))
		for k, o := range above {
			cookies[k] = xproto.GetProperty(c.xc, false, xproto.Window(o), c.atoms.netWMState, xproto.AtomAtom, 0, maxStateLong)
		}
		top = true
		for _, ck := range cookies {
			sr, err := ck.Reply()
			if err != nil {
				continue // gone
			}
			keptAbove, hidden := false, false
			for _, s := range prop32(sr) {
				keptAbove = keptAbove || xproto.Atom(s) == c.atoms.stateAbove
				hidden = hidden || xproto.Atom(s) == c.atoms.stateHidden
			}
			if !keptAbove && !hidden {
				top = false
			}
		}
		return nil
	})
	return top, xerr(err, platform.ErrDisplayUnavailable, "window 0x%x", w)
}

func (ww *winWatch) minimize(ctx context.Context) error {
	if ww.info.Minimized {
		return nil
	}
	if err := ww.clientMessage(ctx, ww.c.atoms.wmChangeState, iconicState); err != nil {
		return err
	}
	ok, err := ww.wait(ctx, opLimit, func(w platform.Window) (bool, error) { return w.Minimized, nil })
	if err != nil {
		return err
	}
	if ok {
		return ww.settle(ctx)
	}
	return ww.failed("minimize")
}

// deiconify activates a minimized window, which EWMH window managers answer by mapping it.
func (ww *winWatch) deiconify(ctx context.Context) error {
	if !ww.info.Minimized {
		return nil
	}
	c := ww.c
	if err := ww.clientMessage(ctx, c.atoms.netActiveWindow, sourcePager, xproto.TimeCurrentTime, uint32(c.focusedClient(ctx))); err != nil {
		return err
	}
	ok, err := ww.wait(ctx, opLimit, func(w platform.Window) (bool, error) { return !w.Minimized, nil })
	if err != nil {
		return err
	}
	if ok {
		return ww.settle(ctx)
	}
	return ww.failed("restore (de-iconify)")
}

func (ww *winWatch) setMaximized(ctx context.Context, on bool) error {
	if ww.info.Maximized == on {
		return nil
	}
	c := ww.c
	action := uint32(stateRemove)
	if on {
		action = stateAdd
	}
	if err := ww.clientMessage(ctx, c.atoms.netWMState, action, uint32(c.atoms.stateMaxV), uint32(c.atoms.stateMaxH), sourcePager); err != nil {
		return err
	}
	// Unmaximizing clears both states; a window maximized in one direction only counts as
	// not maximized and is left alone.
	ok, err := ww.wait(ctx, opLimit, func(w platform.Window) (bool, error) { return w.Maximized == on, nil })
	if err != nil {
		return err
	}
	if ok {
		return ww.settle(ctx)
	}
	if on {
		return ww.failed("maximize")
	}
	return ww.failed("unmaximize")
}

// moveResize asks for the new client-area geometry with _NET_MOVERESIZE_WINDOW, falling back
// to a ConfigureWindow request on the client when the window manager does not support it or
// ignores it. Both take the position in terms of the window's own gravity (see gravityOrigin):
// openbox honours a StaticGravity request at once, but remembers the position as if in the
// window's gravity, so unmaximizing later put the window off by its decorations.
//
// A move is done when the position matches (within geomSlack). A resize is done when the size
// matches, or, once the window manager has handled the request, when the size changed at all:
// the window manager applies the application's size hints its own way (which sizeHints only
// predicts), and may move a window it resizes to keep it on screen (openbox does, when an edge
// grows past the screen).
func (ww *winWatch) moveResize(ctx context.Context, op platform.WindowOp) error {
	c := ww.c
	if ww.info.Maximized || ww.info.Fullscreen {
		// Window managers keep maximized windows where they are.
		if err := ww.setMaximized(ctx, false); err != nil {
			return err
		}
	}
	hints, err := c.sizeHints(ctx, ww.w)
	if err != nil {
		return err
	}
	want := ww.info.Bounds
	flags := uint32(sourcePager << 12) // gravity 0: the window's own
	move := op.Kind == platform.OpMove
	if move {
		want.X, want.Y = op.X, op.Y
		flags |= moveResizeX | moveResizeY
	} else {
		want.Width, want.Height = hints.constrain(op.Width, op.Height)
		flags |= moveResizeW | moveResizeH
	}
	before := ww.info.Bounds
	done := func(b platform.Rect) bool {
		if move {
			return abs(b.X-want.X) <= geomSlack && abs(b.Y-want.Y) <= geomSlack
		}
		return abs(b.Width-want.Width) <= geomSlack && abs(b.Height-want.Height) <= geomSlack
	}
	if done(before) {
		return nil
	}
	// handled: after the window manager has handled the request, a resize that changed the
	// size is the window manager's answer.
	handled := func(b platform.Rect) bool {
		return done(b) || (!move && (b.Width != before.Width || b.Height != before.Height))
	}
	// settled waits until the window manager has handled the request: a window manager round
	// trip, or without one the first change of geometry. It reports whether anything changed.
	settled := func() (bool, error) {
		synced, err := c.wmSync(ctx)
		if err != nil {
			return false, err
		}
		if synced {
			if ww.info, err = c.Window(ctx, uint32(ww.w)); err != nil {
				return false, err
			}
			return ww.info.Bounds != before, nil
		}
		return ww.wait(ctx, opLimit, func(w platform.Window) (bool, error) { return w.Bounds != before, nil })
	}
	supported, extents, err := c.wmGeometrySupport(ctx, ww.w)
	if err != nil {
		return err
	}
	supported = supported && !c.noMoveResizeMessage
	x, y := gravityOrigin(hints.gravity, want, extents)
	if supported {
		if err := ww.clientMessage(ctx, c.atoms.netMoveResizeWindow, flags,
			uint32(int32(x)), uint32(int32(y)), uint32(want.Width), uint32(want.Height)); err != nil {
			return err
		}
		changed, err := settled()
		switch {
		case err != nil:
			return err
		case handled(ww.info.Bounds):
			return nil
		case changed:
			return ww.failed(fmt.Sprintf("%s to %+v (it placed the window elsewhere)", op.Kind, want))
		}
	}
	err = c.await(ctx, "configuring a window", func() error {
		return xproto.ConfigureWindowChecked(c.xc, ww.w,
			xproto.ConfigWindowX|xproto.ConfigWindowY|xproto.ConfigWindowWidth|xproto.ConfigWindowHeight,
			[]uint32{uint32(int32(x)), uint32(int32(y)), uint32(want.Width), uint32(want.Height)}).Check()
	})
	if err != nil {
		return xerr(err, platform.ErrActionFailed, "configuring window 0x%x", ww.w)
	}
	if _, err := settled(); err != nil {
		return err
	}
	if handled(ww.info.Bounds) {
		return nil
	}
	return ww.failed(fmt.Sprintf("%s to %+v", op.Kind, want))
}

// wmGeometrySupport reports whether the window manager announces _NET_MOVERESIZE_WINDOW, and
// the frame extents (left, right, top, bottom) it gives w.
func (c *Conn) wmGeometrySupport(ctx context.Context, w xproto.Window) (bool, [4]uint32, error) {
	var ext [4]uint32
	supported, err := c.wmSupports(ctx, c.atoms.netMoveResizeWindow)
	if err != nil {
		return false, ext, err
	}
	err = c.await(ctx, "reading frame extents", func() error {
		r, err := xproto.GetProperty(c.xc, false, w, c.atoms.netFrameExtents, xproto.AtomCardinal, 0, 4).Reply()
		if err == nil {
			copy(ext[:], prop32(r))
		}
		return err
	})
	return supported, ext, xerr(err, platform.ErrDisplayUnavailable, "window 0x%x", w)
}

// gravityOrigin is the position to ask for so that the client area lands at r's origin, for a
// window of gravity g with frame extents (left, right, top, bottom). ICCCM: the window manager
// puts the frame's reference point (a corner, an edge's middle or the centre, by gravity) where
// that point of the requested rectangle would be without a frame; StaticGravity asks for the
// client area's own position.
func gravityOrigin(g int, r platform.Rect, ext [4]uint32) (int, int) {
	left, right, top, bottom := int(ext[0]), int(ext[1]), int(ext[2]), int(ext[3])
	if g == gravityStatic {
		return r.X, r.Y
	}
	if g < gravityNorthWest || g > 9 {
		g = gravityNorthWest // ForgetGravity and unknown values
	}
	col, row := (g-1)%3, (g-1)/3 // 0: west/north, 1: centre, 2: east/south
	dx := [3]int{-left, -(left - right) / 2, right}[col]
	dy := [3]int{-top, -(top - bottom) / 2, bottom}[row]
	return r.X + dx, r.Y + dy
}

// sizeHints is the part of WM_NORMAL_HINTS that decides which sizes a window can take and how
// the window manager reads a requested position.
type sizeHints struct {
	minW, minH, maxW, maxH, incW, incH, baseW, baseH int
	gravity                                          int
}

func (c *Conn) sizeHints(ctx context.Context, w xproto.Window) (sizeHints, error) {
	h := sizeHints{gravity: gravityNorthWest}
	err := c.await(ctx, "reading size hints", func() error {
		r, err := xproto.GetProperty(c.xc, false, w, xproto.AtomWmNormalHints, xproto.AtomWmSizeHints, 0, 18).Reply()
		if err != nil {
			return err
		}
		v := prop32(r)
		if len(v) < 15 {
			return nil
		}
		flags := v[0]
		if flags&hintPMinSize != 0 {
			h.minW, h.minH = int(int32(v[5])), int(int32(v[6]))
		}
		if flags&hintPMaxSize != 0 {
			h.maxW, h.maxH = int(int32(v[7])), int(int32(v[8]))
		}
		if flags&hintPResizeInc != 0 {
			h.incW, h.incH = int(int32(v[9])), int(int32(v[10]))
		}
		switch {
		case flags&hintPBaseSize != 0 && len(v) >= 17:
			h.baseW, h.baseH = int(int32(v[15])), int(int32(v[16]))
		case flags&hintPMinSize != 0:
			h.baseW, h.baseH = h.minW, h.minH // ICCCM: the minimum stands in for a missing base
		}
		if flags&hintPWinGravity != 0 && len(v) >= 18 {
			h.gravity = int(v[17])
		}
		return nil
	})
	return h, xerr(err, platform.ErrDisplayUnavailable, "window 0x%x", w)
}

// constrain applies the hints to a requested size the way ICCCM window managers do.
func (h sizeHints) constrain(w, ht int) (int, int) {
	one := func(v, minV, maxV, inc, base int) int {
		if minV > 0 {
			v = max(v, minV)
		}
		if maxV > 0 {
			v = min(v, maxV)
		}
		if inc > 1 && v > base {
			v = base + (v-base)/inc*inc
			if v < minV { // rounding down went below the minimum: one step up
				v += inc
			}
		}
		return max(v, 1)
	}
	return one(w, h.minW, h.maxW, h.incW, h.baseW), one(ht, h.minH, h.maxH, h.incH, h.baseH)
}
