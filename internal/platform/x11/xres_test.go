//go:build linux

package x11_test

import (
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/x11"
	"github.com/mcec/mcec/internal/testdesk"
)

// listed returns the window with handle h from a fresh listing, and whether it is there.
func listed(t *testing.T, c *x11.Conn, h uint32) (platform.Window, bool) {
	t.Helper()
	list, err := c.Windows(ctxT(t))
	if err != nil {
		t.Fatalf("Windows: %v", err)
	}
	for _, w := range list {
		if w.Handle == h {
			return w, true
		}
	}
	return platform.Window{}, false
}

// waitTitled waits until a managed window titled title is listed and returns it.
func waitTitled(t *testing.T, c *x11.Conn, title string) platform.Window {
	t.Helper()
	var got platform.Window
	testdesk.WaitFor(t, waitLimit(), "no window titled "+title, func() bool {
		list, err := c.Windows(ctxT(t))
		if err != nil {
			return false
		}
		for _, w := range list {
			if w.Title == title {
				got = w
				return true
			}
		}
		return false
	})
	return got
}

// TestWindowsOwnerWithoutPID: a window that sets no _NET_WM_PID still names its process, from
// the X Resource extension; one that sets it keeps what it says.
func TestWindowsOwnerWithoutPID(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	me, comm := os.Getpid(), processComm(t, os.Getpid())

	bare := uint32(app.window(t, winOpts{x: 30, y: 30, w: 80, h: 60, managed: true, noPID: true, bg: u32(0x406080), title: "no pid"}))
	waitManaged(t, c, bare)
	solid := testdesk.SolidWindow(t, "solid with pid", 0x804020, 80, 60)
	for _, h := range []uint32{bare, solid} {
		w, ok := listed(t, c, h)
		if !ok {
			t.Fatalf("window 0x%x not listed", h)
		}
		if w.ProcessID != me || w.ProcessName != comm {
			t.Errorf("window %q: pid %d process %q, want %d %q", w.Title, w.ProcessID, w.ProcessName, me, comm)
		}
		one, err := c.Window(ctxT(t), h)
		if err != nil {
			t.Fatal(err)
		}
		if one.ProcessID != me || one.ProcessName != comm {
			t.Errorf("Window(%q): pid %d process %q, want %d %q", w.Title, one.ProcessID, one.ProcessName, me, comm)
		}
	}

	// Without the extension the pid-less window is anonymous again: the pid above came from XRes.
	x11.SetXRes(c, false)
	defer x11.SetXRes(c, true)
	if w, _ := listed(t, c, bare); w.ProcessID != 0 || w.ProcessName != "" {
		t.Errorf("without XRes: pid %d process %q, want none", w.ProcessID, w.ProcessName)
	}
	if w, _ := listed(t, c, solid); w.ProcessID != me {
		t.Errorf("without XRes, _NET_WM_PID: pid %d, want %d", w.ProcessID, me)
	}
}

// TestWindowsTk: Tk 8.6 sets no _NET_WM_PID; its windows, the dialog included, belong to wish.
func TestWindowsTk(t *testing.T) {
	wish, err := exec.LookPath("wish")
	if err != nil {
		t.Skip("wish not installed (apt-get install tk8.6)")
	}
	c := dial(t)
	newXApp(t) // the window manager is ready
	main, dialog := fmt.Sprintf("mcec tk %d", os.Getpid()), fmt.Sprintf("mcec tk dialog %d", os.Getpid())
	p := testdesk.Start(t, wish, "testdata/tkbutton.tcl", main, dialog)
	mw := waitTitled(t, c, main)
	dw := waitTitled(t, c, dialog)
	comm := processComm(t, p.PID)
	for _, w := range []platform.Window{mw, dw} {
		if w.ProcessID != p.PID || w.ProcessName != comm || w.ProcessName == "" {
			t.Errorf("window %q: pid %d process %q, want %d %q", w.Title, w.ProcessID, w.ProcessName, p.PID, comm)
		}
	}
	if mw.TransientFor != 0 || dw.TransientFor != mw.Handle {
		t.Errorf("transient for: main 0x%x, dialog 0x%x; want 0 and the main window 0x%x", mw.TransientFor, dw.TransientFor, mw.Handle)
	}
}

// TestWindowsTransientAndType: WM_TRANSIENT_FOR and the first EWMH type of _NET_WM_WINDOW_TYPE.
func TestWindowsTransientAndType(t *testing.T) {
	c := dial(t)
	app := newXApp(t)
	owner := app.window(t, winOpts{x: 10, y: 10, w: 120, h: 90, managed: true, bg: u32(0x202020), title: "owner",
		types: []string{"_NET_WM_WINDOW_TYPE_NORMAL"}})
	tests := []struct {
		name      string
		opts      winOpts
		transient uint32
		typ       string
	}{
		{"untyped", winOpts{}, 0, ""},
		{"dialog", winOpts{transientFor: owner, types: []string{"_NET_WM_WINDOW_TYPE_DIALOG"}}, uint32(owner), "dialog"},
		{"vendor type first", winOpts{types: []string{"_KDE_NET_WM_WINDOW_TYPE_OVERRIDE", "_NET_WM_WINDOW_TYPE_UTILITY"}}, 0, "utility"},
		{"only a vendor type", winOpts{types: []string{"_MCEC_NET_WM_WINDOW_TYPE_ODD"}}, 0, ""},
		{"splash", winOpts{types: []string{"_NET_WM_WINDOW_TYPE_SPLASH"}}, 0, "splash"},
	}
	handles := make([]uint32, len(tests))
	for i, tt := range tests {
		o := tt.opts
		o.x, o.y, o.w, o.h, o.managed, o.bg, o.title = 150+20*i, 10, 60, 40, true, u32(0x303030), tt.name
		handles[i] = uint32(app.window(t, o))
		waitManaged(t, c, handles[i])
	}
	if w, ok := listed(t, c, uint32(owner)); !ok || w.Type != "normal" || w.TransientFor != 0 {
		t.Errorf("owner: %+v (listed %v), want type normal, no transient-for", w, ok)
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, ok := listed(t, c, handles[i])
			if !ok {
				t.Fatalf("0x%x not listed", handles[i])
			}
			if w.TransientFor != tt.transient || w.Type != tt.typ {
				t.Errorf("transient-for 0x%x type %q, want 0x%x %q", w.TransientFor, w.Type, tt.transient, tt.typ)
			}
			one, err := c.Window(ctxT(t), handles[i])
			if err != nil {
				t.Fatal(err)
			}
			if one.TransientFor != w.TransientFor || one.Type != w.Type {
				t.Errorf("Window() says 0x%x %q, Windows() 0x%x %q", one.TransientFor, one.Type, w.TransientFor, w.Type)
			}
		})
	}
}
