package linux

import (
	"context"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/atspi"
)

// TestNativeWindowsLeaveOut: the compositor's own objects (GNOME Shell's stage is a showing
// window on the bus), X11 programs' frames, hidden frames and frames not yet settled are no
// native windows; the active one is listed last.
func TestNativeWindowsLeaveOut(t *testing.T) {
	ctx := context.Background()
	const shell, x11, app = 10, 11, 12
	n := &nativeWindows{gnome: true, compositor: shell}
	frames := func(context.Context) ([]atspi.Frame, error) {
		return []atspi.Frame{
			{Ref: "s", PID: shell, Role: "window", Showing: true, Active: true},
			{Ref: "x", PID: x11, Role: "frame", Name: "xterm", Showing: true},
			{Ref: "a", PID: app, Role: "frame", Name: "editor", Showing: true, Active: true},
			{Ref: "d", PID: app, Role: "dialog", Name: "save", Showing: true},
			{Ref: "h", PID: app, Role: "frame", Name: "hidden"},
			{Ref: "m", PID: app, Role: "menu", Name: "a menu", Showing: true},
		}, nil
	}
	x11Windows := []platform.Window{{Handle: 0x400001, ProcessID: x11}}
	if ws := n.list(ctx, x11Windows, frames); len(ws) != 0 {
		t.Fatalf("frames seen for the first time listed: %+v", ws)
	}
	n.mu.Lock()
	for ref := range n.seen {
		n.seen[ref] = time.Now().Add(-time.Hour) // settled
	}
	n.framesAt = time.Time{}
	n.mu.Unlock()
	ws := n.list(ctx, x11Windows, frames)
	if len(ws) != 2 || ws[0].Title != "save" || ws[0].Type != "dialog" || ws[1].Title != "editor" || !ws[1].Focused {
		t.Fatalf("native windows %+v, want the dialog and then the active editor", ws)
	}
	for _, w := range ws {
		if !isNative(w.Handle) || w.Server != platform.ServerWayland || w.ProcessID != app {
			t.Errorf("native window %+v", w)
		}
	}
}
