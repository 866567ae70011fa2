package atspi_test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/testdesk"
)

// TestActMenus opens and closes a GTK 3 menu by name (its menus offer only click), chooses an
// item by select, and toggles a check button whose only action is click; the app's status label
// says what it received.
func TestActMenus(t *testing.T) {
	needPythonGTK(t)
	c := connect(t, 2*time.Second)
	a := startApp(t, python, "../../tools/testdata/menus.py")
	tree := treeWith(t, c, a, "Open")
	byName := func(role, name string) *platform.Node {
		t.Helper()
		n := find(tree.Root, func(n *platform.Node) bool { return n.Role == role && n.Name == name })
		if n == nil {
			t.Fatalf("no %s %q", role, name)
		}
		return n
	}
	file, open := byName("menu", "File"), byName("menu item", "Open")
	status := find(tree.Root, func(n *platform.Node) bool { return n.Role == "label" })
	showing := func() bool { return element(t, c, open.Ref).Node.States["showing"] }
	says := func(what string) {
		t.Helper()
		testdesk.WaitFor(t, 3*time.Second, "the status to say "+what, func() bool { return element(t, c, status.Ref).Node.Name == what })
	}

	t.Run("expand and collapse", func(t *testing.T) {
		for _, step := range []struct {
			action platform.ElementAction
			open   bool
		}{{platform.ActExpand, true}, {platform.ActExpand, true}, {platform.ActCollapse, false}, {platform.ActCollapse, false}} {
			act(t, c, file.Ref, step.action, "")
			testdesk.WaitFor(t, 3*time.Second, "the menu to follow "+string(step.action), func() bool { return showing() == step.open })
		}
	})
	t.Run("select a menu item chooses it", func(t *testing.T) {
		act(t, c, file.Ref, platform.ActExpand, "")
		testdesk.WaitFor(t, 3*time.Second, "the menu to open", showing)
		act(t, c, open.Ref, platform.ActSelect, "")
		says("Status: opened")
		testdesk.WaitFor(t, 3*time.Second, "the menu to close", func() bool { return !showing() })
	})
	t.Run("select a combo box entry", func(t *testing.T) {
		act(t, c, byName("menu item", "Blue").Ref, platform.ActSelect, "")
		says("Status: colour Blue")
	})
	t.Run("toggle a check button that only clicks", func(t *testing.T) {
		box := byName("check box", "Remember")
		act(t, c, box.Ref, platform.ActToggle, "")
		says("Status: remember True")
		act(t, c, box.Ref, platform.ActToggle, "")
		says("Status: remember False")
	})
}

// TestActToggleWeb toggles a Chromium page's check box, whose only action is "check", both ways.
func TestActToggleWeb(t *testing.T) {
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Skip("needs chromium")
	}
	c := connect(t, 2*time.Second)
	dir := t.TempDir()
	page, err := filepath.Abs("../../tools/testdata/webform.html")
	if err != nil {
		t.Fatal(err)
	}
	a := startApp(t, "env", "ACCESSIBILITY_ENABLED=1", "chromium", "--force-renderer-accessibility", "--no-sandbox", "--no-first-run",
		"--disable-gpu", "--user-data-dir="+dir, "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"file://"+page)
	var box *platform.Node
	testdesk.WaitFor(t, 20*time.Second, "the page's check box", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		tree, err := c.Tree(ctx, a.window(), all)
		if err == nil {
			box = find(tree.Root, func(n *platform.Node) bool { return n.Role == "check box" && n.Name == "Agree" })
		}
		return box != nil
	})
	for _, want := range []bool{true, false} {
		act(t, c, box.Ref, platform.ActToggle, "")
		testdesk.WaitFor(t, 3*time.Second, "the check box to follow", func() bool {
			return element(t, c, box.Ref).Node.States["checked"] == want
		})
	}
}

// TestLateLabelWeb: a Chromium check box whose label text the page adds after the box was
// described is named from that text, in walks and when read by ref (Chromium leaves it
// nameless); one labelled in time keeps Chromium's own name.
func TestLateLabelWeb(t *testing.T) {
	if _, err := exec.LookPath("chromium"); err != nil {
		t.Skip("needs chromium")
	}
	c := connect(t, 2*time.Second)
	page, err := filepath.Abs("testdata/latelabel.html")
	if err != nil {
		t.Fatal(err)
	}
	a := startApp(t, "env", "ACCESSIBILITY_ENABLED=1", "chromium", "--force-renderer-accessibility", "--no-sandbox", "--no-first-run",
		"--disable-gpu", "--user-data-dir="+t.TempDir(), "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"file://"+page)
	var late, early *platform.Node
	testdesk.WaitFor(t, 30*time.Second, "the page's late text and both boxes", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		tree, err := c.Tree(ctx, a.window(), all)
		if err != nil || find(tree.Root, func(n *platform.Node) bool { return n.Role == "document web" && n.Name == "Late Label done" }) == nil {
			return false
		}
		late = find(tree.Root, func(n *platform.Node) bool { return n.Role == "check box" })
		early = find(tree.Root, func(n *platform.Node) bool { return n.Role == "radio button" })
		return late != nil && early != nil
	})
	if late.Name != "Later" || early.Name != "Early" {
		t.Errorf("in the walk: check box %q, radio button %q; want \"Later\" and \"Early\"", late.Name, early.Name)
	}
	if got := element(t, c, late.Ref).Node.Name; got != "Later" {
		t.Errorf("the check box read by ref is named %q, want \"Later\"", got)
	}
	if got := element(t, c, early.Ref).Node.Name; got != "Early" {
		t.Errorf("the radio button read by ref is named %q, want \"Early\"", got)
	}
}

// TestSetFocusGTK4: GTK 4 does not implement Component.GrabFocus. setfocus on an element that
// already has the focus succeeds without it; on another it fails as unsupported, saying to
// click, not as the application's fault.
func TestSetFocusGTK4(t *testing.T) {
	if err := exec.Command(python, "-c", `import gi; gi.require_version("Gtk", "4.0"); from gi.repository import Gtk`).Run(); err != nil {
		t.Skip("needs python3-gi and gir1.2-gtk-4.0")
	}
	c := connect(t, 2*time.Second)
	a := startApp(t, python, "../../reach/testdata/gtk4_form.py")
	var field, greet *platform.Node
	testdesk.WaitFor(t, 15*time.Second, "the GTK 4 form's focused field and its Greet button", func() bool {
		tree := treeWith(t, c, a, "Greet")
		field = find(tree.Root, func(n *platform.Node) bool { return n.Name == "Name field" && n.States["focused"] })
		greet = find(tree.Root, func(n *platform.Node) bool { return n.Name == "Greet" })
		return field != nil && greet != nil
	})
	act(t, c, field.Ref, platform.ActSetFocus, "")
	_, err := c.Act(context.Background(), greet.Ref, platform.ActSetFocus, "")
	if !errors.Is(err, platform.ErrUnsupported) || !strings.Contains(err.Error(), "click it") {
		t.Errorf("setfocus on GTK 4's button: %v; want ErrUnsupported saying to click", err)
	}
}

// TestMnemonicNamesGTK4: GTK 4.8 puts a label's raw mnemonic into the name ("_Mnemo Mnemo",
// "7 7", "_Check me") and names no button whose label uses markup; the tree and an element read
// alone name each as its label shows it.
func TestMnemonicNamesGTK4(t *testing.T) {
	if err := exec.Command(python, "-c", `import gi; gi.require_version("Gtk", "4.0"); from gi.repository import Gtk`).Run(); err != nil {
		t.Skip("needs python3-gi and gir1.2-gtk-4.0")
	}
	c := connect(t, 2*time.Second)
	a := startApp(t, python, "testdata/mnemonic4.py")
	tree := treeWith(t, c, a, "Plain")
	for _, want := range []struct{ role, name string }{
		{"push button", "Plain"}, {"push button", "Mnemo"}, {"push button", "7"}, {"check box", "Check me"}, {"push button", "x2"},
	} {
		n := find(tree.Root, func(n *platform.Node) bool { return n.Role == want.role && n.Name == want.name })
		if n == nil {
			t.Errorf("no %s %q in the tree", want.role, want.name)
			continue
		}
		if got := element(t, c, n.Ref).Node.Name; got != want.name {
			t.Errorf("%s %q read alone is named %q", want.role, want.name, got)
		}
	}
}
