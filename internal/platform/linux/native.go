package linux

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/atspi"
	"github.com/mcec/mcec/internal/procname"
	"github.com/mcec/mcec/internal/sysload"
)

// nativeWindows lists the windows of native Wayland programs from the accessibility bus, where
// the compositor lists none to mcec: GNOME Shell without mcec's extension, with mcec attached
// to its XWayland display
// for the X11 programs. A native window is an application's showing top-level object (a frame,
// a dialog) whose process has no X11 window. Nothing tells where it is: it and its objects get
// no bounds, and window operations, window capture and pointer input aimed at it fail
// ErrCompositorUnsupported naming the extension. What works is what needs no place: trees,
// semantic actions (invoke, toggle, setvalue, select, setfocus), and keys while it is the
// active window, through the desktop's RemoteDesktop portal (portalkeys.go).
//
// A native window's handle is mcec's own number, from nativeHandleBase up (an X11 window id
// never has its top three bits set), given per accessible object and never reused.
type nativeWindows struct {
	gnome bool // the compositor is GNOME Shell (its errors name mcec's extension)
	// compositor is the compositor's pid (0 when unknown): GNOME Shell's own objects (its
	// stage, the Overview) are on the bus as a window, and are none of the programs' windows.
	compositor int

	mu      sync.Mutex
	handles map[string]uint32    // the frame's ref → handle
	seen    map[string]time.Time // the frame's ref → when it was first seen without an X11 window
	next    uint32

	// The last read of the bus, reused for a while: every tool call lists the windows, and a
	// hung application makes each read cost nativeSearch.
	frames   []atspi.Frame
	framesAt time.Time
	partial  bool // the last read ran out of time
}

const nativeHandleBase = 0xE000_0000

// isNative reports whether handle names a native window.
func isNative(handle uint32) bool { return handle >= nativeHandleBase }

// nativeSettle is how long a frame must have been seen, its process without an X11 window,
// before it is listed as a native window: an X11 program registers on the bus before its window
// is managed, and was listed as native for that moment.
const nativeSettle = 300 * time.Millisecond

// How long a read of the bus's frames is reused: briefly, or longer after one that ran out of
// time (an application hangs).
const (
	nativeReuse     = 200 * time.Millisecond
	nativeReuseSlow = 2 * time.Second
)

// nativeSearch bounds one read of the accessibility bus's frames (a hung application costs no
// more; a frame not read is a window not listed this time).
const nativeSearch = 500 * time.Millisecond

// nativeRoles are the roles of top-level objects that are windows.
var nativeRoles = map[string]string{"frame": "normal", "window": "normal", "dialog": "dialog", "alert": "dialog",
	"file chooser": "dialog", "color chooser": "dialog", "font chooser": "dialog"}

// list returns the native windows beside the X11 windows x11, in the order the bus lists them,
// the active one last.
func (n *nativeWindows) list(ctx context.Context, x11 []platform.Window, frames func(context.Context) ([]atspi.Frame, error)) []platform.Window {
	fs := n.read(ctx, frames)
	hasX11 := map[int]bool{}
	for _, w := range x11 {
		if w.ProcessID > 0 {
			hasX11[w.ProcessID] = true
		}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.handles == nil {
		n.handles, n.seen, n.next = map[string]uint32{}, map[string]time.Time{}, nativeHandleBase
	}
	now := time.Now()
	var out []platform.Window
	live := map[string]bool{}
	for _, f := range fs {
		kind, ok := nativeRoles[f.Role]
		if !ok || f.PID <= 0 || hasX11[f.PID] || f.PID == n.compositor {
			continue
		}
		live[f.Ref] = true // a hidden window keeps its handle for when it shows again
		first, ok := n.seen[f.Ref]
		if !ok {
			first = now
			n.seen[f.Ref] = now
		}
		if !f.Showing || now.Sub(first) < sysload.Scale(nativeSettle) {
			continue
		}
		h, ok := n.handles[f.Ref]
		if !ok {
			n.next++
			h = n.next
			n.handles[f.Ref] = h
		}
		out = append(out, platform.Window{Handle: h, Title: f.Name, ProcessID: f.PID, ProcessName: procname.Of(f.PID),
			Focused: f.Active, Type: kind, Server: platform.ServerWayland})
	}
	for ref := range n.seen {
		if !live[ref] {
			delete(n.handles, ref) // gone: its handle is never given again
			delete(n.seen, ref)
		}
	}
	slices.SortStableFunc(out, func(a, b platform.Window) int {
		switch {
		case a.Focused == b.Focused:
			return 0
		case a.Focused:
			return 1
		}
		return -1
	})
	return out
}

// read returns the bus's frames, read again once the last read is too old.
func (n *nativeWindows) read(ctx context.Context, frames func(context.Context) ([]atspi.Frame, error)) []atspi.Frame {
	n.mu.Lock()
	reuse := nativeReuse
	if n.partial {
		reuse = nativeReuseSlow
	}
	if !n.framesAt.IsZero() && time.Since(n.framesAt) < reuse {
		fs := n.frames
		n.mu.Unlock()
		return fs
	}
	n.mu.Unlock()
	fctx, cancel := context.WithTimeout(ctx, sysload.Scale(nativeSearch))
	fs, err := frames(fctx) // partial on a timeout
	partial := fctx.Err() != nil && ctx.Err() == nil
	cancel()
	if err != nil && !partial {
		return fs // the bus failed: nothing to keep
	}
	n.mu.Lock()
	n.frames, n.framesAt, n.partial = fs, time.Now(), partial
	n.mu.Unlock()
	return fs
}

// unplacedErr is the failure of what a native window's unknown place makes impossible.
func (n *nativeWindows) unplacedErr(what string, handle uint32) error {
	fix := "this compositor lists its windows to no program"
	if n.gnome {
		fix = "without mcec's Shell extension (`mcec setup gnome`; docs/wayland.md)"
	}
	return fmt.Errorf("%w: %s window %d: the compositor tells no program where a native Wayland window is, nor lets one "+
		"move, raise, capture or point at it, %s; keys reach it while it is the active window (through the desktop's "+
		"RemoteDesktop portal, once the user allows it); use invoke, toggle, setvalue, select and setfocus on its elements",
		platform.ErrCompositorUnsupported, what, handle, fix)
}

// screenErr is the failure of a screen capture: a rootless Xwayland refuses to read its root
// window (BadMatch on GNOME), and would show only its own programs if it did.
func (n *nativeWindows) screenErr(err error) error {
	fix := "this compositor lets no program read the screen"
	if n.gnome {
		fix = "GNOME Shell lets no program read the screen without mcec's Shell extension (`mcec setup gnome`; docs/wayland.md)"
	}
	return fmt.Errorf("%w: %s, and XWayland's screen holds only its X11 programs (%v); capture an X11 program's window by its "+
		"handle instead", platform.ErrCompositorUnsupported, fix, err)
}

// nativePoll is how often native windows are looked for changes: the bus's window events are
// the applications', and a watch of every application costs more than a look.
const nativePoll = time.Second

// watch wakes on x11's wake-ups and every nativePoll, coalesced, until ctx ends.
func (n *nativeWindows) watch(ctx context.Context, x11 <-chan struct{}) <-chan struct{} {
	out := make(chan struct{}, 1)
	go func() {
		defer close(out)
		tick := time.NewTicker(nativePoll)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case _, ok := <-x11:
				if !ok {
					x11 = nil
					continue
				}
			case <-tick.C:
			}
			select {
			case out <- struct{}{}:
			default:
			}
		}
	}()
	return out
}

// stripBounds removes every bounds below n: a native window's objects have no known place,
// whatever coordinates their toolkit reports (window-local ones, on Wayland).
func stripBounds(n *platform.Node) {
	if n == nil {
		return
	}
	n.Bounds = nil
	for _, k := range n.Children {
		stripBounds(k)
	}
}
