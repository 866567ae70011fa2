package x11

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/procname"
	"github.com/mcec/mcec/internal/xgbext"
)

// Property read lengths, in 32-bit units. Longer values are cut, which only shortens titles.
const (
	maxClients   = 1 << 14
	maxTitleLong = 1024
	maxClassLong = 256
	maxStateLong = 64
	maxTypeLong  = 16
)

// Windows lists the managed top-level client windows bottom to top: in _NET_CLIENT_LIST_STACKING
// order (_NET_CLIENT_LIST is the order they were mapped in), or _NET_CLIENT_LIST's where the
// window manager keeps no stacking list.
// A window that disappears while being described is left out.
func (c *Conn) Windows(ctx context.Context) ([]platform.Window, error) {
	var out []platform.Window
	err := c.await(ctx, "listing windows", func() error {
		// The windows of the last listing are asked about together with the client list, so an
		// unchanged list costs one round trip; windows new to it are asked about after.
		rc := c.queryRoot()
		var known []xproto.Window
		if p := c.lastClients.Load(); p != nil {
			known = *p
		}
		asked := make(map[xproto.Window]*winQuery, len(known))
		for _, w := range known {
			asked[w] = c.queryWindow(w)
		}
		knownOwners := c.queryClientPIDs(known...)
		list, active, err := rc.read()
		if err != nil {
			drain(asked)
			_ = knownOwners.read()
			return err
		}
		var added []xproto.Window
		for _, w := range list {
			if asked[w] == nil {
				asked[w] = c.queryWindow(w)
				added = append(added, w)
			}
		}
		owners := knownOwners.read()
		owners.merge(c.queryClientPIDs(added...).read())
		out = make([]platform.Window, 0, len(list))
		var failed error
		for _, w := range list {
			q := asked[w]
			delete(asked, w)
			win, err := q.read(&c.atoms, active, owners)
			switch {
			case isGone(err), err == nil && own(win):
			case err != nil:
				failed = cmp.Or(failed, err)
			default:
				out = append(out, win)
			}
		}
		drain(asked) // windows that left the list since the last listing
		if failed != nil {
			return failed
		}
		c.lastClients.Store(&list)
		return nil
	})
	if err != nil {
		return nil, xerr(err, platform.ErrDisplayUnavailable, "listing windows")
	}
	for i := range out {
		out[i].ProcessName = procname.Of(out[i].ProcessID)
	}
	return out, nil
}

// Window describes one managed top-level window. A handle that is gone, or that is not in the
// window manager's client list, gives platform.ErrWindowClosed.
func (c *Conn) Window(ctx context.Context, handle uint32) (platform.Window, error) {
	var out platform.Window
	err := c.await(ctx, "describing a window", func() error {
		rc := c.queryRoot()
		q := c.queryWindow(xproto.Window(handle))
		pq := c.queryClientPIDs(xproto.Window(handle))
		list, active, err := rc.read()
		owners := pq.read()
		if err != nil {
			return err
		}
		if !contains(list, xproto.Window(handle)) {
			return fmt.Errorf("%w: 0x%x is not a managed top-level window (not in _NET_CLIENT_LIST)", platform.ErrWindowClosed, handle)
		}
		out, err = q.read(&c.atoms, active, owners)
		if err == nil && own(out) {
			return fmt.Errorf("%w: 0x%x is mcec's own window", platform.ErrWindowClosed, handle)
		}
		return err
	})
	if err != nil {
		return platform.Window{}, xerr(err, platform.ErrDisplayUnavailable, "window 0x%x", handle)
	}
	out.ProcessName = procname.Of(out.ProcessID)
	return out, nil
}

// drain reads the replies of queries nobody needs, so that none is left behind.
func drain(qs map[xproto.Window]*winQuery) {
	for _, q := range qs {
		q.discard()
	}
}

// discard reads every reply of q and drops them.
func (q *winQuery) discard() {
	_, _ = q.netName.Reply()
	_, _ = q.name.Reply()
	_, _ = q.class.Reply()
	_, _ = q.pid.Reply()
	_, _ = q.wmState.Reply()
	_, _ = q.geom.Reply()
	_, _ = q.pos.Reply()
	_, _ = q.transient.Reply()
	_, _ = q.winType.Reply()
}

// own reports whether w is one of mcec's own windows (the consent dialog). Such a window is
// never listed or resolved, so no tool can target it.
func own(w platform.Window) bool { return xgbext.IsOwnWindow(w.ProcessID, w.ClassName) }

// rootQuery reads the client list and the active window.
type rootQuery struct {
	list, stacking, active xproto.GetPropertyCookie
}

func (c *Conn) queryRoot() rootQuery {
	return rootQuery{
		list:     xproto.GetProperty(c.xc, false, c.scr.root, c.atoms.netClientList, xproto.AtomWindow, 0, maxClients),
		stacking: xproto.GetProperty(c.xc, false, c.scr.root, c.atoms.netClientListStacking, xproto.AtomWindow, 0, maxClients),
		active:   xproto.GetProperty(c.xc, false, c.scr.root, c.atoms.netActiveWindow, xproto.AtomWindow, 0, 1),
	}
}

func (q rootQuery) read() (list []xproto.Window, active xproto.Window, err error) {
	lr, err := q.list.Reply()
	if err != nil {
		_, _ = q.stacking.Reply()
		_, _ = q.active.Reply()
		return nil, 0, err
	}
	sr, err := q.stacking.Reply()
	if err != nil {
		_, _ = q.active.Reply()
		return nil, 0, err
	}
	ar, err := q.active.Reply()
	if err != nil {
		return nil, 0, err
	}
	ordered := prop32(lr)
	// The stacking list when it holds the same windows; a window manager between two updates
	// of the lists may not, and then the mapping order it is.
	if st := prop32(sr); len(st) == len(ordered) && sameSet(st, ordered) {
		ordered = st
	}
	for _, v := range ordered {
		list = append(list, xproto.Window(v))
	}
	if a := prop32(ar); len(a) > 0 {
		active = xproto.Window(a[0])
	}
	return list, active, nil
}

// sameSet reports whether a and b hold the same values (each list's values are distinct).
func sameSet(a, b []uint32) bool {
	in := make(map[uint32]bool, len(a))
	for _, v := range a {
		in[v] = true
	}
	for _, v := range b {
		if !in[v] {
			return false
		}
	}
	return true
}

// winQuery is every request needed to describe one window, in flight.
type winQuery struct {
	win                                xproto.Window
	netName, name, class, pid, wmState xproto.GetPropertyCookie
	transient, winType                 xproto.GetPropertyCookie
	geom                               xproto.GetGeometryCookie
	pos                                xproto.TranslateCoordinatesCookie
}

func (c *Conn) queryWindow(w xproto.Window) *winQuery {
	a := &c.atoms
	return &winQuery{
		win:     w,
		netName: xproto.GetProperty(c.xc, false, w, a.netWMName, a.utf8String, 0, maxTitleLong),
		name:    xproto.GetProperty(c.xc, false, w, xproto.AtomWmName, xproto.GetPropertyTypeAny, 0, maxTitleLong),
		class:   xproto.GetProperty(c.xc, false, w, xproto.AtomWmClass, xproto.AtomString, 0, maxClassLong),
		pid:     xproto.GetProperty(c.xc, false, w, a.netWMPid, xproto.AtomCardinal, 0, 1),
		wmState: xproto.GetProperty(c.xc, false, w, a.netWMState, xproto.AtomAtom, 0, maxStateLong),
		// Both tell dialogs from main windows, for mapping windows to accessible frames.
		transient: xproto.GetProperty(c.xc, false, w, xproto.AtomWmTransientFor, xproto.AtomWindow, 0, 1),
		winType:   xproto.GetProperty(c.xc, false, w, a.netWMWindowType, xproto.AtomAtom, 0, maxTypeLong),
		geom:      xproto.GetGeometry(c.xc, xproto.Drawable(w)),
		pos:       xproto.TranslateCoordinates(c.xc, w, c.scr.root, 0, 0),
	}
}

// read collects the replies. Every cookie is read even after an error, so a BadWindow on the
// first one does not leave the rest for later. owners supplies the pid of a window without
// _NET_WM_PID.
func (q *winQuery) read(a *atoms, active xproto.Window, owners ownerPIDs) (platform.Window, error) {
	netName, err1 := q.netName.Reply()
	name, err2 := q.name.Reply()
	class, err3 := q.class.Reply()
	pid, err4 := q.pid.Reply()
	st, err5 := q.wmState.Reply()
	geom, err6 := q.geom.Reply()
	pos, err7 := q.pos.Reply()
	transient, err8 := q.transient.Reply()
	winType, err9 := q.winType.Reply()
	for _, err := range []error{err1, err2, err3, err4, err5, err6, err7, err8, err9} {
		if err != nil {
			return platform.Window{}, err
		}
	}
	w := platform.Window{
		Handle:  uint32(q.win),
		Title:   title(netName, name),
		Focused: q.win == active,
		Bounds:  platform.Rect{X: int(pos.DstX), Y: int(pos.DstY), Width: int(geom.Width), Height: int(geom.Height)},
	}
	if class != nil {
		w.ClassName = wmClass(class.Value)
	}
	if v := prop32(pid); len(v) > 0 {
		w.ProcessID = int(v[0])
	} else {
		w.ProcessID = owners.of(q.win)
	}
	if v := prop32(transient); len(v) > 0 {
		w.TransientFor = v[0]
	}
	w.Type = a.windowType(prop32(winType))
	var maxV, maxH bool
	for _, s := range prop32(st) {
		switch xproto.Atom(s) {
		case a.stateHidden:
			w.Minimized = true
		case a.stateMaxV:
			maxV = true
		case a.stateMaxH:
			maxH = true
		case a.stateFullscreen:
			w.Fullscreen = true
		case a.stateModal:
			w.Modal = true
		}
	}
	w.Maximized = maxV && maxH
	return w, nil
}

// prop32 decodes a format-32 property value (xgb speaks little-endian to the server).
func prop32(r *xproto.GetPropertyReply) []uint32 {
	if r == nil || r.Format != 32 {
		return nil
	}
	out := make([]uint32, 0, len(r.Value)/4)
	for i := 0; i+4 <= len(r.Value); i += 4 {
		out = append(out, xgb.Get32(r.Value[i:]))
	}
	return out
}

// title prefers _NET_WM_NAME (UTF-8) and falls back to WM_NAME, which is Latin-1 when typed
// STRING and usually UTF-8 otherwise.
func title(netName, name *xproto.GetPropertyReply) string {
	if netName != nil && netName.Format == 8 && len(netName.Value) > 0 {
		return cleanText(netName.Value, false)
	}
	if name != nil && name.Format == 8 && len(name.Value) > 0 {
		return cleanText(name.Value, name.Type == xproto.AtomString)
	}
	return ""
}

func cleanText(b []byte, latin1 bool) string {
	b = bytes.TrimRight(b, "\x00")
	if latin1 || !utf8.Valid(b) {
		var sb strings.Builder
		for _, c := range b {
			sb.WriteRune(rune(c))
		}
		return sb.String()
	}
	return string(b)
}

// wmClass returns the class part of WM_CLASS ("instance\0class\0").
func wmClass(v []byte) string {
	parts := bytes.Split(bytes.TrimRight(v, "\x00"), []byte{0})
	if len(parts) < 2 {
		return ""
	}
	return cleanText(parts[1], true)
}

func contains(list []xproto.Window, w xproto.Window) bool {
	for _, x := range list {
		if x == w {
			return true
		}
	}
	return false
}
