// Package fake is an in-memory desktop that implements platform.Desktop, for tests of tool
// logic, dispatch, evidence and safety that need no X server, and as the reference a second
// backend is written against (internal/platform/platformtest checks both).
//
// It owns: a stack of top-level windows (focus, stacking, move, resize, minimize, maximize),
// one accessible tree per window with live refs, the semantic actions on them, events on the
// watch channels after every change, input that is recorded as gestures and reaches the tree
// (a click on a button's bounds invokes it, typing edits the focused text), the clipboard, the
// displays and synthetic captures (each window a flat colour).
//
// A test builds a scene with AddWindow, changes it as an application would (SetName, SetState,
// AddChild, Remove, CloseWindow …) and scripts reactions with Elem.OnInvoke and InputHook.
// Everything is deterministic: handles and refs are numbered in creation order, nothing
// happens on a timer, and every change is visible to the next call. All methods are safe for
// concurrent use; handlers and hooks run without the desktop's lock held, so they may call
// any method.
package fake

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"slices"
	"sync"
	"time"

	"github.com/mcec/mcec/internal/platform"
)

// Options shape a new desktop; the zero value is one 1280x800 monitor at 96 DPI.
type Options struct {
	Width, Height int
	// WindowManager is what WindowManager reports ("fake" when empty).
	WindowManager string
	// CallTimeout is how long a hung process (Hang) keeps a call waiting before it fails
	// ErrAppNotResponding, as the AT-SPI backend's per-call timeout does (default 1 s); the
	// caller's deadline ends the wait sooner.
	CallTimeout time.Duration
}

// Desktop is the in-memory desktop. The zero value is not usable; call New.
type Desktop struct {
	mu       sync.Mutex
	opts     Options
	closed   bool
	windows  []*window // stacking order, bottom to top
	nodes    map[string]*node
	focus    map[int]string        // pid -> the ref with keyboard focus
	hung     map[int]chan struct{} // closed when the process answers again
	slowActs map[int]bool          // processes whose actions report ModalPending (SlowActs)
	stalled  map[int]int           // calls waiting on a hung process
	nextWin  uint32
	nextRef  int
	clip     string
	pointer  platform.Point
	held     []string // keys and buttons down, in press order
	gestures []Gesture
	hook     func(ctx context.Context, s Step) error

	treeWatch map[int]map[chan struct{}]bool
	winWatch  map[chan struct{}]bool
}

// New returns an empty desktop.
func New(opts Options) *Desktop {
	if opts.Width <= 0 || opts.Height <= 0 {
		opts.Width, opts.Height = 1280, 800
	}
	if opts.WindowManager == "" {
		opts.WindowManager = "fake"
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = time.Second
	}
	return &Desktop{opts: opts, nodes: map[string]*node{}, focus: map[int]string{}, hung: map[int]chan struct{}{}, stalled: map[int]int{},
		nextWin: 0x400000, treeWatch: map[int]map[chan struct{}]bool{}, winWatch: map[chan struct{}]bool{}}
}

var _ platform.Desktop = (*Desktop)(nil)

// WindowSpec describes a window to open.
type WindowSpec struct {
	Title, ClassName, ProcessName string
	// PID owns the window and its tree. Pick numbers above the kernel's pid_max (4194304), e.g.
	// from 5000000, so that code which looks a pid up in /proc finds nothing real.
	PID    int
	Bounds platform.Rect
	Type   string // "normal" when empty
	Modal  bool
	// TransientFor is the handle of the window this one belongs to (a dialog's main window).
	TransientFor uint32
	// Color fills the window in captures (a colour derived from the handle when nil).
	Color color.Color
	// Root is the window's accessible frame; nil means the application exposes no tree
	// (Tree fails ErrNoAccessibleTree).
	Root *Elem
	// Background opens the window without taking the focus.
	Background bool
}

type window struct {
	platform.Window
	color   color.Color
	root    string // ref of the frame, "" when none
	restore platform.Rect
}

// AddWindow maps a new window on top of the stack (and focuses it unless spec.Background) and
// returns its handle.
func (d *Desktop) AddWindow(spec WindowSpec) uint32 {
	d.mu.Lock()
	d.nextWin += 0x10
	w := &window{Window: platform.Window{Handle: d.nextWin, Title: spec.Title, ClassName: spec.ClassName,
		ProcessName: spec.ProcessName, ProcessID: spec.PID, Bounds: spec.Bounds, Modal: spec.Modal,
		TransientFor: spec.TransientFor, Type: spec.Type}, color: spec.Color}
	if w.Type == "" {
		w.Type = "normal"
	}
	if w.color == nil {
		h := w.Handle >> 4
		w.color = color.RGBA{R: uint8(40 + h*53%200), G: uint8(40 + h*97%200), B: uint8(40 + h*31%200), A: 255}
	}
	if spec.Root != nil {
		w.root = d.build(spec.PID, w.Handle, "", spec.Root)
	}
	d.windows = append(d.windows, w)
	if !spec.Background {
		d.activate(w)
	}
	h := w.Handle
	pid := spec.PID
	d.mu.Unlock()
	d.windowsChanged()
	d.treeChanged(pid)
	return h
}

// CloseWindow unmaps the window and destroys its tree (its refs go stale), as an application
// closing a dialog does. Closing an unknown handle does nothing.
func (d *Desktop) CloseWindow(handle uint32) {
	d.mu.Lock()
	i := slices.IndexFunc(d.windows, func(w *window) bool { return w.Handle == handle })
	if i < 0 {
		d.mu.Unlock()
		return
	}
	w := d.windows[i]
	d.windows = slices.Delete(d.windows, i, i+1)
	if w.root != "" {
		d.drop(d.nodes[w.root])
	}
	if w.Focused {
		d.focusTop()
	}
	pid := w.ProcessID
	d.mu.Unlock()
	d.windowsChanged()
	d.treeChanged(pid)
}

// SetTitle renames a window.
func (d *Desktop) SetTitle(handle uint32, title string) {
	d.mu.Lock()
	if w := d.win(handle); w != nil {
		w.Title = title
	}
	d.mu.Unlock()
	d.windowsChanged()
}

// Hang makes process pid stop answering (true) or answer again (false), as a busy application
// does: its tree, elements and actions wait until it answers again (then they proceed), or fail
// ErrAppNotResponding after Options.CallTimeout or at the caller's deadline.
func (d *Desktop) Hang(pid int, hung bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	ch, was := d.hung[pid]
	switch {
	case hung && !was:
		d.hung[pid] = make(chan struct{})
	case !hung && was:
		close(ch)
		delete(d.hung, pid)
	}
}

// SlowActs makes process pid answer its actions too late (true) or in time (false): Act does
// the action and reports ModalPending, as the AT-SPI backend does for a loaded application
// that answers after its grace, while every other call is answered at once.
func (d *Desktop) SlowActs(pid int, slow bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.slowActs == nil {
		d.slowActs = map[int]bool{}
	}
	d.slowActs[pid] = slow
}

// win finds a window by handle; d.mu held.
func (d *Desktop) win(handle uint32) *window {
	for _, w := range d.windows {
		if w.Handle == handle {
			return w
		}
	}
	return nil
}

// activate raises w to the top and gives it the focus; d.mu held.
func (d *Desktop) activate(w *window) {
	for _, x := range d.windows {
		x.Focused = false
	}
	i := slices.Index(d.windows, w)
	d.windows = append(slices.Delete(d.windows, i, i+1), w)
	w.Minimized = false
	w.Focused = true
}

// focusTop gives the focus to the topmost visible window (none when all are minimized); d.mu held.
func (d *Desktop) focusTop() {
	for _, x := range d.windows {
		x.Focused = false
	}
	for i := len(d.windows) - 1; i >= 0; i-- {
		if !d.windows[i].Minimized {
			d.windows[i].Focused = true
			return
		}
	}
}

// check fails once the desktop is closed; d.mu held.
func (d *Desktop) check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d.closed {
		return fmt.Errorf("%w: the fake desktop is closed", platform.ErrDisplayUnavailable)
	}
	return nil
}

// Windows lists the windows bottom to top.
func (d *Desktop) Windows(ctx context.Context) ([]platform.Window, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(ctx); err != nil {
		return nil, err
	}
	out := make([]platform.Window, len(d.windows))
	for i, w := range d.windows {
		out[i] = w.Window
	}
	return out, nil
}

// Window re-describes one window.
func (d *Desktop) Window(ctx context.Context, handle uint32) (platform.Window, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(ctx); err != nil {
		return platform.Window{}, err
	}
	w := d.win(handle)
	if w == nil {
		return platform.Window{}, fmt.Errorf("%w: handle %d", platform.ErrWindowClosed, handle)
	}
	return w.Window, nil
}

// screen is the one monitor's bounds.
func (d *Desktop) screen() platform.Rect {
	return platform.Rect{Width: d.opts.Width, Height: d.opts.Height}
}

// Displays reports one monitor covering the screen.
func (d *Desktop) Displays(ctx context.Context) (platform.Displays, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(ctx); err != nil {
		return platform.Displays{}, err
	}
	s := d.screen()
	return platform.Displays{VirtualBounds: s, Monitors: []platform.Monitor{{Index: 0, Primary: true, Name: "FAKE-0",
		Bounds: s, WorkingArea: s, DPI: 96, Scale: 1}}}, nil
}

// WindowOp moves, resizes, minimizes, maximizes, restores or activates a window.
func (d *Desktop) WindowOp(ctx context.Context, handle uint32, op platform.WindowOp) error {
	d.mu.Lock()
	if err := d.check(ctx); err != nil {
		d.mu.Unlock()
		return err
	}
	w := d.win(handle)
	if w == nil {
		d.mu.Unlock()
		return fmt.Errorf("%w: handle %d", platform.ErrWindowClosed, handle)
	}
	switch op.Kind {
	case platform.OpMove:
		w.Bounds.X, w.Bounds.Y = op.X, op.Y
	case platform.OpResize:
		if op.Width <= 0 || op.Height <= 0 {
			d.mu.Unlock()
			return fmt.Errorf("%w: size %dx%d", platform.ErrBadValue, op.Width, op.Height)
		}
		w.Bounds.Width, w.Bounds.Height = op.Width, op.Height
	case platform.OpMinimize:
		w.Minimized = true
		if w.Focused {
			d.focusTop()
		}
	case platform.OpMaximize:
		if !w.Maximized {
			w.restore = w.Bounds
		}
		w.Maximized, w.Bounds = true, d.screen()
	case platform.OpRestore:
		if w.Maximized {
			w.Bounds = w.restore
		}
		w.Maximized, w.Minimized = false, false
	case platform.OpActivate:
		d.activate(w)
	default:
		d.mu.Unlock()
		return fmt.Errorf("%w: window operation %q", platform.ErrUnsupported, op.Kind)
	}
	d.mu.Unlock()
	d.windowsChanged()
	return nil
}

// paint draws the visible windows, bottom to top, into img whose origin is at r's corner;
// d.mu held.
func (d *Desktop) paint(img *image.RGBA, r platform.Rect, only *window) {
	fill := func(b platform.Rect, c color.Color) {
		in := b.Intersect(r)
		for y := in.Y; y < in.Y+in.Height; y++ {
			for x := in.X; x < in.X+in.Width; x++ {
				img.Set(x-r.X, y-r.Y, c)
			}
		}
	}
	fill(r, color.RGBA{R: 0x30, G: 0x30, B: 0x30, A: 0xff}) // the root window
	for _, w := range d.windows {
		if (only == nil && !w.Minimized) || w == only {
			fill(w.Bounds, w.color)
		}
	}
}

// CaptureRect returns what the screen shows in r: the root grey, each visible window its colour.
func (d *Desktop) CaptureRect(ctx context.Context, r platform.Rect) (*image.RGBA, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(ctx); err != nil {
		return nil, err
	}
	if r.Empty() {
		return nil, fmt.Errorf("%w: empty rectangle %+v", platform.ErrCaptureFailed, r)
	}
	img := image.NewRGBA(image.Rect(0, 0, r.Width, r.Height))
	d.paint(img, r, nil)
	return img, nil
}

// CaptureWindow returns the window's own pixels (its colour), also when covered or minimized.
func (d *Desktop) CaptureWindow(ctx context.Context, handle uint32) (platform.WindowCapture, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(ctx); err != nil {
		return platform.WindowCapture{}, err
	}
	w := d.win(handle)
	if w == nil {
		return platform.WindowCapture{}, fmt.Errorf("%w: handle %d", platform.ErrWindowClosed, handle)
	}
	img := image.NewRGBA(image.Rect(0, 0, w.Bounds.Width, w.Bounds.Height))
	d.paint(img, w.Bounds, w)
	return platform.WindowCapture{Image: img}, nil
}

// ClipboardGet returns the clipboard text.
func (d *Desktop) ClipboardGet(ctx context.Context) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(ctx); err != nil {
		return "", err
	}
	return d.clip, nil
}

// ClipboardSet replaces the clipboard text.
func (d *Desktop) ClipboardSet(ctx context.Context, text string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(ctx); err != nil {
		return err
	}
	d.clip = text
	return nil
}

// WindowManager names the fake window manager.
func (d *Desktop) WindowManager(ctx context.Context) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(ctx); err != nil {
		return "", err
	}
	return d.opts.WindowManager, nil
}

// Apps lists one application per process that has a window with a tree.
func (d *Desktop) Apps(ctx context.Context) ([]platform.App, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(ctx); err != nil {
		return nil, err
	}
	var out []platform.App
	for _, w := range d.windows {
		if d.nodes[w.root] == nil || slices.ContainsFunc(out, func(a platform.App) bool { return a.PID == w.ProcessID }) {
			continue
		}
		a := platform.App{PID: w.ProcessID, Name: w.ProcessName, Toolkit: "fake", ToolkitVersion: "1"}
		if _, hung := d.hung[w.ProcessID]; hung {
			a.Err = fmt.Errorf("%w: pid %d", platform.ErrAppNotResponding, w.ProcessID)
		}
		out = append(out, a)
	}
	return out, nil
}

// Close ends every watch; every later call fails ErrDisplayUnavailable. Idempotent.
func (d *Desktop) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	for ch := range d.winWatch {
		close(ch)
	}
	d.winWatch = map[chan struct{}]bool{}
	for pid, set := range d.treeWatch {
		for ch := range set {
			close(ch)
		}
		delete(d.treeWatch, pid)
	}
	d.mu.Unlock()
	return nil
}

// WatchWindows reports every change of the window list, stacking, focus, state or geometry.
func (d *Desktop) WatchWindows(ctx context.Context) (<-chan struct{}, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(ctx); err != nil {
		return nil, err
	}
	ch := make(chan struct{}, 1)
	d.winWatch[ch] = true
	context.AfterFunc(ctx, func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.winWatch[ch] {
			delete(d.winWatch, ch)
			close(ch)
		}
	})
	return ch, nil
}

// WatchTree reports every change of process pid's trees (names, states, values, children,
// focus, windows opened and closed).
func (d *Desktop) WatchTree(ctx context.Context, pid int) (<-chan struct{}, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.check(ctx); err != nil {
		return nil, err
	}
	ch := make(chan struct{}, 1)
	if d.treeWatch[pid] == nil {
		d.treeWatch[pid] = map[chan struct{}]bool{}
	}
	d.treeWatch[pid][ch] = true
	context.AfterFunc(ctx, func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.treeWatch[pid][ch] {
			delete(d.treeWatch[pid], ch)
			close(ch)
		}
	})
	return ch, nil
}

// notify wakes every watcher in set without blocking: a full buffer already holds a wake-up,
// which coalesces bursts as the real backends do.
func notify(set map[chan struct{}]bool) {
	for ch := range set {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (d *Desktop) windowsChanged() {
	d.mu.Lock()
	defer d.mu.Unlock()
	notify(d.winWatch)
}

func (d *Desktop) treeChanged(pid int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	notify(d.treeWatch[pid])
}

// TreeWatches counts the WatchTree calls on process pid still running, and WindowWatches those
// of WatchWindows: a test that changes the scene while a tool waits can first wait until the
// tool watches, so the change is certainly seen as one.
func (d *Desktop) TreeWatches(pid int) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.treeWatch[pid])
}

// WindowWatches counts the WatchWindows calls still running.
func (d *Desktop) WindowWatches() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.winWatch)
}

// Stalled counts the calls waiting on hung process pid (Hang).
func (d *Desktop) Stalled(pid int) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.stalled[pid]
}
