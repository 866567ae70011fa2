package x11

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/platform"
)

// wmSyncLimit bounds a window manager round trip (see wmSync).
const wmSyncLimit = 500 * time.Millisecond

// helperState is an unmapped window of this connection's own: the requestor of selection
// conversions, and the target of property changes that bring server timestamps and window
// manager round trips.
type helperState struct {
	mu       sync.Mutex
	win      atomic.Uint32
	timeN    atomic.Uint64 // PropertyNotify of mcecTime seen on it
	lastTime atomic.Uint32 // and the server time of the latest
	extentsN atomic.Uint64 // PropertyNotify of _NET_FRAME_EXTENTS seen on it
}

// noteProperty counts the helper's property changes (event loop).
func (h *helperState) noteProperty(c *Conn, e xproto.PropertyNotifyEvent) {
	switch e.Atom {
	case c.atoms.mcecTime:
		h.lastTime.Store(uint32(e.Time))
		h.timeN.Add(1)
	case c.atoms.netFrameExtents:
		h.extentsN.Add(1)
	}
}

// helperWindow returns the connection's unmapped helper window, creating it on first use.
func (c *Conn) helperWindow(ctx context.Context) (xproto.Window, error) {
	c.helper.mu.Lock()
	defer c.helper.mu.Unlock()
	if w := c.helper.win.Load(); w != 0 {
		return xproto.Window(w), nil
	}
	w, err := xproto.NewWindowId(c.xc)
	if err != nil {
		return 0, fmt.Errorf("%w: no window id: %v", platform.ErrDisplayUnavailable, err)
	}
	err = c.await(ctx, "creating a helper window", func() error {
		return xproto.CreateWindowChecked(c.xc, 0, w, c.scr.root, -1, -1, 1, 1, 0, xproto.WindowClassInputOnly, 0,
			xproto.CwOverrideRedirect|xproto.CwEventMask, []uint32{1, xproto.EventMaskPropertyChange}).Check()
	})
	if err != nil {
		return 0, xerr(err, platform.ErrDisplayUnavailable, "creating a helper window")
	}
	c.helper.win.Store(uint32(w))
	return w, nil
}

// serverTime gets a current server timestamp: the time of a PropertyNotify caused by appending
// nothing to a property of the helper window (ICCCM's recipe; CurrentTime is discouraged in
// selection requests).
func (c *Conn) serverTime(ctx context.Context, helper xproto.Window) (xproto.Timestamp, error) {
	wake, cancel := c.subscribe(helper)
	defer cancel()
	n0 := c.helper.timeN.Load()
	err := c.await(ctx, "reading the server time", func() error {
		xproto.ChangeProperty(c.xc, xproto.PropModeAppend, helper, c.atoms.mcecTime, xproto.AtomString, 8, 0, nil)
		_, err := xproto.GetInputFocus(c.xc).Reply()
		return err
	})
	if err != nil {
		return 0, xerr(err, platform.ErrDisplayUnavailable, "reading the server time")
	}
	limit := time.NewTimer(ownerReplyLimit)
	defer limit.Stop()
	for c.helper.timeN.Load() == n0 {
		select {
		case <-wake:
		case <-limit.C:
			return xproto.TimeCurrentTime, nil // the event was lost; CurrentTime still works
		case <-ctx.Done():
			return 0, fmt.Errorf("reading the server time: %w", ctx.Err())
		case <-c.dead:
			return 0, c.alive("reading the server time")
		}
	}
	return xproto.Timestamp(c.helper.lastTime.Load()), nil
}

// wmSync waits until the window manager has handled every request sent before it: a
// _NET_REQUEST_FRAME_EXTENTS about the (never managed) helper window, which EWMH window managers
// answer by setting _NET_FRAME_EXTENTS on it, goes through the same queue as those requests.
// Window managers change a state property before they resize the window for it (openbox sets
// MAXIMIZED, then configures), so a state alone does not tell that the geometry is final.
// It reports false when the window manager does not announce the request or does not answer
// within wmSyncLimit.
func (c *Conn) wmSync(ctx context.Context) (bool, error) {
	supported, err := c.wmSupports(ctx, c.atoms.netRequestFrameExtents)
	if err != nil || !supported {
		return false, err
	}
	helper, err := c.helperWindow(ctx)
	if err != nil {
		return false, err
	}
	wake, cancel := c.subscribe(helper)
	defer cancel()
	n0 := c.helper.extentsN.Load()
	ev := xproto.ClientMessageEvent{Format: 32, Window: helper, Type: c.atoms.netRequestFrameExtents,
		Data: xproto.ClientMessageDataUnionData32New(make([]uint32, 5))}
	err = c.await(ctx, "synchronizing with the window manager", func() error {
		return xproto.SendEventChecked(c.xc, false, c.scr.root,
			xproto.EventMaskSubstructureNotify|xproto.EventMaskSubstructureRedirect, string(ev.Bytes())).Check()
	})
	if err != nil {
		return false, xerr(err, platform.ErrDisplayUnavailable, "synchronizing with the window manager")
	}
	limit := time.NewTimer(wmSyncLimit)
	defer limit.Stop()
	for c.helper.extentsN.Load() == n0 {
		select {
		case <-wake:
		case <-limit.C:
			return false, nil // a busy window manager: the caller's own check stands
		case <-ctx.Done():
			return false, fmt.Errorf("synchronizing with the window manager: %w", ctx.Err())
		case <-c.dead:
			return false, c.alive("synchronizing with the window manager")
		}
	}
	return true, nil
}

// wmSupports reports whether the window manager lists atom in _NET_SUPPORTED.
func (c *Conn) wmSupports(ctx context.Context, atom xproto.Atom) (bool, error) {
	supported := false
	err := c.await(ctx, "reading window manager support", func() error {
		r, err := xproto.GetProperty(c.xc, false, c.scr.root, c.atoms.netSupported, xproto.AtomAtom, 0, 1024).Reply()
		if err != nil {
			return err
		}
		for _, a := range prop32(r) {
			supported = supported || xproto.Atom(a) == atom
		}
		return nil
	})
	return supported, xerr(err, platform.ErrDisplayUnavailable, "reading window manager support")
}
