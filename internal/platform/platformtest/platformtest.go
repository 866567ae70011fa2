// Package platformtest is the conformance suite every desktop backend must pass: what tools rely
// on from platform.Desktop, checked against one small application scene. The in-memory backend
// (internal/platform/fake) runs it in memory; the X11+AT-SPI backend (internal/platform/linux)
// runs it on a private desktop with a GTK 3 application. A new backend (Windows UIA, Wayland)
// is written until Run passes.
//
// It owns the scene's contract (Scene's names and App's commands), not any backend: a harness
// starts an application that shows the scene and makes it change itself on command, as only the
// application can.
package platformtest

import (
	"context"
	"errors"
	"fmt"
	"image"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
)

// The scene: one window titled Title, whose frame holds
//   - a label named LabelIdle, renamed LabelClicked(n) each time the button is activated,
//   - a push button named Button,
//   - a check box named CheckBox, unchecked,
//   - an editable, focusable text field (role "text") whose value is EntryText,
//   - a container that is not showing, holding a label named Hidden.
//
// App.Do("add") shows a push button named Extra in the frame, "remove" destroys it; "dialog"
// opens a second window titled DialogTitle (transient for the first), "close" closes it.
const (
	Title       = "mcec conformance"
	DialogTitle = "mcec conformance dialog"
	Button      = "Count"
	CheckBox    = "Option"
	EntryText   = "hello"
	Extra       = "Extra"
	Hidden      = "Hidden"
	LabelIdle   = "Clicks: 0"
)

// LabelClicked is the label's name after n activations of the button.
func LabelClicked(n int) string { return "Clicks: " + strconv.Itoa(n) }

// App is the running scene application.
type App interface {
	// PID is the application's process.
	PID() int
	// Do makes the application change itself ("add", "remove", "dialog", "close") and returns
	// once it has (the backend may still be announcing it).
	Do(t *testing.T, cmd string)
}

// Harness is one backend on a desktop of its own.
type Harness struct {
	Desktop platform.Desktop
	// Start starts the scene application (stopped at the test's cleanup) once its window maps
	// and its tree is ready.
	Start func(t *testing.T) App
	// Timeout bounds each wait for the backend to show a change (default 10 s).
	Timeout time.Duration
	// NoDialogParent, when set, says why the backend cannot tell which window a dialog belongs
	// to (sway 1.7 tells it neither over its IPC nor through wlr-foreign-toplevel): the
	// dialog's TransientFor is then only required to be 0, never another window.
	NoDialogParent string
	// NoPlaces, when set, says why the backend cannot tell where windows are (a wlroots
	// compositor through wlr-foreign-toplevel alone). Its windows and elements must then have no
	// bounds rather than wrong ones; moving, resizing, capturing a window and relative pixels
	// fail ErrCompositorUnsupported; a window operation the compositor ignores fails so too,
	// never passing for done; the pointer is checked where windows have places.
	NoPlaces string
}

// Run runs the suite; newHarness makes a fresh backend for each group of checks.
func Run(t *testing.T, newHarness func(t *testing.T) Harness) {
	groups := []struct {
		name string
		f    func(*testing.T, *suite)
	}{
		{"Windows", testWindows},
		{"Displays", testDisplays},
		{"Tree", testTree},
		{"TreeLimits", testTreeLimits},
		{"Element", testElement},
		{"Actions", testActions},
		{"TreeEvents", testTreeEvents},
		{"WindowEvents", testWindowEvents},
		{"Input", testInput},
		{"WindowOps", testWindowOps},
		{"Stacking", testStacking},
		{"Clipboard", testClipboard},
		{"Capture", testCapture},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			h := newHarness(t)
			if h.Timeout == 0 {
				h.Timeout = 10 * time.Second
			}
			s := &suite{t: t, h: h, d: h.Desktop}
			s.app = h.Start(t)
			s.win = s.window(Title)
			g.f(t, s)
		})
	}
}

type suite struct {
	t   *testing.T
	h   Harness
	d   platform.Desktop
	app App
	win platform.Window
}

// ctx bounds one backend call.
func (s *suite) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), s.h.Timeout)
	s.t.Cleanup(cancel)
	return ctx
}

// eventually polls cond until it holds, failing with msg at the timeout.
func (s *suite) eventually(msg string, cond func() bool) {
	s.t.Helper()
	deadline := time.Now().Add(s.h.Timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			s.t.Fatalf("after %v: %s", s.h.Timeout, msg)
		}
		<-tick.C
	}
}

// window waits for the app's window titled title.
func (s *suite) window(title string) platform.Window {
	s.t.Helper()
	var found platform.Window
	s.eventually("no window titled "+title, func() bool {
		ws, err := s.d.Windows(s.ctx())
		if err != nil {
			return false
		}
		for _, w := range ws {
			if w.ProcessID == s.app.PID() && w.Title == title {
				found = w
				return true
			}
		}
		return false
	})
	return found
}

var all = platform.TreeLimits{MaxDepth: 64, MaxNodes: 10000}

// tree walks the main window's frame.
func (s *suite) tree(limits platform.TreeLimits) platform.Tree {
	s.t.Helper()
	tr, err := s.d.Tree(s.ctx(), s.win, limits)
	if err != nil {
		s.t.Fatalf("Tree: %v", err)
	}
	if tr.Root == nil {
		s.t.Fatal("Tree returned no root")
	}
	return tr
}

func find(n *platform.Node, role, name string) *platform.Node {
	if n == nil {
		return nil
	}
	if n.Role == role && (name == "" || n.Name == name) {
		return n
	}
	for _, c := range n.Children {
		if f := find(c, role, name); f != nil {
			return f
		}
	}
	return nil
}

func count(n *platform.Node) int {
	c := 1
	for _, k := range n.Children {
		c += count(k)
	}
	return c
}

// node finds an object of the scene, failing when it is not there.
func (s *suite) node(role, name string) *platform.Node {
	s.t.Helper()
	n := find(s.tree(all).Root, role, name)
	if n == nil {
		s.t.Fatalf("no %s %q in the tree", role, name)
	}
	return n
}

// element re-reads ref, failing on error.
func (s *suite) element(ref string) platform.Element {
	s.t.Helper()
	el, err := s.d.Element(s.ctx(), ref)
	if err != nil {
		s.t.Fatalf("Element(%s): %v", ref, err)
	}
	return el
}

func testWindows(t *testing.T, s *suite) {
	w := s.win
	switch {
	case s.h.NoPlaces != "" && (w.Handle == 0 || !w.Bounds.Empty() || w.Minimized):
		t.Errorf("window %+v: want a handle, not minimized, and no bounds (%s)", w, s.h.NoPlaces)
	case s.h.NoPlaces == "" && (w.Handle == 0 || w.Bounds.Empty() || w.Minimized):
		t.Errorf("window %+v: want a handle and a visible, non-empty client area", w)
	}
	again, err := s.d.Window(s.ctx(), w.Handle)
	if err != nil {
		t.Fatalf("Window(%d): %v", w.Handle, err)
	}
	if again.Handle != w.Handle || again.Title != Title || again.ProcessID != s.app.PID() {
		t.Errorf("Window(%d) = %+v, listed as %+v", w.Handle, again, w)
	}
}

func testDisplays(t *testing.T, s *suite) {
	ds, err := s.d.Displays(s.ctx())
	if err != nil {
		t.Fatal(err)
	}
	if ds.VirtualBounds.Empty() || len(ds.Monitors) == 0 {
		t.Fatalf("displays %+v: want a screen and a monitor", ds)
	}
	primary := 0
	for _, m := range ds.Monitors {
		if m.Primary {
			primary++
		}
		if m.Bounds.Empty() || !ds.VirtualBounds.Contains(m.Bounds) || m.DPI <= 0 || m.Scale <= 0 {
			t.Errorf("monitor %+v outside %+v or without DPI", m, ds.VirtualBounds)
		}
	}
	if primary != 1 {
		t.Errorf("%d primary monitors, want 1", primary)
	}
}

func testTree(t *testing.T, s *suite) {
	tr := s.tree(all)
	if tr.Truncated || tr.NodeCount != count(tr.Root) {
		t.Errorf("a whole walk: truncated %v by %v, NodeCount %d for %d nodes", tr.Truncated, tr.TruncatedBy, tr.NodeCount, count(tr.Root))
	}
	if tr.Root.Role != "frame" || tr.Root.Ref == "" {
		t.Errorf("root %s %q (ref %q), want the window's frame", tr.Root.Role, tr.Root.Name, tr.Root.Ref)
	}
	refs := map[string]bool{}
	var walk func(n *platform.Node)
	walk = func(n *platform.Node) {
		if n.Ref == "" || refs[n.Ref] {
			t.Errorf("%s %q: ref %q empty or repeated", n.Role, n.Name, n.Ref)
		}
		refs[n.Ref] = true
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(tr.Root)
	for _, want := range []struct{ role, name, ct string }{
		{"label", LabelIdle, "Text"}, {"push button", Button, "Button"}, {"check box", CheckBox, "CheckBox"}, {"text", "", "Edit"},
	} {
		n := find(tr.Root, want.role, want.name)
		if n == nil {
			t.Errorf("no %s %q", want.role, want.name)
			continue
		}
		if n.ControlType != want.ct || !n.States["showing"] || !n.States["enabled"] {
			t.Errorf("%s %q: control type %q states %v, want %s, showing and enabled", want.role, want.name, n.ControlType, n.States, want.ct)
		}
		switch {
		case s.h.NoPlaces != "" && n.Bounds != nil:
			t.Errorf("%s %q: bounds %v in a window whose place is unknown (%s)", want.role, want.name, *n.Bounds, s.h.NoPlaces)
		case s.h.NoPlaces == "" && (n.Bounds == nil || !s.win.Bounds.Contains(*n.Bounds)):
			t.Errorf("%s %q: bounds %v not inside the window's %+v", want.role, want.name, n.Bounds, s.win.Bounds)
		}
	}
	if e := find(tr.Root, "text", ""); e != nil && (e.Value == nil || *e.Value != EntryText || !e.States["editable"]) {
		t.Errorf("text field: value %v states %v, want %q and editable", e.Value, e.States, EntryText)
	}
	if b := find(tr.Root, "push button", Button); b != nil && len(b.Actions) == 0 {
		t.Errorf("button %q lists no actions", Button)
	}
	if c := find(tr.Root, "check box", CheckBox); c != nil && c.States["checked"] {
		t.Errorf("check box starts checked")
	}
}

func testTreeLimits(t *testing.T, s *suite) {
	whole := s.tree(all)
	one := s.tree(platform.TreeLimits{MaxDepth: 64, MaxNodes: 1})
	if one.NodeCount != 1 || len(one.Root.Children) != 0 || !one.Truncated || !slices.Contains(one.TruncatedBy, platform.LimitMaxNodes) {
		t.Errorf("MaxNodes 1: %d nodes, %d children, truncated by %v; want the root alone, cut by %s",
			one.NodeCount, len(one.Root.Children), one.TruncatedBy, platform.LimitMaxNodes)
	}
	shallow := s.tree(platform.TreeLimits{MaxDepth: 0, MaxNodes: 10000})
	if shallow.NodeCount >= whole.NodeCount || !slices.Contains(shallow.TruncatedBy, platform.LimitMaxDepth) {
		t.Errorf("MaxDepth 0: %d of %d nodes, truncated by %v; want fewer, cut by %s", shallow.NodeCount, whole.NodeCount, shallow.TruncatedBy, platform.LimitMaxDepth)
	}
	// A search for what is on screen skips what is below objects that do not show.
	if h := find(whole.Root, "label", Hidden); h == nil || h.States["showing"] {
		t.Errorf("the hidden label: %+v, want it in a whole walk, not showing", h)
	}
	if h := find(s.tree(platform.TreeLimits{MaxDepth: 64, MaxNodes: 10000, ShowingOnly: true}).Root, "label", Hidden); h != nil {
		t.Errorf("a ShowingOnly walk went below a container that does not show: %+v", h)
	}
	lean := s.tree(platform.TreeLimits{MaxDepth: 64, MaxNodes: 10000, Lean: true})
	b := find(lean.Root, "push button", Button)
	if b == nil {
		t.Fatal("the lean walk misses the button")
	}
	if b.Bounds != nil || len(b.Actions) != 0 {
		t.Errorf("a lean walk reads bounds %v and actions %v; want neither", b.Bounds, b.Actions)
	}
}

func testElement(t *testing.T, s *suite) {
	b := s.node("push button", Button)
	el := s.element(b.Ref)
	if el.Node.Ref != b.Ref || el.Node.Name != Button || el.Node.Role != "push button" || el.PID != s.app.PID() || len(el.Node.Children) != 0 {
		t.Errorf("Element(%s) = %+v (pid %d), want the button alone, of pid %d", b.Ref, el.Node, el.PID, s.app.PID())
	}
	// Up the parents to the frame, which is the application's top level or right below it.
	ref, frame := b.Ref, ""
	for range 64 {
		e := s.element(ref)
		if e.Node.Role == "frame" {
			frame = e.Node.Ref
		}
		if e.Parent == "" {
			break
		}
		ref = e.Parent
	}
	if frame != s.tree(all).Root.Ref {
		t.Errorf("the button's parents reach frame %q, the tree's root is %q", frame, s.tree(all).Root.Ref)
	}
	sub, err := s.d.Subtree(s.ctx(), b.Ref, all)
	if err != nil || sub.Root == nil || sub.Root.Ref != b.Ref {
		t.Errorf("Subtree(%s) = %+v, %v; want the button at its root", b.Ref, sub.Root, err)
	}
	for _, bad := range []string{"", "not a ref"} {
		if _, err := s.d.Element(s.ctx(), bad); !errors.Is(err, platform.ErrBadRef) {
			t.Errorf("Element(%q): %v, want ErrBadRef", bad, err)
		}
	}
}

// named waits until the object ref is named name.
func (s *suite) named(ref, name string) {
	s.t.Helper()
	s.eventually("the label never read "+name, func() bool {
		el, err := s.d.Element(s.ctx(), ref)
		return err == nil && el.Node.Name == name
	})
}

func testActions(t *testing.T, s *suite) {
	label := s.node("label", LabelIdle)
	if _, err := s.d.Act(s.ctx(), s.node("push button", Button).Ref, platform.ActInvoke, ""); err != nil {
		t.Fatalf("invoke %s: %v", Button, err)
	}
	s.named(label.Ref, LabelClicked(1))

	check := s.node("check box", CheckBox)
	if _, err := s.d.Act(s.ctx(), check.Ref, platform.ActToggle, ""); err != nil {
		t.Fatalf("toggle %s: %v", CheckBox, err)
	}
	s.eventually("the check box never became checked", func() bool {
		el, err := s.d.Element(s.ctx(), check.Ref)
		return err == nil && el.Node.States["checked"]
	})

	entry := s.node("text", "")
	if _, err := s.d.Act(s.ctx(), entry.Ref, platform.ActSetValue, "conformed"); err != nil {
		t.Fatalf("setvalue: %v", err)
	}
	s.eventually("the text field never read the value set", func() bool {
		el, err := s.d.Element(s.ctx(), entry.Ref)
		return err == nil && el.Node.Value != nil && *el.Node.Value == "conformed"
	})
	if _, err := s.d.Act(s.ctx(), entry.Ref, platform.ActSetFocus, ""); err != nil {
		t.Fatalf("setfocus: %v", err)
	}
	s.eventually("the focus never reached the text field", func() bool {
		f, err := s.d.Focused(s.ctx(), s.app.PID())
		return err == nil && f.Node.Ref == entry.Ref
	})

	if _, err := s.d.Act(s.ctx(), label.Ref, platform.ActExpand, ""); !errors.Is(err, platform.ErrUnsupported) {
		t.Errorf("expand a label: %v, want ErrUnsupported", err)
	}
}

// wake waits for one value on ch.
func (s *suite) wake(ch <-chan struct{}, what string) {
	s.t.Helper()
	timer := time.NewTimer(s.h.Timeout)
	defer timer.Stop()
	select {
	case _, ok := <-ch:
		if !ok {
			s.t.Fatalf("%s: the watch channel closed", what)
		}
	case <-timer.C:
		s.t.Fatalf("%s: no event within %v", what, s.h.Timeout)
	}
}

// drain empties a watch channel of earlier wake-ups.
func drain(ch <-chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

func testTreeEvents(t *testing.T, s *suite) {
	ctx, cancel := context.WithCancel(context.Background())
	ch, err := s.d.WatchTree(ctx, s.app.PID())
	if err != nil {
		cancel()
		t.Fatalf("WatchTree: %v", err)
	}
	// Toolkits create accessible objects when a client first reads them and announce changes
	// only of objects that exist (GTK 3): events are promised for a tree that was walked, which
	// is how tools use them (an observer reads before it watches).
	check := s.node("check box", CheckBox)
	drain(ch)
	if _, err := s.d.Act(s.ctx(), check.Ref, platform.ActToggle, ""); err != nil {
		t.Fatal(err)
	}
	s.wake(ch, "a state changed")
	drain(ch)
	s.app.Do(t, "add")
	s.wake(ch, "a button added")
	var extra string
	s.eventually("the added button never showed in the tree", func() bool {
		n := find(s.tree(all).Root, "push button", Extra)
		if n != nil {
			extra = n.Ref
		}
		return n != nil
	})
	drain(ch)
	s.app.Do(t, "remove")
	s.wake(ch, "a button removed")
	s.eventually("the removed button's ref never went stale", func() bool {
		_, err := s.d.Element(s.ctx(), extra)
		return errors.Is(err, platform.ErrElementStale)
	})
	if _, err := s.d.Act(s.ctx(), extra, platform.ActInvoke, ""); !errors.Is(err, platform.ErrElementStale) {
		t.Errorf("invoke a removed button: %v, want ErrElementStale", err)
	}
	if _, err := s.d.Subtree(s.ctx(), extra, all); !errors.Is(err, platform.ErrElementStale) {
		t.Errorf("Subtree of a removed button: %v, want ErrElementStale", err)
	}

	cancel()
	closed := time.NewTimer(s.h.Timeout)
	defer closed.Stop()
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-closed.C:
			t.Fatal("the watch channel stayed open after its context ended")
		}
	}
}

func testWindowEvents(t *testing.T, s *suite) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := s.d.WatchWindows(ctx)
	if err != nil {
		t.Fatalf("WatchWindows: %v", err)
	}
	drain(ch)
	s.app.Do(t, "dialog")
	s.wake(ch, "a window opened")
	dlg := s.window(DialogTitle)
	switch {
	case s.h.NoDialogParent != "" && dlg.TransientFor == 0:
		t.Logf("the dialog's parent is not known: %s", s.h.NoDialogParent)
	case dlg.TransientFor != s.win.Handle:
		t.Errorf("the dialog is transient for %d, want %d", dlg.TransientFor, s.win.Handle)
	}
	var inDialog string
	s.eventually("the dialog's tree never showed", func() bool {
		tr, err := s.d.Tree(s.ctx(), dlg, all)
		if err == nil && tr.Root != nil {
			inDialog = tr.Root.Ref
		}
		return inDialog != ""
	})
	drain(ch)
	s.app.Do(t, "close")
	s.wake(ch, "a window closed")
	s.eventually("the closed dialog stayed listed", func() bool {
		_, err := s.d.Window(s.ctx(), dlg.Handle)
		return errors.Is(err, platform.ErrWindowClosed)
	})
	// Its objects are gone while the application lives on.
	s.eventually("the closed dialog's frame never went stale", func() bool {
		_, err := s.d.Element(s.ctx(), inDialog)
		return errors.Is(err, platform.ErrElementStale)
	})
	// A closed window has no tree: never another window's of the same application.
	s.eventually("the closed dialog's tree is not ErrWindowClosed", func() bool {
		_, err := s.d.Tree(s.ctx(), dlg, all)
		return errors.Is(err, platform.ErrWindowClosed)
	})
}

// activate brings the main window to the front, as tools do before input.
func (s *suite) activate() {
	s.t.Helper()
	if err := s.d.WindowOp(s.ctx(), s.win.Handle, platform.WindowOp{Kind: platform.OpActivate}); err != nil {
		s.t.Fatalf("activate: %v", err)
	}
	s.eventually("the window never became active", func() bool {
		w, err := s.d.Window(s.ctx(), s.win.Handle)
		return err == nil && w.Focused
	})
}

func testInput(t *testing.T, s *suite) {
	s.activate()
	in := s.d.Input()
	c := platform.Point{X: 1, Y: 1}
	if s.h.NoPlaces == "" {
		label := s.node("label", LabelIdle)
		b := s.node("push button", Button)
		c = platform.Point{X: b.Bounds.X + b.Bounds.Width/2, Y: b.Bounds.Y + b.Bounds.Height/2}
		if err := in.Click(s.ctx(), c, platform.ButtonLeft, 1); err != nil {
			t.Fatalf("click: %v", err)
		}
		s.named(label.Ref, LabelClicked(1))
		if p, err := in.Pointer(s.ctx()); err != nil || p != c {
			t.Errorf("pointer at %v (%v) after a click at %v", p, err, c)
		}
	}

	entry := s.node("text", "")
	if _, err := s.d.Act(s.ctx(), entry.Ref, platform.ActSetFocus, ""); err != nil {
		t.Fatal(err)
	}
	s.eventually("the text field never took the focus", func() bool {
		f, err := s.d.Focused(s.ctx(), s.app.PID())
		return err == nil && f.Node.Ref == entry.Ref
	})
	if err := in.Type(s.ctx(), "xyz"); err != nil {
		t.Fatalf("type: %v", err)
	}
	s.eventually("typed text never reached the text field", func() bool {
		el, err := s.d.Element(s.ctx(), entry.Ref)
		return err == nil && el.Node.Value != nil && strings.Contains(*el.Node.Value, "xyz")
	})

	if err := in.Press(s.ctx(), "Shift_L"); err != nil {
		t.Fatal(err)
	}
	if held, err := in.Held(s.ctx()); err != nil || !slices.ContainsFunc(held, func(k string) bool { return strings.Contains(k, "Shift") }) {
		t.Errorf("held %v (%v) while Shift_L is pressed", held, err)
	}
	if err := in.Release(s.ctx(), "Shift_L"); err != nil {
		t.Fatal(err)
	}
	// A gesture whose context ends midway leaves nothing pressed.
	done, cancel := context.WithCancel(context.Background())
	cancel()
	_ = in.Drag(done, []platform.Point{c, {X: c.X + 5, Y: c.Y}}, platform.ButtonLeft)
	if held, err := in.Held(s.ctx()); err != nil || len(held) != 0 {
		t.Errorf("held %v (%v) after the gestures; want nothing", held, err)
	}
}

func testWindowOps(t *testing.T, s *suite) {
	h := s.win.Handle
	get := func() platform.Window {
		w, err := s.d.Window(s.ctx(), h)
		if err != nil {
			t.Fatalf("Window: %v", err)
		}
		return w
	}
	if s.h.NoPlaces != "" {
		testWindowOpsUnplaced(t, s, get)
		return
	}
	to := platform.Point{X: s.win.Bounds.X + 17, Y: s.win.Bounds.Y + 11}
	if err := s.d.WindowOp(s.ctx(), h, platform.WindowOp{Kind: platform.OpMove, X: to.X, Y: to.Y}); err != nil {
		t.Fatalf("move: %v", err)
	}
	s.eventually("the window never moved", func() bool { w := get(); return w.Bounds.X != s.win.Bounds.X || w.Bounds.Y != s.win.Bounds.Y })
	// A resize keeps the top-left corner where it is, on every backend (sway would keep the centre).
	moved := get().Bounds
	want := platform.Rect{X: moved.X, Y: moved.Y, Width: moved.Width + 40, Height: moved.Height + 30}
	if err := s.d.WindowOp(s.ctx(), h, platform.WindowOp{Kind: platform.OpResize, Width: want.Width, Height: want.Height}); err != nil {
		t.Fatalf("resize: %v", err)
	}
	var got platform.Rect
	s.eventually(fmt.Sprintf("the window never became %+v", want), func() bool { got = get().Bounds; return got == want })
	if err := s.d.WindowOp(s.ctx(), h, platform.WindowOp{Kind: platform.OpMinimize}); err != nil {
		t.Fatalf("minimize: %v", err)
	}
	s.eventually("the window never minimized", func() bool { return get().Minimized })
	if err := s.d.WindowOp(s.ctx(), h, platform.WindowOp{Kind: platform.OpRestore}); err != nil {
		t.Fatalf("restore: %v", err)
	}
	s.eventually("the window never came back", func() bool { return !get().Minimized })
	s.activate()
}

// testWindowOpsUnplaced: where windows have no places, move and resize fail
// ErrCompositorUnsupported, and minimize and restore are either done or refused so.
func testWindowOpsUnplaced(t *testing.T, s *suite, get func() platform.Window) {
	h := s.win.Handle
	for _, op := range []platform.WindowOp{{Kind: platform.OpMove, X: 10, Y: 10}, {Kind: platform.OpResize, Width: 300, Height: 200}} {
		if err := s.d.WindowOp(s.ctx(), h, op); !errors.Is(err, platform.ErrCompositorUnsupported) {
			t.Errorf("%s a window whose place is unknown: %v, want ErrCompositorUnsupported", op.Kind, err)
		}
	}
	err := s.d.WindowOp(s.ctx(), h, platform.WindowOp{Kind: platform.OpMinimize})
	switch {
	case errors.Is(err, platform.ErrCompositorUnsupported):
		t.Logf("minimize refused: %v", err)
		if get().Minimized {
			t.Error("minimize failed, and the window is minimized")
		}
	case err != nil:
		t.Fatalf("minimize: %v", err)
	default:
		if !get().Minimized {
			t.Error("minimize passed, and the window is not minimized")
		}
		if err := s.d.WindowOp(s.ctx(), h, platform.WindowOp{Kind: platform.OpRestore}); err != nil {
			t.Fatalf("restore: %v", err)
		}
		if get().Minimized {
			t.Error("restore passed, and the window is still minimized")
		}
	}
	s.activate()
}

// testStacking: Windows lists bottom to top, so a window brought to the foreground is the last
// one shown.
func testStacking(t *testing.T, s *suite) {
	other := s.h.Start(t)
	var second platform.Window
	s.eventually("no second scene window", func() bool {
		ws, err := s.d.Windows(s.ctx())
		for _, w := range ws {
			if err == nil && w.ProcessID == other.PID() && w.Title == Title {
				second = w
				return true
			}
		}
		return false
	})
	for _, w := range []platform.Window{s.win, second, s.win} {
		if err := s.d.WindowOp(s.ctx(), w.Handle, platform.WindowOp{Kind: platform.OpActivate}); err != nil {
			t.Fatalf("foreground %d: %v", w.Handle, err)
		}
		var order []uint32
		s.eventually(fmt.Sprintf("window %d never came to the top of the list", w.Handle), func() bool {
			ws, err := s.d.Windows(s.ctx())
			if err != nil {
				return false
			}
			order = order[:0]
			for _, o := range ws {
				if !o.Minimized {
					order = append(order, o.Handle)
				}
			}
			return len(order) > 0 && order[len(order)-1] == w.Handle
		})
	}
}

func testClipboard(t *testing.T, s *suite) {
	const text = "mcec conformance ✓"
	if err := s.d.ClipboardSet(s.ctx(), text); err != nil {
		t.Fatalf("ClipboardSet: %v", err)
	}
	got, err := s.d.ClipboardGet(s.ctx())
	if err != nil || got != text {
		t.Errorf("ClipboardGet = %q, %v; want %q", got, err, text)
	}
}

func testCapture(t *testing.T, s *suite) {
	b := s.win.Bounds
	if s.h.NoPlaces != "" {
		if _, err := s.d.CaptureWindow(s.ctx(), s.win.Handle); !errors.Is(err, platform.ErrCompositorUnsupported) {
			t.Errorf("CaptureWindow of a window whose place is unknown: %v, want ErrCompositorUnsupported", err)
		}
		ds, err := s.d.Displays(s.ctx())
		if err != nil {
			t.Fatal(err)
		}
		b = ds.VirtualBounds
	}
	if s.h.NoPlaces == "" {
		wc, err := s.d.CaptureWindow(s.ctx(), s.win.Handle)
		if err != nil {
			t.Fatalf("CaptureWindow: %v", err)
		}
		if wc.Image == nil || wc.Image.Bounds().Size() != (image.Point{X: b.Width, Y: b.Height}) {
			t.Errorf("window capture %v, want %dx%d", wc.Image.Bounds(), b.Width, b.Height)
		}
	}
	r := platform.Rect{X: b.X, Y: b.Y, Width: min(b.Width, 64), Height: min(b.Height, 48)}
	img, err := s.d.CaptureRect(s.ctx(), r)
	if err != nil {
		t.Fatalf("CaptureRect: %v", err)
	}
	if img.Bounds().Size() != (image.Point{X: r.Width, Y: r.Height}) {
		t.Errorf("rect capture %v, want %dx%d", img.Bounds(), r.Width, r.Height)
	}
}

// HeldKeyTypesOnce checks a private desktop's keyboard repeat: a key held past the repeat delay
// reaches the scene's text field once. A loaded machine can delay a release that mcec sends
// right after its press, and a repeating key would then type again; mcec's desktops repeat no
// key (an attached desktop keeps its user's setting, and is not checked).
func HeldKeyTypesOnce(t *testing.T, h Harness) {
	if h.Timeout == 0 {
		h.Timeout = 10 * time.Second
	}
	s := &suite{t: t, h: h, d: h.Desktop}
	s.app = h.Start(t)
	s.win = s.window(Title)
	entry := s.node("text", "")
	if _, err := s.d.Act(s.ctx(), entry.Ref, platform.ActSetValue, ""); err != nil {
		t.Fatal(err)
	}
	s.activate()
	if _, err := s.d.Act(s.ctx(), entry.Ref, platform.ActSetFocus, ""); err != nil {
		t.Fatal(err)
	}
	s.eventually("the text field never took the focus", func() bool {
		f, err := s.d.Focused(s.ctx(), s.app.PID())
		return err == nil && f.Node.Ref == entry.Ref
	})
	in := s.d.Input()
	if err := in.Press(s.ctx(), "x"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // the hold itself is what is checked: past any repeat delay
	if err := in.Release(s.ctx(), "x"); err != nil {
		t.Fatal(err)
	}
	// A marker typed after the hold: once it is there, every x before it has arrived.
	if err := in.Type(s.ctx(), "z"); err != nil {
		t.Fatal(err)
	}
	var got string
	s.eventually("the marker typed after the hold never arrived", func() bool {
		el, err := s.d.Element(s.ctx(), entry.Ref)
		if err == nil && el.Node.Value != nil {
			got = *el.Node.Value
		}
		return strings.HasSuffix(got, "z")
	})
	if got != "xz" {
		t.Errorf("a key held 1 s, then z, typed %q; want \"xz\"", got)
	}
}
