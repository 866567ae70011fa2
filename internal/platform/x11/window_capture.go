package x11

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"sync/atomic"
	"time"

	"github.com/jezek/xgb/composite"
	"github.com/jezek/xgb/damage"
	"github.com/jezek/xgb/xfixes"
	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/framepool"
	"github.com/mcec/mcec/internal/platform"
)

const (
	// repaintLimit bounds the wait for an app to repaint a window whose pixels the server had to
	// reallocate (first redirection of a covered window, or mapping after a restore) while it
	// paints nothing; each part it paints starts the wait again, up to repaintCap in all (a
	// loaded machine: gtk3-widget-factory painted a restored window in parts over 700 ms).
	repaintLimit = 500 * time.Millisecond
	repaintCap   = 3 * time.Second
	// noDamageWait is how long a repaint is given when the server has no DAMAGE extension.
	noDamageWait = 300 * time.Millisecond
	// restoreLimit bounds the wait for the window manager to map a minimized window again.
	restoreLimit = 2 * time.Second
	// restorePoll is the map state polling interval while restoring, should MapNotify not come.
	restorePoll = 50 * time.Millisecond
)

// winState is what this connection keeps about a window it captures.
type winState struct {
	lock chan struct{} // capacity 1: serializes captures of the window; waiters can give up
	// redirected is set before RedirectWindow is sent and cleared if it fails, so a capture
	// whose caller gave up mid-redirect still keeps others from redirecting twice.
	redirected atomic.Bool
}

// CaptureWindow grabs the client area of a managed window, Width x Height, with its own pixels
// even where it is covered or off-screen (Composite). A minimized window is restored first
// (Restored). Without Composite, or when the server refuses the window pixmap, the image is what
// the screen shows in the window's rectangle, black outside the screen (Fallback).
func (c *Conn) CaptureWindow(ctx context.Context, handle uint32) (platform.WindowCapture, error) {
	w := xproto.Window(handle)
	st := c.winState(w)
	select {
	case st.lock <- struct{}{}:
	case <-ctx.Done():
		return platform.WindowCapture{}, fmt.Errorf("capture of window 0x%x: %w", handle, ctx.Err())
	}
	defer func() { <-st.lock }()
	wc, err := c.captureWindow(ctx, w, st)
	if err != nil {
		err = xerr(err, platform.ErrCaptureFailed, "capture of window 0x%x", handle)
		if errors.Is(err, platform.ErrWindowClosed) || !st.redirected.Load() {
			c.forget(w, st)
		}
		return platform.WindowCapture{}, err
	}
	if !st.redirected.Load() {
		// Nothing to undo later, and no DestroyNotify will come to clean up: forget it now.
		c.forget(w, st)
	}
	return wc, nil
}

// forget drops st from the window set unless a newer state replaced it.
func (c *Conn) forget(w xproto.Window, st *winState) {
	c.mu.Lock()
	if c.wins[w] == st {
		delete(c.wins, w)
	}
	c.mu.Unlock()
}

func (c *Conn) winState(w xproto.Window) *winState {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.wins[w]
	if s == nil {
		s = &winState{lock: make(chan struct{}, 1)}
		c.wins[w] = s
	}
	return s
}

// capInfo is what a window capture needs to know about the window.
type capInfo struct {
	viewable bool
	hidden   bool
	visual   xproto.Visualid
	depth    byte
	border   int
	bounds   platform.Rect // client area in root coordinates
	mark     uint16        // sequence number of the request that saw this state
}

// describeForCapture checks that w is a managed client and reads its state, in one round trip.
func (c *Conn) describeForCapture(ctx context.Context, w xproto.Window) (capInfo, error) {
	var ci capInfo
	err := c.await(ctx, "describing a window", func() error {
		rq := c.queryRoot()
		st := xproto.GetProperty(c.xc, false, w, c.atoms.netWMState, xproto.AtomAtom, 0, maxStateLong)
		var err error
		ci, err = c.readCapInfo(w)
		if err != nil {
			return err
		}
		list, _, err := rq.read()
		if err != nil {
			return err
		}
		if !contains(list, w) {
			return fmt.Errorf("%w: 0x%x is not a managed top-level window (not in _NET_CLIENT_LIST)", platform.ErrWindowClosed, w)
		}
		sr, err := st.Reply()
		if err != nil {
			return err
		}
		for _, a := range prop32(sr) {
			if xproto.Atom(a) == c.atoms.stateHidden {
				ci.hidden = true
			}
		}
		return nil
	})
	return ci, err
}

// readCapInfo issues and reads attributes, geometry and root position of w. Under await.
func (c *Conn) readCapInfo(w xproto.Window) (capInfo, error) {
	ac := xproto.GetWindowAttributes(c.xc, w)
	gc := xproto.GetGeometry(c.xc, xproto.Drawable(w))
	pc := xproto.TranslateCoordinates(c.xc, w, c.scr.root, 0, 0)
	a, err1 := ac.Reply()
	g, err2 := gc.Reply()
	p, err3 := pc.Reply()
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			return capInfo{}, err
		}
	}
	if a.Class == xproto.WindowClassInputOnly {
		return capInfo{}, fmt.Errorf("%w: window 0x%x is InputOnly and has no pixels", platform.ErrCaptureFailed, w)
	}
	return capInfo{
		viewable: a.MapState == xproto.MapStateViewable,
		visual:   a.Visual,
		depth:    g.Depth,
		border:   int(g.BorderWidth),
		bounds:   platform.Rect{X: int(p.DstX), Y: int(p.DstY), Width: int(g.Width), Height: int(g.Height)},
		mark:     ac.Sequence,
	}, nil
}

func (c *Conn) captureWindow(ctx context.Context, w xproto.Window, st *winState) (platform.WindowCapture, error) {
	var wc platform.WindowCapture
	ci, err := c.describeForCapture(ctx, w)
	if err != nil {
		return wc, err
	}
	restore := ci.hidden || !ci.viewable
	wasViewable := ci.viewable
	redirect := c.ext.Composite && !st.redirected.Load()

	// A damage object must exist before the server reallocates or remaps the window's pixels,
	// or the repaint that follows goes unseen.
	var dw *damageWatch
	if c.ext.Damage && (redirect || !wasViewable) {
		if dw, err = c.watchDamage(); err != nil {
			return wc, err
		}
		defer c.unwatchDamage(dw)
	}

	var need []image.Rectangle // window-relative area the app still has to paint
	var mark uint16            // damage reported before this request is the server's, not the app's
	if redirect {
		if need, mark, err = c.redirect(ctx, w, st, dw, ci); err != nil {
			return wc, err
		}
	} else if dw != nil {
		if err := c.await(ctx, "watching a window for repaints", func() error {
			return damage.CreateChecked(c.xc, dw.id, xproto.Drawable(w), damage.ReportLevelRawRectangles).Check()
		}); err != nil {
			return wc, err
		}
	}
	if restore {
		if ci, err = c.restore(ctx, w); err != nil {
			return wc, err
		}
		wc.Restored = true
		if !wasViewable {
			// Mapping gives the window fresh pixels (a new pixmap when redirected): the app
			// repaints all of it.
			need = []image.Rectangle{image.Rect(0, 0, ci.bounds.Width, ci.bounds.Height)}
			mark = ci.mark
		}
	}
	if len(need) > 0 {
		if dw != nil {
			c.waitRepaint(ctx, dw, mark, need)
		} else {
			sleepCtx(ctx, noDamageWait)
		}
	}

	if st.redirected.Load() {
		img, err := c.grabPixmap(ctx, w, ci)
		if err == nil {
			wc.Image = img
			return wc, nil
		}
		if isGone(err) || errors.Is(err, platform.ErrWindowClosed) || ctx.Err() != nil || c.broken() {
			return wc, err
		}
		// The server would not name the window's pixmap: fall back to the screen.
	}
	img, err := c.grabOnScreen(ctx, ci.bounds)
	if err != nil {
		return wc, err
	}
	wc.Image, wc.Fallback = img, true
	return wc, nil
}

// redirect redirects w (automatic mode, so the screen still shows it) and returns the part of the
// window that was not visible, which the app must repaint into the new pixmap, and the sequence
// number from which damage counts as the app's. Without XFixes the visible part is unknown and
// the whole window is assumed to need a repaint.
func (c *Conn) redirect(ctx context.Context, w xproto.Window, st *winState, dw *damageWatch, ci capInfo) ([]image.Rectangle, uint16, error) {
	var need []image.Rectangle
	var mark uint16
	st.redirected.Store(true)
	err := c.await(ctx, "redirecting a window", func() error {
		// Everything is pipelined, and the server runs it in order: the visible region is read
		// before the redirection changes it, and damage is watched before pixels move.
		var fetch xfixes.FetchRegionCookie
		haveClip := false
		if ci.viewable && c.ext.XFixes {
			if region, err := xfixes.NewRegionId(c.xc); err == nil {
				composite.CreateRegionFromBorderClip(c.xc, region, w)
				fetch = xfixes.FetchRegion(c.xc, region)
				xfixes.DestroyRegion(c.xc, region)
				haveClip = true
			}
		}
		var created damage.CreateCookie
		if dw != nil {
			created = damage.CreateChecked(c.xc, dw.id, xproto.Drawable(w), damage.ReportLevelRawRectangles)
		}
		// StructureNotify brings DestroyNotify, which drops the window from the redirected set.
		xproto.ChangeWindowAttributes(c.xc, w, xproto.CwEventMask, []uint32{clientEventMask})
		redir := composite.RedirectWindowChecked(c.xc, w, composite.RedirectAutomatic)
		// Damage the server reports while redirecting (copying what was visible) carries the
		// redirect's sequence number; the app's repaint comes after this next request.
		after := xproto.GetInputFocus(c.xc)
		mark = after.Sequence

		need = []image.Rectangle{image.Rect(0, 0, ci.bounds.Width, ci.bounds.Height)}
		if haveClip {
			clip, err := fetch.Reply()
			if err != nil {
				return err
			}
			for _, r := range clip.Rectangles {
				need = subtract(need, xrect(r))
			}
		}
		if _, err := after.Reply(); err != nil {
			return err
		}
		if dw != nil {
			if err := created.Check(); err != nil {
				return err
			}
		}
		return redir.Check()
	})
	if err != nil {
		st.redirected.Store(false)
		if isGone(err) || ctx.Err() != nil || c.broken() {
			return nil, 0, err
		}
		// Refused (e.g. BadMatch on an odd window): capture from the screen instead.
		return nil, 0, nil
	}
	return need, mark, nil
}

// restore asks the window manager to activate w (source indication 2: a pager, which EWMH window
// managers obey without focus-stealing checks) and waits until w is viewable. The returned mark is
// the sequence number of the first request sent after the window was seen mapped.
func (c *Conn) restore(ctx context.Context, w xproto.Window) (capInfo, error) {
	mapped := make(chan struct{}, 1)
	c.mu.Lock()
	c.mapWaiters[w] = mapped
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.mapWaiters, w)
		c.mu.Unlock()
	}()
	ev := xproto.ClientMessageEvent{
		Format: 32,
		Window: w,
		Type:   c.atoms.netActiveWindow,
		Data:   xproto.ClientMessageDataUnionData32New([]uint32{2, xproto.TimeCurrentTime, 0, 0, 0}),
	}
	if err := c.await(ctx, "restoring a window", func() error {
		// MapNotify wakes the wait below at once. That matters: damage counts as the app's
		// only from the next request on, and a fast app repaints within a millisecond.
		xproto.ChangeWindowAttributes(c.xc, w, xproto.CwEventMask, []uint32{clientEventMask})
		return xproto.SendEventChecked(c.xc, false, c.scr.root,
			xproto.EventMaskSubstructureNotify|xproto.EventMaskSubstructureRedirect, string(ev.Bytes())).Check()
	}); err != nil {
		return capInfo{}, err
	}
	deadline := time.NewTimer(restoreLimit)
	defer deadline.Stop()
	// Polling is only the fallback for a missed event.
	tick := time.NewTicker(restorePoll)
	defer tick.Stop()
	for {
		var ci capInfo
		if err := c.await(ctx, "restoring a window", func() (err error) {
			ci, err = c.readCapInfo(w)
			return err
		}); err != nil {
			return capInfo{}, err
		}
		if ci.viewable {
			return ci, nil
		}
		select {
		case <-mapped:
		case <-tick.C:
		case <-deadline.C:
			return capInfo{}, fmt.Errorf("%w: window 0x%x is minimized and the window manager did not restore it within %v", platform.ErrCaptureFailed, w, restoreLimit)
		case <-ctx.Done():
			return capInfo{}, fmt.Errorf("restoring window 0x%x: %w", w, ctx.Err())
		}
	}
}

// grabPixmap reads the client area out of the window's Composite pixmap.
func (c *Conn) grabPixmap(ctx context.Context, w xproto.Window, ci capInfo) (*image.RGBA, error) {
	f, err := c.scr.pixelFormat(ci.depth, ci.visual)
	if err != nil {
		return nil, fmt.Errorf("%w: window 0x%x: %v", platform.ErrCaptureFailed, w, err)
	}
	r := platform.Rect{X: ci.border, Y: ci.border, Width: ci.bounds.Width, Height: ci.bounds.Height}
	if err := checkRect(r); err != nil {
		return nil, err
	}
	img := framepool.NewRGBA(r.Width, r.Height) // grabInto writes every pixel
	err = c.await(ctx, "capturing a window", func() error {
		pix, err := xproto.NewPixmapId(c.xc)
		if err != nil {
			return err
		}
		// The pixmap is named for each capture: the server replaces it whenever the window is
		// mapped or resized.
		named := composite.NameWindowPixmapChecked(c.xc, w, pix)
		grabErr := c.grabInto(img, xproto.Drawable(pix), r, f)
		xproto.FreePixmap(c.xc, pix)
		if err := named.Check(); err != nil {
			return err
		}
		return grabErr
	})
	if err != nil {
		return nil, err
	}
	return img, nil
}

// grabOnScreen captures what the screen shows in the window's rectangle. Parts outside the
// screen stay opaque black, so window-relative coordinates still hold in the image.
func (c *Conn) grabOnScreen(ctx context.Context, b platform.Rect) (*image.RGBA, error) {
	if err := checkRect(b); err != nil {
		return nil, err
	}
	img := image.NewRGBA(image.Rect(0, 0, b.Width, b.Height))
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 0xff
	}
	vis := b.Intersect(c.ScreenBounds())
	if vis.Empty() {
		return img, nil
	}
	part, err := c.grab(ctx, xproto.Drawable(c.scr.root), vis, c.scr.rootFmt, "capturing a window from the screen")
	if err != nil {
		return nil, err
	}
	draw.Draw(img, image.Rect(vis.X-b.X, vis.Y-b.Y, vis.X-b.X+vis.Width, vis.Y-b.Y+vis.Height), part, image.Point{}, draw.Src)
	framepool.Release(part)
	return img, nil
}

// damageWatch routes DamageNotify events of one damage object to a waiter.
type damageWatch struct {
	id damage.Damage
	ch chan damage.NotifyEvent
}

func (c *Conn) watchDamage() (*damageWatch, error) {
	id, err := damage.NewDamageId(c.xc)
	if err != nil {
		return nil, err
	}
	dw := &damageWatch{id: id, ch: make(chan damage.NotifyEvent, 1024)}
	c.mu.Lock()
	c.damages[id] = dw.ch
	c.mu.Unlock()
	return dw, nil
}

func (c *Conn) unwatchDamage(dw *damageWatch) {
	c.mu.Lock()
	delete(c.damages, dw.id)
	c.mu.Unlock()
	// Unchecked and off this goroutine: sending can block on a stuck server, and a damage object
	// that never existed only earns a BadDamage that the event loop drops.
	go damage.Destroy(c.xc, dw.id)
}

// waitRepaint waits until damage reported at or after sequence number mark covers need: at most
// repaintLimit without any, repaintCap in all. It reports whether it saw the whole area repainted. Damage earlier than
// mark is the server's own (copying the visible part, painting backgrounds), not the app's.
func (c *Conn) waitRepaint(ctx context.Context, dw *damageWatch, mark uint16, need []image.Rectangle) bool {
	limit := time.NewTimer(repaintLimit)
	defer limit.Stop()
	giveUp := time.Now().Add(repaintCap)
	for len(need) > 0 {
		select {
		case ev := <-dw.ch:
			if int16(ev.Sequence-mark) >= 0 {
				need = subtract(need, xrect(ev.Area))
				limit.Reset(min(repaintLimit, time.Until(giveUp)))
			}
		case <-limit.C:
			return false
		case <-ctx.Done():
			return false
		case <-c.dead:
			return false
		}
	}
	return true
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
