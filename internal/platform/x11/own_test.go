package x11_test

import (
	"errors"
	"testing"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/testdesk"
	"github.com/mcec/mcec/internal/xgbext"
)

// mcec's own windows (the consent dialog: class Mcec, this process's pid) are neither listed
// nor resolvable by handle; a window of another class claiming the same pid is.
func TestOwnWindowHidden(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	mine := app.window(t, winOpts{x: 10, y: 10, w: 40, h: 40, managed: true, bg: u32(0x808080), title: "own dialog"})
	app.prop(t, mine, "WM_CLASS", "STRING", 8, []byte("mcec\x00"+xgbext.OwnClass+"\x00"))
	other := app.window(t, winOpts{x: 60, y: 10, w: 40, h: 40, managed: true, bg: u32(0x808080), title: "test app"})
	waitManaged(t, c, uint32(other))
	clientList := app.atom(t, "_NET_CLIENT_LIST")
	testdesk.WaitFor(t, waitLimit(), "the own window in _NET_CLIENT_LIST", func() bool {
		r, err := xproto.GetProperty(app.c, false, app.root, clientList, xproto.AtomWindow, 0, 4096).Reply()
		if err != nil {
			return false
		}
		for i := 0; i+4 <= len(r.Value); i += 4 {
			if xproto.Window(xgb.Get32(r.Value[i:])) == mine {
				return true
			}
		}
		return false
	})

	ws, err := c.Windows(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	var sawOther bool
	for _, w := range ws {
		if w.Handle == uint32(mine) {
			t.Errorf("Windows lists mcec's own window: %+v", w)
		}
		sawOther = sawOther || w.Handle == uint32(other)
	}
	if !sawOther {
		t.Error("Windows left out a test window of another class")
	}
	if _, err := c.Window(ctxT(t), uint32(mine)); !errors.Is(err, platform.ErrWindowClosed) {
		t.Errorf("Window(own) err = %v, want ErrWindowClosed", err)
	}
	if _, err := c.Window(ctxT(t), uint32(other)); err != nil {
		t.Errorf("Window(other): %v", err)
	}
}
