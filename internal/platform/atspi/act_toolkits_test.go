package atspi_test

import (
	"context"
	"os/exec"
	"path/filepath"
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
