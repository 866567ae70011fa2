package atspi_test

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/atspi"
	"github.com/mcec/mcec/internal/sysload"
	"github.com/mcec/mcec/internal/testdesk"
)

const python = "/usr/bin/python3"

func needPythonGTK(t testing.TB) {
	t.Helper()
	if err := exec.Command(python, "-c", `import gi; gi.require_version("Gtk", "3.0"); from gi.repository import Gtk`).Run(); err != nil {
		t.Skip("needs python3-gi and gir1.2-gtk-3.0")
	}
}

// parents maps every ref of a tree to its parent's ref.
func parents(root *platform.Node) map[string]string {
	m := map[string]string{}
	var visit func(*platform.Node)
	visit = func(n *platform.Node) {
		for _, k := range n.Children {
			m[k.Ref] = n.Ref
			visit(k)
		}
	}
	visit(root)
	return m
}

func element(t testing.TB, c *atspi.Client, ref string) platform.Element {
	t.Helper()
	e, err := c.Element(context.Background(), ref)
	if err != nil {
		t.Fatalf("Element(%s): %v", ref, err)
	}
	return e
}

func act(t testing.TB, c *atspi.Client, ref string, action platform.ElementAction, text string) {
	t.Helper()
	res, err := c.Act(context.Background(), ref, action, text)
	if err != nil || res.ModalPending {
		t.Fatalf("Act %s on %s: %+v %v", action, ref, res, err)
	}
}

// TestElementWidgetFactory re-reads objects of gtk3-widget-factory by ref and compares them
// with the tree they came from.
func TestElementWidgetFactory(t *testing.T) {
	c := connect(t, 2*time.Second)
	a := startApp(t, "gtk3-widget-factory")
	tree := treeWith(t, c, a, "Andrea")
	parent := parents(tree.Root)
	ctx := context.Background()

	for _, tc := range []struct {
		name  string
		match func(*platform.Node) bool
	}{
		{"frame", func(n *platform.Node) bool { return n == tree.Root }},
		{"push button", func(n *platform.Node) bool { return n.Role == "push button" && n.Bounds != nil }},
		{"check box", func(n *platform.Node) bool { return n.Role == "check box" && n.States["checked"] }},
		{"entry", func(n *platform.Node) bool { return n.Role == "text" && n.Value != nil && *n.Value == "entry" }},
		{"slider", func(n *platform.Node) bool { return n.Role == "slider" && n.States["enabled"] }},
		{"page tab", func(n *platform.Node) bool { return n.Role == "page tab" && n.Name == "page 2" }},
		{"table cell", func(n *platform.Node) bool { return n.Name == "Andrea" && n.Role == "table cell" }},
		{"hidden menu item", func(n *platform.Node) bool { return n.Role == "menu item" && !n.States["showing"] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := find(tree.Root, tc.match)
			if want == nil {
				t.Fatal("not in the tree")
			}
			got := element(t, c, want.Ref)
			n := got.Node
			if n.Ref != want.Ref || n.Role != want.Role || n.ControlType != want.ControlType || n.Name != want.Name ||
				n.Description != want.Description || n.AutomationID != want.AutomationID {
				t.Errorf("Element %+v\nTree    %+v", n, *want)
			}
			if (n.Bounds == nil) != (want.Bounds == nil) || n.Bounds != nil && *n.Bounds != *want.Bounds {
				t.Errorf("bounds %v, the tree has %v", n.Bounds, want.Bounds)
			}
			if (n.Value == nil) != (want.Value == nil) || n.Value != nil && *n.Value != *want.Value {
				t.Errorf("value %v, the tree has %v", n.Value, want.Value)
			}
			if !slices.Equal(n.Actions, want.Actions) {
				t.Errorf("actions %q, the tree has %q", n.Actions, want.Actions)
			}
			for _, s := range []string{"showing", "enabled", "checked", "selected"} {
				if n.States[s] != want.States[s] {
					t.Errorf("state %s %v, the tree has %v", s, n.States[s], want.States[s])
				}
			}
			if got.PID != a.pid {
				t.Errorf("pid %d, want %d", got.PID, a.pid)
			}
			wantParent := parent[want.Ref] // "" for the frame: its parent is the application
			if got.Parent != wantParent {
				t.Errorf("parent %q, want %q", got.Parent, wantParent)
			}
			if n.Children != nil {
				t.Errorf("Element has %d children", len(n.Children))
			}
		})
	}

	t.Run("errors", func(t *testing.T) {
		bus, _, _ := atspi.ParseRef(tree.Root.Ref)
		for _, tc := range []struct {
			ref  string
			want error
		}{
			{"", platform.ErrBadRef},
			{"nonsense", platform.ErrBadRef},
			{"1.3:", platform.ErrBadRef},
			{atspi.FormatRef(bus, "/org/a11y/atspi/accessible/999999"), platform.ErrElementStale},
			{"1.99999:5", platform.ErrWindowClosed},
		} {
			_, err := c.Element(ctx, tc.ref)
			if !errors.Is(err, tc.want) {
				t.Errorf("Element(%q) = %v, want %v", tc.ref, err, tc.want)
			}
			_, err = c.Act(ctx, tc.ref, platform.ActInvoke, "")
			if !errors.Is(err, tc.want) {
				t.Errorf("Act(%q) = %v, want %v", tc.ref, err, tc.want)
			}
		}
	})

	// Last: it changes the page. Widgets of the page left stay alive in GTK, hidden.
	t.Run("node of a page left", func(t *testing.T) {
		box := find(tree.Root, func(n *platform.Node) bool { return n.Name == "checkbutton" && n.States["showing"] })
		page2 := find(tree.Root, func(n *platform.Node) bool { return n.Role == "radio button" && n.Name == "Page 2" })
		act(t, c, page2.Ref, platform.ActSelect, "")
		testdesk.WaitFor(t, 5*time.Second, "page 1's check box to hide or die", func() bool {
			e, err := c.Element(ctx, box.Ref)
			if errors.Is(err, platform.ErrElementStale) {
				return true
			}
			return err == nil && !e.Node.States["showing"] && e.Node.Bounds == nil
		})
	})
}

// TestActWidgetFactory performs each action on gtk3-widget-factory and reads its effect back.
func TestActWidgetFactory(t *testing.T) {
	c := connect(t, 2*time.Second)
	a := startApp(t, "gtk3-widget-factory")
	tree := treeWith(t, c, a, "Andrea")
	ctx := context.Background()
	node := func(t *testing.T, what string, match func(*platform.Node) bool) *platform.Node {
		t.Helper()
		n := find(tree.Root, match)
		if n == nil {
			t.Fatalf("no %s in the tree", what)
		}
		return n
	}

	t.Run("setvalue entry", func(t *testing.T) {
		e := node(t, "entry", func(n *platform.Node) bool {
			return n.Role == "text" && n.States["enabled"] && n.States["single-line"] && n.Value != nil && *n.Value == "entry"
		})
		for _, text := range []string{"hello from mcec", "", "ünïcödé ✓"} {
			act(t, c, e.Ref, platform.ActSetValue, text)
			if v := element(t, c, e.Ref).Node.Value; v == nil || *v != text {
				t.Errorf("value %v after setvalue %q", v, text)
			}
		}
	})

	t.Run("toggle check box", func(t *testing.T) {
		box := node(t, "check box", func(n *platform.Node) bool { return n.Role == "check box" && n.States["enabled"] })
		for range 2 {
			was := element(t, c, box.Ref).Node.States["checked"]
			act(t, c, box.Ref, platform.ActToggle, "")
			testdesk.WaitFor(t, 2*time.Second, "checked to flip", func() bool {
				return element(t, c, box.Ref).Node.States["checked"] != was
			})
		}
	})

	t.Run("toggle button without toggle action", func(t *testing.T) {
		b := node(t, "toggle button", func(n *platform.Node) bool {
			return n.Role == "toggle button" && n.Name == "togglebutton" && n.States["enabled"]
		})
		was := b.States["checked"]
		act(t, c, b.Ref, platform.ActToggle, "")
		if element(t, c, b.Ref).Node.States["checked"] == was {
			t.Error("checked did not flip")
		}
	})

	t.Run("select notebook tab", func(t *testing.T) {
		tab1 := node(t, "page 1 tab", func(n *platform.Node) bool { return n.Role == "page tab" && n.Name == "page 1" })
		tab2 := find(tree.Root, func(n *platform.Node) bool {
			return n.Role == "page tab" && n.Name == "page 2" && parents(tree.Root)[n.Ref] == parents(tree.Root)[tab1.Ref]
		})
		act(t, c, tab2.Ref, platform.ActSelect, "")
		if !element(t, c, tab2.Ref).Node.States["selected"] || element(t, c, tab1.Ref).Node.States["selected"] {
			t.Error("page 2 not selected instead of page 1")
		}
		act(t, c, tab1.Ref, platform.ActSelect, "")
		if !element(t, c, tab1.Ref).Node.States["selected"] {
			t.Error("page 1 not selected again")
		}
	})

	t.Run("setvalue slider", func(t *testing.T) {
		s := node(t, "slider", func(n *platform.Node) bool {
			return n.Role == "slider" && n.States["enabled"] && n.Value != nil && *n.Value == "50"
		})
		for _, tc := range []struct{ text, want string }{{"25", "25"}, {" 75 ", "75"}, {"50", "50"}} {
			act(t, c, s.Ref, platform.ActSetValue, tc.text)
			if v := element(t, c, s.Ref).Node.Value; v == nil || *v != tc.want {
				t.Errorf("value %v after setvalue %q", v, tc.text)
			}
		}
		for _, bad := range []string{"abc", "", "1e9", "NaN", "s3cret"} {
			_, err := c.Act(ctx, s.Ref, platform.ActSetValue, bad)
			if !errors.Is(err, platform.ErrBadValue) {
				t.Errorf("setvalue %q = %v, want ErrBadValue", bad, err)
			}
			if bad != "" && err != nil && strings.Contains(err.Error(), bad) {
				t.Errorf("the error %q echoes the text", err)
			}
		}
	})

	t.Run("setvalue spin button sets the number", func(t *testing.T) {
		s := node(t, "spin button", func(n *platform.Node) bool { return n.Role == "spin button" && n.States["enabled"] })
		act(t, c, s.Ref, platform.ActSetValue, "42")
		if v := element(t, c, s.Ref).Node.Value; v == nil || *v != "42" {
			t.Errorf("value %v", v)
		}
	})

	t.Run("setvalue on a read-only value is refused", func(t *testing.T) {
		p := node(t, "progress bar", func(n *platform.Node) bool { return n.Role == "progress bar" })
		if _, err := c.Act(ctx, p.Ref, platform.ActSetValue, "0.25"); !errors.Is(err, platform.ErrActionFailed) {
			t.Errorf("setvalue on a progress bar = %v, want ErrActionFailed", err)
		}
	})

	t.Run("setfocus and Focused", func(t *testing.T) {
		// Not the combo box's entry: once a notebook tab took focus, GTK ignores GrabFocus on
		// it (it is still the window's focus widget) and Act rightly fails ErrNotFocused.
		up := parents(tree.Root)
		entries := findAll(tree.Root, func(n *platform.Node) bool {
			return n.Role == "text" && n.States["enabled"] && n.States["single-line"] && n.States["showing"] &&
				find(tree.Root, func(p *platform.Node) bool { return p.Ref == up[n.Ref] }).Role != "combo box"
		})
		if len(entries) < 2 {
			t.Fatalf("%d entries", len(entries))
		}
		for _, e := range entries[:2] {
			act(t, c, e.Ref, platform.ActSetFocus, "")
			f, err := c.Focused(ctx, a.pid)
			if err != nil || f.Node.Ref != e.Ref || !f.Node.States["focused"] || f.PID != a.pid {
				t.Errorf("Focused = %s %v %v, want %s", f.Node.Ref, f.Node.States, err, e.Ref)
			}
		}
		slow := connect(t, 2*time.Second)
		atspi.WalkWithoutCache(slow)
		if f, err := slow.Focused(ctx, a.pid); err != nil || f.Node.Ref != entries[1].Ref {
			t.Errorf("Focused without the cache = %s %v, want %s", f.Node.Ref, err, entries[1].Ref)
		}
	})

	t.Run("expand and collapse combo box", func(t *testing.T) {
		combo := node(t, "combo box", func(n *platform.Node) bool {
			return n.Role == "combo box" && n.Name == "Left" && n.States["enabled"]
		})
		menu := combo.Children[0]
		for _, step := range []struct {
			action platform.ElementAction
			open   bool
		}{{platform.ActExpand, true}, {platform.ActExpand, true}, {platform.ActCollapse, false}, {platform.ActCollapse, false}} {
			act(t, c, combo.Ref, step.action, "")
			testdesk.WaitFor(t, 2*time.Second, "the popup to follow "+string(step.action), func() bool {
				return element(t, c, menu.Ref).Node.States["showing"] == step.open
			})
		}
	})

	t.Run("select combo box item", func(t *testing.T) {
		combo := node(t, "combo box", func(n *platform.Node) bool {
			return n.Role == "combo box" && n.Name == "Left" && n.States["enabled"]
		})
		item := find(combo, func(n *platform.Node) bool { return n.Role == "menu item" && n.Name == "Right" })
		act(t, c, item.Ref, platform.ActSelect, "")
		got := element(t, c, combo.Ref).Node
		if got.Name != "Right" {
			t.Errorf("combo box shows %q after selecting Right", got.Name)
		}
		// Its chosen entry is its value too (GTK 3 combo boxes with a label keep the label's name).
		if got.Value == nil || *got.Value != "Right" {
			t.Errorf("combo box value %v after selecting Right", got.Value)
		}
	})

	t.Run("unsupported", func(t *testing.T) {
		button := node(t, "push button", func(n *platform.Node) bool { return n.Role == "push button" && n.States["enabled"] })
		tab := node(t, "page tab", func(n *platform.Node) bool { return n.Role == "page tab" })
		label := node(t, "label", func(n *platform.Node) bool { return n.Role == "label" })
		for _, tc := range []struct {
			ref    string
			action platform.ElementAction
			detail []string
		}{
			{button.Ref, platform.ActSetValue, []string{"push button", "click", "Action", "Component"}},
			{button.Ref, platform.ActExpand, []string{"not expandable", "click"}},
			{tab.Ref, platform.ActInvoke, []string{"page tab", "actions [none]", "Component"}},
			{label.Ref, platform.ActSetFocus, []string{"not focusable"}},
			{label.Ref, platform.ActToggle, []string{"label", "Text"}},
			{button.Ref, "dance", []string{"dance"}},
		} {
			_, err := c.Act(ctx, tc.ref, tc.action, "x")
			if !errors.Is(err, platform.ErrUnsupported) {
				t.Errorf("%s on %s = %v, want ErrUnsupported", tc.action, tc.ref, err)
				continue
			}
			for _, d := range tc.detail {
				if !strings.Contains(err.Error(), d) {
					t.Errorf("%s: detail %q lacks %q", tc.action, err, d)
				}
			}
		}
	})

	t.Run("disabled", func(t *testing.T) {
		box := node(t, "disabled check box", func(n *platform.Node) bool {
			return n.Role == "check box" && !n.States["enabled"] && !n.States["sensitive"]
		})
		if _, err := c.Act(ctx, box.Ref, platform.ActToggle, ""); !errors.Is(err, platform.ErrActionFailed) {
			t.Errorf("toggle on a disabled check box = %v, want ErrActionFailed", err)
		}
	})
}

// TestActSmallApp covers expanders, objects that die, and modal dialogs on testdata/modal.py.
func TestActSmallApp(t *testing.T) {
	needPythonGTK(t)
	const grace = 500 * time.Millisecond
	ctx0, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := atspi.Connect(ctx0, "", atspi.Options{CallTimeout: time.Second, ModalGrace: grace})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	p := testdesk.Start(t, python, "testdata/modal.py")
	w := testdesk.WaitWindow(t, p.PID, 20*time.Second)
	testdesk.WaitAccessible(t, p.PID, 20*time.Second)
	a := app{pid: p.PID, bounds: windowBounds(t, w)}
	tree := treeWith(t, c, a, "Details")
	ctx := context.Background()
	byName := func(name string) *platform.Node {
		t.Helper()
		n := find(tree.Root, func(n *platform.Node) bool { return n.Name == name })
		if n == nil {
			t.Fatalf("no %q", name)
		}
		return n
	}

	t.Run("expand and collapse expander", func(t *testing.T) {
		exp := byName("Details")
		for _, step := range []struct {
			action   platform.ElementAction
			expanded bool
		}{{platform.ActExpand, true}, {platform.ActExpand, true}, {platform.ActCollapse, false}, {platform.ActCollapse, false}, {platform.ActExpand, true}} {
			act(t, c, exp.Ref, step.action, "")
			if got := element(t, c, exp.Ref).Node.States["expanded"]; got != step.expanded {
				t.Errorf("after %s: expanded %v", step.action, got)
			}
		}
	})

	t.Run("a destroyed widget is stale", func(t *testing.T) {
		doomed := byName("Remove me")
		act(t, c, doomed.Ref, platform.ActInvoke, "")
		for _, f := range []func() error{
			func() error { _, err := c.Element(ctx, doomed.Ref); return err },
			func() error { _, err := c.Act(ctx, doomed.Ref, platform.ActInvoke, ""); return err },
		} {
			if err := f(); !errors.Is(err, platform.ErrElementStale) {
				t.Errorf("after destruction: %v, want ErrElementStale", err)
			}
		}
	})

	t.Run("a busy handler is not a modal loop", func(t *testing.T) {
		// The handler sleeps a second on the main loop: silent past the grace, like a modal
		// loop, but it answers the action's probe before anything sent later. A client of its
		// own keeps the grace below the second whatever the load.
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		busy, err := atspi.Connect(cctx, "", atspi.Options{CallTimeout: 3 * time.Second, ModalGrace: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		defer busy.Close()
		atspi.Unstretched(busy)
		own := treeWith(t, busy, a, "Work slowly") // connects to the application's socket
		worker := find(own.Root, func(n *platform.Node) bool { return n.Name == "Work slowly" })
		res, err := busy.Act(ctx, worker.Ref, platform.ActInvoke, "")
		if err != nil || res.ModalPending {
			t.Fatalf("Act = %+v %v, want no ModalPending", res, err)
		}
		if e := element(t, busy, byName("no response yet").Ref); e.Node.Name != "worked" {
			t.Errorf("after the action returned, the status says %q, want \"worked\"", e.Node.Name)
		}
	})

	t.Run("modal dialog", func(t *testing.T) {
		wctx, stop := context.WithCancel(ctx)
		defer stop()
		changes, err := c.WatchTree(wctx, a.pid)
		if err != nil {
			t.Fatal(err)
		}
		drain(changes)
		opener, status := byName("Open dialog"), byName("no response yet")

		start := time.Now()
		res, err := c.Act(ctx, opener.Ref, platform.ActInvoke, "")
		took := time.Since(start)
		t.Logf("invoke that opens a modal dialog returned %+v after %v", res, took)
		if err != nil || !res.ModalPending {
			t.Fatalf("Act = %+v %v, want ModalPending", res, err)
		}
		// The grace stretches with the machine's load (sysload).
		// The grace, then a read answered from the nested loop while the probe waits, then
		// the tie window (awaitCall); well below the grace and a call deadline.
		if want := sysload.Scale(grace) + sysload.Scale(atspi.TieWithin); took < grace || took > want+sysload.Scale(300*time.Millisecond) {
			t.Errorf("ModalPending after %v, want about ModalGrace %v and the tie window (%v as the load stretches them)", took, grace, want)
		}
		// The dialog's window:create arrives although the application answers nothing.
		select {
		case <-changes:
		case <-time.After(2 * time.Second):
			t.Error("no change reported while the dialog opened")
		}
		// Nothing of the application answers on the bus during the nested loop, the dialog
		// included; its own socket (peer.go) does, so the tree can still be read.
		busOnly := connect(t, 500*time.Millisecond)
		atspi.WithoutPeers(busOnly)
		if _, err := busOnly.Tree(ctx, a.window(), all); !errors.Is(err, platform.ErrAppNotResponding) {
			t.Errorf("Tree through the bus during the modal loop = %v, want ErrAppNotResponding", err)
		}
		// The window's tree was mirrored before: the mirror's barrier (through the bus) stalls too,
		// and gives up after the modal grace, not a whole call deadline, before the walk.
		treeStart := time.Now()
		if _, err := c.Tree(ctx, a.window(), all); err != nil {
			t.Errorf("Tree over the application's socket during the modal loop: %v", err)
		}
		if took := time.Since(treeStart); took > sysload.Scale(grace)+700*time.Millisecond {
			t.Errorf("Tree during the modal loop took %v; the barrier should give up after %v", took, sysload.Scale(grace))
		}
		// Close it from inside the application; then it answers again and the handler ran on.
		if err := syscall.Kill(a.pid, syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		testdesk.WaitFor(t, 5*time.Second, "the handler to finish after the dialog closed", func() bool {
			e, err := c.Element(ctx, status.Ref)
			return err == nil && e.Node.Name == "response -7"
		})
		after, err := c.Tree(ctx, a.window(), all)
		if err != nil {
			t.Fatal(err)
		}
		if find(after.Root, func(n *platform.Node) bool { return n.Name == "Dismiss" }) != nil {
			t.Error("the dialog's button is still in the tree")
		}
		// The abandoned probe's late reply broke nothing: actions work as before.
		act(t, c, byName("Details").Ref, platform.ActCollapse, "")
	})

	// Last: it ends the application.
	t.Run("a gone application", func(t *testing.T) {
		ref := byName("Details").Ref
		if err := syscall.Kill(a.pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		testdesk.WaitFor(t, 5*time.Second, "Element to report the application gone", func() bool {
			_, err := c.Element(ctx, ref)
			return errors.Is(err, platform.ErrWindowClosed)
		})
		if _, err := c.Act(ctx, ref, platform.ActInvoke, ""); !errors.Is(err, platform.ErrWindowClosed) {
			t.Errorf("Act on a gone application = %v, want ErrWindowClosed", err)
		}
	})
}

// TestSetValuePassword types into a password field; the value read back stays masked and the
// text reaches the application.
func TestSetValuePassword(t *testing.T) {
	needPythonGTK(t)
	c := connect(t, 2*time.Second)
	a := startApp(t, python, "testdata/password.py")
	var pw *platform.Node
	testdesk.WaitFor(t, 10*time.Second, "the password entry", func() bool {
		tree, err := c.Tree(context.Background(), a.window(), all)
		if err == nil {
			pw = find(tree.Root, func(n *platform.Node) bool { return n.Role == "password text" })
		}
		return pw != nil
	})
	const secret = "correct horse battery staple"
	act(t, c, pw.Ref, platform.ActSetValue, secret)
	e := element(t, c, pw.Ref)
	if e.Node.Value == nil || *e.Node.Value != atspi.MaskedValue {
		t.Errorf("password value read back as %v", e.Node.Value)
	}
	// GTK itself exposes only invisible characters, one per character typed.
	var got string
	if err := call(t, a11yConn(t), pw.Ref, "org.a11y.atspi.Text.GetText", int32(0), int32(-1)).Store(&got); err != nil ||
		utf8.RuneCountInString(got) != len(secret) || strings.Contains(got, "horse") {
		t.Errorf("the application holds %q (%v)", got, err)
	}
}

// drain empties a coalescing channel.
func drain(ch <-chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}
