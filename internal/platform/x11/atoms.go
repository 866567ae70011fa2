package x11

import (
	"strings"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// atoms are the non-predefined atoms this package uses, interned once at Dial.
type atoms struct {
	netClientList, netActiveWindow                xproto.Atom
	netWMName, utf8String, netWMPid, netWorkarea  xproto.Atom
	netWMState, stateHidden, stateMaxV, stateMaxH xproto.Atom
	stateFullscreen, stateModal                   xproto.Atom

	// Window operations and input.
	netClientListStacking, netMoveResizeWindow, netSupported xproto.Atom
	netFrameExtents, wmChangeState, wmProtocols, netWMPing   xproto.Atom
	stateAbove, wmState, netRequestFrameExtents              xproto.Atom

	// Clipboard.
	clipboard, targets, timestamp, incr, text, mimeUTF8 xproto.Atom
	mcecSelection, mcecTime                             xproto.Atom

	// Window types: _NET_WM_WINDOW_TYPE and its EWMH values, in windowTypeNames order.
	netWMWindowType xproto.Atom
	windowTypes     [len(windowTypeNames)]xproto.Atom
}

// windowTypeNames are the EWMH 1.5 window types, as platform.Window.Type reports them (the atom
// is "_NET_WM_WINDOW_TYPE_" and the name in upper case).
var windowTypeNames = [...]string{
	"normal", "dialog", "utility", "splash", "toolbar", "menu", "dock", "desktop",
	"dropdown_menu", "popup_menu", "tooltip", "notification", "combo", "dnd",
}

// windowType is the first EWMH type in a _NET_WM_WINDOW_TYPE list: the list is in order of
// preference, and a vendor type (KDE's _KDE_NET_WM_WINDOW_TYPE_OVERRIDE) comes with a standard
// fallback after it. "" when the list names none.
func (a *atoms) windowType(list []uint32) string {
	for _, v := range list {
		for i, t := range a.windowTypes {
			if xproto.Atom(v) == t {
				return windowTypeNames[i]
			}
		}
	}
	return ""
}

type atomField struct {
	name string
	dst  *xproto.Atom
}

func (a *atoms) fields() []atomField {
	f := []atomField{
		{"_NET_CLIENT_LIST", &a.netClientList},
		{"_NET_ACTIVE_WINDOW", &a.netActiveWindow},
		{"_NET_WM_NAME", &a.netWMName},
		{"UTF8_STRING", &a.utf8String},
		{"_NET_WM_PID", &a.netWMPid},
		{"_NET_WORKAREA", &a.netWorkarea},
		{"_NET_WM_STATE", &a.netWMState},
		{"_NET_WM_STATE_HIDDEN", &a.stateHidden},
		{"_NET_WM_STATE_MAXIMIZED_VERT", &a.stateMaxV},
		{"_NET_WM_STATE_MAXIMIZED_HORZ", &a.stateMaxH},
		{"_NET_WM_STATE_FULLSCREEN", &a.stateFullscreen},
		{"_NET_WM_STATE_MODAL", &a.stateModal},
		{"_NET_CLIENT_LIST_STACKING", &a.netClientListStacking},
		{"_NET_MOVERESIZE_WINDOW", &a.netMoveResizeWindow},
		{"_NET_SUPPORTED", &a.netSupported},
		{"_NET_FRAME_EXTENTS", &a.netFrameExtents},
		{"WM_CHANGE_STATE", &a.wmChangeState},
		{"WM_PROTOCOLS", &a.wmProtocols},
		{"_NET_WM_PING", &a.netWMPing},
		{"_NET_WM_STATE_ABOVE", &a.stateAbove},
		{"WM_STATE", &a.wmState},
		{"_NET_REQUEST_FRAME_EXTENTS", &a.netRequestFrameExtents},
		{"CLIPBOARD", &a.clipboard},
		{"TARGETS", &a.targets},
		{"TIMESTAMP", &a.timestamp},
		{"INCR", &a.incr},
		{"TEXT", &a.text},
		{"text/plain;charset=utf-8", &a.mimeUTF8},
		{"_MCEC_SELECTION", &a.mcecSelection},
		{"_MCEC_TIME", &a.mcecTime},
		{"_NET_WM_WINDOW_TYPE", &a.netWMWindowType},
	}
	for i, n := range windowTypeNames {
		f = append(f, atomField{"_NET_WM_WINDOW_TYPE_" + strings.ToUpper(n), &a.windowTypes[i]})
	}
	return f
}

type atomCookies []xproto.InternAtomCookie

// intern issues InternAtom for every atom. only_if_exists is false on purpose: an atom that no
// client has interned yet (no window manager running at Dial) would otherwise be cached as None.
func (a *atoms) intern(xc *xgb.Conn) atomCookies {
	var cs atomCookies
	for _, f := range a.fields() {
		cs = append(cs, xproto.InternAtom(xc, false, uint16(len(f.name)), f.name))
	}
	return cs
}

func (cs atomCookies) read(a *atoms) error {
	for i, f := range a.fields() {
		r, err := cs[i].Reply()
		if err != nil {
			return err
		}
		*f.dst = r.Atom
	}
	return nil
}
