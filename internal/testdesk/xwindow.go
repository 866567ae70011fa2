package testdesk

import (
	"os"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// SolidWindow creates a managed top-level window of w x h pixels whose background the X server
// paints in colour rgb (0xRRGGBB for a 24-bit TrueColor visual), titled title and claiming this
// test process's pid. It waits until the window manager lists it in _NET_CLIENT_LIST and it is
// viewable, and destroys it at cleanup. It returns the window id.
func SolidWindow(t testing.TB, title string, rgb uint32, w, h int) uint32 {
	t.Helper()
	x, err := xgb.NewConnDisplay(Desktop().Display())
	if err != nil {
		t.Fatalf("testdesk: connect to X: %v", err)
	}
	t.Cleanup(x.Close)
	screen := xproto.Setup(x).DefaultScreen(x)
	id, err := xproto.NewWindowId(x)
	if err != nil {
		t.Fatal(err)
	}
	err = xproto.CreateWindowChecked(x, screen.RootDepth, id, screen.Root, 0, 0, uint16(w), uint16(h), 0,
		xproto.WindowClassInputOutput, screen.RootVisual, xproto.CwBackPixel, []uint32{rgb}).Check()
	if err != nil {
		t.Fatalf("testdesk: create window: %v", err)
	}
	t.Cleanup(func() { _ = xproto.DestroyWindowChecked(x, id).Check() })
	atom := func(name string) xproto.Atom {
		r, err := xproto.InternAtom(x, false, uint16(len(name)), name).Reply()
		if err != nil {
			t.Fatalf("testdesk: intern %s: %v", name, err)
		}
		return r.Atom
	}
	utf8 := atom("UTF8_STRING")
	set := func(prop, typ xproto.Atom, format byte, data []byte, n int) {
		if err := xproto.ChangePropertyChecked(x, xproto.PropModeReplace, id, prop, typ, format, uint32(n), data).Check(); err != nil {
			t.Fatalf("testdesk: set property: %v", err)
		}
	}
	set(xproto.AtomWmName, xproto.AtomString, 8, []byte(title), len(title))
	set(atom("_NET_WM_NAME"), utf8, 8, []byte(title), len(title))
	class := "mcec-test\x00McecTest\x00"
	set(xproto.AtomWmClass, xproto.AtomString, 8, []byte(class), len(class))
	pid := make([]byte, 4)
	xgb.Put32(pid, uint32(os.Getpid()))
	set(atom("_NET_WM_PID"), xproto.AtomCardinal, 32, pid, 1)
	if err := xproto.MapWindowChecked(x, id).Check(); err != nil {
		t.Fatalf("testdesk: map window: %v", err)
	}
	clientList := atom("_NET_CLIENT_LIST")
	WaitFor(t, 10*time.Second, "test window "+title+" was not managed", func() bool {
		a, err := xproto.GetWindowAttributes(x, id).Reply()
		if err != nil || a.MapState != xproto.MapStateViewable {
			return false
		}
		list, err := xproto.GetProperty(x, false, screen.Root, clientList, xproto.AtomWindow, 0, 4096).Reply()
		if err != nil {
			return false
		}
		for i := 0; i+4 <= len(list.Value); i += 4 {
			if xproto.Window(xgb.Get32(list.Value[i:])) == id {
				return true
			}
		}
		return false
	})
	return uint32(id)
}
