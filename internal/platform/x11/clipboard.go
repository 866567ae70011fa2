package x11

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/platform"
)

const (
	// ownerReplyLimit is how long a selection owner gets to answer one request (or to send one
	// INCR chunk) before it counts as not responding.
	ownerReplyLimit = 2 * time.Second
	// maxClipboardBytes bounds what ClipboardGet accepts.
	maxClipboardBytes = 64 << 20
	// transferLimit drops an INCR transfer whose requestor stopped reading.
	transferLimit = 10 * time.Second
)

// selState is the connection's clipboard state.
type selState struct {
	getLock chan struct{} // one ClipboardGet at a time: they share a property

	ownerMu sync.Mutex
	owner   *clipOwner // nil until the first ClipboardSet
}

func (s *selState) init() { s.getLock = make(chan struct{}, 1) }

func (s *selState) close() {
	s.ownerMu.Lock()
	o := s.owner
	s.owner = nil
	s.ownerMu.Unlock()
	if o != nil {
		o.close()
	}
}

// ClipboardGet returns the CLIPBOARD selection as text: "" when nobody owns it or the owner
// offers no text. It asks for UTF8_STRING, then STRING (Latin-1), and reads INCR transfers. When
// this connection owns the clipboard it answers from memory.
func (c *Conn) ClipboardGet(ctx context.Context) (string, error) {
	var owner xproto.Window
	err := c.await(ctx, "reading the clipboard owner", func() error {
		r, err := xproto.GetSelectionOwner(c.xc, c.atoms.clipboard).Reply()
		if err == nil {
			owner = r.Owner
		}
		return err
	})
	if err != nil {
		return "", xerr(err, platform.ErrDisplayUnavailable, "reading the clipboard")
	}
	if owner == 0 {
		return "", nil
	}
	c.sel.ownerMu.Lock()
	o := c.sel.owner
	c.sel.ownerMu.Unlock()
	if o != nil && o.win == owner {
		return o.current(), nil
	}

	select {
	case c.sel.getLock <- struct{}{}:
		defer func() { <-c.sel.getLock }()
	case <-ctx.Done():
		return "", fmt.Errorf("reading the clipboard: %w", ctx.Err())
	}
	helper, err := c.helperWindow(ctx)
	if err != nil {
		return "", err
	}
	t, err := c.serverTime(ctx, helper)
	if err != nil {
		return "", err
	}
	for _, target := range []xproto.Atom{c.atoms.utf8String, xproto.AtomString} {
		data, typ, ok, err := c.convertSelection(ctx, helper, target, t)
		if err != nil {
			return "", err
		}
		if ok {
			return decodeText(data, typ == xproto.AtomString), nil
		}
	}
	return "", nil // the owner has no text (an image, files...)
}

// convertSelection asks the clipboard owner for target into a property of helper and reads it,
// following INCR. ok is false when the owner refuses the target.
func (c *Conn) convertSelection(ctx context.Context, helper xproto.Window, target xproto.Atom, t xproto.Timestamp) (data []byte, typ xproto.Atom, ok bool, err error) {
	notify := make(chan xproto.SelectionNotifyEvent, 4)
	c.mu.Lock()
	c.selNotify = notify
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.selNotify = nil
		c.mu.Unlock()
	}()
	wake, cancel := c.subscribe(helper) // INCR chunks arrive as PropertyNotify
	defer cancel()
	prop := c.atoms.mcecSelection
	err = c.await(ctx, "requesting the clipboard", func() error {
		xproto.DeleteProperty(c.xc, helper, prop) // leftovers of an abandoned transfer
		xproto.ConvertSelection(c.xc, helper, c.atoms.clipboard, target, prop, t)
		_, err := xproto.GetInputFocus(c.xc).Reply()
		return err
	})
	if err != nil {
		return nil, 0, false, xerr(err, platform.ErrDisplayUnavailable, "requesting the clipboard")
	}
	limit := time.NewTimer(ownerReplyLimit)
	defer limit.Stop()
	for {
		var e xproto.SelectionNotifyEvent
		select {
		case e = <-notify:
		case <-limit.C:
			return nil, 0, false, fmt.Errorf("%w: the clipboard owner did not answer within %v", platform.ErrAppNotResponding, ownerReplyLimit)
		case <-ctx.Done():
			return nil, 0, false, fmt.Errorf("reading the clipboard: %w", ctx.Err())
		case <-c.dead:
			return nil, 0, false, c.alive("reading the clipboard")
		}
		if e.Requestor != helper || e.Selection != c.atoms.clipboard || e.Target != target || (e.Time != t && e.Time != 0) {
			continue // the answer to an earlier, abandoned request
		}
		if e.Property == xproto.AtomNone {
			return nil, 0, false, nil
		}
		break
	}

	var r *xproto.GetPropertyReply
	read := func() error {
		var err error
		r, err = xproto.GetProperty(c.xc, true, helper, prop, xproto.GetPropertyTypeAny, 0, maxClipboardBytes/4).Reply()
		if err == nil && r.BytesAfter > 0 {
			err = fmt.Errorf("%w: the clipboard holds more than %d bytes", platform.ErrActionFailed, maxClipboardBytes)
		}
		return err
	}
	if err := c.await(ctx, "reading the clipboard", read); err != nil {
		return nil, 0, false, xerr(err, platform.ErrDisplayUnavailable, "reading the clipboard")
	}
	if r.Type != c.atoms.incr {
		return r.Value, r.Type, true, nil
	}
	// INCR: deleting the property (done by the read) asks for the next chunk; an empty chunk
	// ends the transfer.
	for {
		limit.Reset(ownerReplyLimit)
		select {
		case <-wake:
		case <-limit.C:
			return nil, 0, false, fmt.Errorf("%w: the clipboard owner stopped sending after %d bytes", platform.ErrAppNotResponding, len(data))
		case <-ctx.Done():
			return nil, 0, false, fmt.Errorf("reading the clipboard: %w", ctx.Err())
		case <-c.dead:
			return nil, 0, false, c.alive("reading the clipboard")
		}
		if err := c.await(ctx, "reading the clipboard", read); err != nil {
			return nil, 0, false, xerr(err, platform.ErrDisplayUnavailable, "reading the clipboard")
		}
		if r.Type == xproto.AtomNone {
			continue // our own deletion, or not written yet
		}
		if len(r.Value) == 0 {
			return data, typ, true, nil
		}
		if len(data)+len(r.Value) > maxClipboardBytes {
			return nil, 0, false, fmt.Errorf("%w: the clipboard holds more than %d bytes", platform.ErrActionFailed, maxClipboardBytes)
		}
		data, typ = append(data, r.Value...), r.Type
	}
}

// decodeText turns selection data into a Go string: STRING is Latin-1; the rest is taken as
// UTF-8 when valid and as Latin-1 otherwise.
func decodeText(b []byte, latin1 bool) string {
	if !latin1 && utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for _, c := range b {
		sb.WriteRune(rune(c))
	}
	return sb.String()
}

// latin1 encodes s as Latin-1; ok is false when s has other characters.
func latin1(s string) ([]byte, bool) {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xff {
			return nil, false
		}
		out = append(out, byte(r))
	}
	return out, true
}

// ClipboardSet makes this connection own CLIPBOARD with text until another client takes it or
// the connection closes. The selection is served from a goroutine on a separate X connection,
// so no call of this one ever waits on a requestor.
func (c *Conn) ClipboardSet(ctx context.Context, text string) error {
	text = strings.ToValidUTF8(text, "\uFFFD")
	o, err := c.clipOwner(ctx)
	if err != nil {
		return err
	}
	reply := make(chan error, 1)
	select {
	case o.reqs <- setReq{text: text, reply: reply}:
	case <-ctx.Done():
		return fmt.Errorf("setting the clipboard: %w", ctx.Err())
	case <-o.done:
		return fmt.Errorf("%w: setting the clipboard: the owner connection closed", platform.ErrDisplayUnavailable)
	}
	select {
	case err := <-reply:
		return err
	case <-ctx.Done():
		return fmt.Errorf("setting the clipboard: %w", ctx.Err())
	case <-o.done:
		return fmt.Errorf("%w: setting the clipboard: the owner connection closed", platform.ErrDisplayUnavailable)
	}
}

// clipOwner returns the running selection owner, starting one (again) when there is none.
func (c *Conn) clipOwner(ctx context.Context) (*clipOwner, error) {
	if err := c.alive("setting the clipboard"); err != nil {
		return nil, err
	}
	c.sel.ownerMu.Lock()
	defer c.sel.ownerMu.Unlock()
	if o := c.sel.owner; o != nil {
		select {
		case <-o.done: // its connection broke: start another
		default:
			return o, nil
		}
	}
	o, err := startClipOwner(ctx, c.display, &c.atoms)
	if err != nil {
		return nil, err
	}
	if err := c.alive("setting the clipboard"); err != nil {
		o.close() // Close ran while this one was starting
		return nil, err
	}
	c.sel.owner = o
	return o, nil
}

// clipOwner owns CLIPBOARD from an unmapped window on its own connection. Its goroutine (run)
// is the only user of that connection after start.
type clipOwner struct {
	xc    *xgb.Conn
	win   xproto.Window
	a     *atoms // atoms are the server's, valid on every connection
	chunk int    // largest property write; larger text goes INCR

	reqs chan setReq
	quit chan struct{}
	done chan struct{} // closed when run returns
	once sync.Once

	mu    sync.Mutex
	text  string
	owned bool

	// Owned by run:
	since     xproto.Timestamp
	pending   []setReq
	transfers map[transferKey]*transfer
}

type setReq struct {
	text  string
	reply chan error
}

type transferKey struct {
	requestor xproto.Window
	prop      xproto.Atom
}

type transfer struct {
	typ  xproto.Atom
	data []byte
	off  int
	last time.Time
}

func startClipOwner(ctx context.Context, display string, a *atoms) (*clipOwner, error) {
	type dialed struct {
		xc  *xgb.Conn
		win xproto.Window
		err error
	}
	ch := make(chan dialed, 1)
	go func() {
		var d dialed
		d.xc, d.err = xgb.NewConnDisplay(display)
		if d.err == nil {
			if d.win, d.err = createOwnerWindow(d.xc); d.err != nil {
				d.xc.Close()
				d.xc = nil
			}
		}
		ch <- d
	}()
	var d dialed
	select {
	case d = <-ch:
	case <-ctx.Done():
		go func() {
			if d := <-ch; d.xc != nil {
				d.xc.Close()
			}
		}()
		return nil, fmt.Errorf("setting the clipboard: connecting: %w", ctx.Err())
	}
	if d.err != nil {
		return nil, fmt.Errorf("%w: setting the clipboard: %v", platform.ErrDisplayUnavailable, d.err)
	}
	o := &clipOwner{
		xc:  d.xc,
		win: d.win,
		a:   a,
		// Without BIG-REQUESTS (xgb does not enable it) one request is at most
		// MaximumRequestLength 4-byte units, ChangeProperty's header included.
		chunk:     min(int(xproto.Setup(d.xc).MaximumRequestLength)*4-64, 256<<10),
		reqs:      make(chan setReq),
		quit:      make(chan struct{}),
		done:      make(chan struct{}),
		transfers: map[transferKey]*transfer{},
	}
	go o.run()
	return o, nil
}

// createOwnerWindow creates the owner's unmapped window; PropertyChange brings the timestamps.
func createOwnerWindow(xc *xgb.Conn) (xproto.Window, error) {
	w, err := xproto.NewWindowId(xc)
	if err != nil {
		return 0, err
	}
	root := xproto.Setup(xc).DefaultScreen(xc).Root
	err = xproto.CreateWindowChecked(xc, 0, w, root, -1, -1, 1, 1, 0, xproto.WindowClassInputOnly, 0,
		xproto.CwOverrideRedirect|xproto.CwEventMask, []uint32{1, xproto.EventMaskPropertyChange}).Check()
	return w, err
}

// current is the text served, or "" when the selection was lost.
func (o *clipOwner) current() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.text
}

// close stops the owner; the X server then drops the selection with the window.
func (o *clipOwner) close() {
	o.once.Do(func() { close(o.quit) })
	select {
	case <-o.done:
	case <-time.After(time.Second):
	}
	go o.xc.Close() // can block on a hung server
}

func (o *clipOwner) run() {
	defer close(o.done)
	events := make(chan xgb.Event, 64)
	go func() {
		defer close(events)
		for {
			ev, xe := o.xc.WaitForEvent()
			if ev == nil && xe == nil {
				return
			}
			if ev == nil {
				continue // errors of unchecked requests: a requestor window that went away
			}
			select {
			case events <- ev:
			case <-o.quit:
				return
			}
		}
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-o.quit:
			o.fail(fmt.Errorf("%w: setting the clipboard: the connection is closing", platform.ErrDisplayUnavailable))
			return
		case r := <-o.reqs:
			o.pending = append(o.pending, r)
			// Ownership needs a timestamp: the PropertyNotify of this empty append brings one.
			xproto.ChangeProperty(o.xc, xproto.PropModeAppend, o.win, o.a.mcecTime, xproto.AtomString, 8, 0, nil)
		case ev, ok := <-events:
			if !ok {
				o.fail(fmt.Errorf("%w: setting the clipboard: lost the X connection", platform.ErrDisplayUnavailable))
				return
			}
			o.handle(ev)
		case now := <-tick.C:
			for k, t := range o.transfers {
				if now.Sub(t.last) > transferLimit {
					delete(o.transfers, k)
					o.unwatch(k.requestor)
				}
			}
		}
	}
}

func (o *clipOwner) fail(err error) {
	for _, r := range o.pending {
		r.reply <- err
	}
	o.pending = nil
}

func (o *clipOwner) handle(ev xgb.Event) {
	switch e := ev.(type) {
	case xproto.PropertyNotifyEvent:
		if e.Window == o.win {
			if e.Atom == o.a.mcecTime && len(o.pending) > 0 {
				o.take(e.Time)
			}
			return
		}
		if e.State == xproto.PropertyDelete {
			o.advance(transferKey{e.Window, e.Atom})
		}
	case xproto.SelectionRequestEvent:
		o.answer(e)
	case xproto.SelectionClearEvent:
		if e.Owner == o.win && e.Selection == o.a.clipboard {
			o.mu.Lock()
			o.text, o.owned = "", false
			o.mu.Unlock()
		}
	}
}

// take acquires CLIPBOARD at time t for the latest pending text and answers every pending Set.
func (o *clipOwner) take(t xproto.Timestamp) {
	text := o.pending[len(o.pending)-1].text
	o.mu.Lock()
	o.text, o.owned = text, true
	o.mu.Unlock()
	o.since = t
	xproto.SetSelectionOwner(o.xc, o.win, o.a.clipboard, t)
	var err error
	r, rerr := xproto.GetSelectionOwner(o.xc, o.a.clipboard).Reply()
	switch {
	case rerr != nil:
		err = fmt.Errorf("%w: setting the clipboard: %v", platform.ErrDisplayUnavailable, rerr)
	case r.Owner != o.win:
		err = fmt.Errorf("%w: setting the clipboard: window 0x%x took it at the same time", platform.ErrActionFailed, r.Owner)
	}
	if err != nil {
		o.mu.Lock()
		o.text, o.owned = "", false
		o.mu.Unlock()
	}
	for _, p := range o.pending {
		p.reply <- err
	}
	o.pending = nil
}

// answer serves one SelectionRequest (ICCCM 2.2) and always sends the SelectionNotify.
func (o *clipOwner) answer(e xproto.SelectionRequestEvent) {
	prop := e.Property
	if prop == xproto.AtomNone {
		prop = e.Target // an obsolete requestor
	}
	o.mu.Lock()
	text, owned := o.text, o.owned
	o.mu.Unlock()
	ok := owned && e.Owner == o.win && e.Selection == o.a.clipboard &&
		(e.Time == xproto.TimeCurrentTime || e.Time >= o.since)
	if ok {
		ok = o.convert(e.Requestor, prop, e.Target, text)
	}
	if !ok {
		prop = xproto.AtomNone
	}
	n := xproto.SelectionNotifyEvent{Time: e.Time, Requestor: e.Requestor, Selection: e.Selection, Target: e.Target, Property: prop}
	xproto.SendEvent(o.xc, false, e.Requestor, 0, string(n.Bytes()))
}

// convert writes text as target into the requestor's property; false when target is not offered.
func (o *clipOwner) convert(req xproto.Window, prop, target xproto.Atom, text string) bool {
	a := o.a
	l1, isLatin1 := latin1(text)
	switch target {
	case a.targets:
		list := []xproto.Atom{a.targets, a.timestamp, a.utf8String, a.mimeUTF8}
		if isLatin1 {
			list = append(list, xproto.AtomString, a.text)
		}
		buf := make([]byte, 4*len(list))
		for i, t := range list {
			xgb.Put32(buf[4*i:], uint32(t))
		}
		xproto.ChangeProperty(o.xc, xproto.PropModeReplace, req, prop, xproto.AtomAtom, 32, uint32(len(list)), buf)
	case a.timestamp:
		buf := make([]byte, 4)
		xgb.Put32(buf, uint32(o.since))
		xproto.ChangeProperty(o.xc, xproto.PropModeReplace, req, prop, xproto.AtomInteger, 32, 1, buf)
	case a.utf8String, a.mimeUTF8:
		o.put(req, prop, target, []byte(text))
	case xproto.AtomString, a.text:
		if !isLatin1 {
			return false
		}
		o.put(req, prop, xproto.AtomString, l1)
	default:
		return false
	}
	return true
}

// put writes data, or starts an INCR transfer when it does not fit one request.
func (o *clipOwner) put(req xproto.Window, prop, typ xproto.Atom, data []byte) {
	if len(data) <= o.chunk {
		xproto.ChangeProperty(o.xc, xproto.PropModeReplace, req, prop, typ, 8, uint32(len(data)), data)
		return
	}
	// The requestor deletes the property to ask for each chunk: watch its properties.
	xproto.ChangeWindowAttributes(o.xc, req, xproto.CwEventMask, []uint32{xproto.EventMaskPropertyChange})
	size := make([]byte, 4)
	xgb.Put32(size, uint32(len(data)))
	xproto.ChangeProperty(o.xc, xproto.PropModeReplace, req, prop, o.a.incr, 32, 1, size)
	o.transfers[transferKey{req, prop}] = &transfer{typ: typ, data: data, last: time.Now()}
}

// advance sends the next INCR chunk once the requestor deleted the previous one; the empty
// chunk after the last one ends the transfer.
func (o *clipOwner) advance(k transferKey) {
	t := o.transfers[k]
	if t == nil {
		return
	}
	n := min(o.chunk, len(t.data)-t.off)
	xproto.ChangeProperty(o.xc, xproto.PropModeReplace, k.requestor, k.prop, t.typ, 8, uint32(n), t.data[t.off:t.off+n])
	t.off += n
	t.last = time.Now()
	if n == 0 {
		delete(o.transfers, k)
		o.unwatch(k.requestor)
	}
}

// unwatch stops PropertyNotify from a requestor with no transfer left.
func (o *clipOwner) unwatch(req xproto.Window) {
	for k := range o.transfers {
		if k.requestor == req {
			return
		}
	}
	xproto.ChangeWindowAttributes(o.xc, req, xproto.CwEventMask, []uint32{0})
}
