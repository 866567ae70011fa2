package linux_test

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/linux"
	"github.com/mcec/mcec/internal/testdesk"
)

// The backend's own toolkit tests: X windows and AT-SPI frames joined, on real applications of
// toolkits other than GTK 3. The cross-toolkit suite through the tools is internal/reach.

func TestMain(m *testing.M) { os.Exit(testdesk.Main(m)) }

func open(t *testing.T) *linux.Desktop {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := linux.Open(ctx, linux.Config{AtspiCallTimeout: 2 * time.Second})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// windowTitled waits for a window of pid whose title is title.
func windowTitled(t *testing.T, d *linux.Desktop, pid int, title string) platform.Window {
	t.Helper()
	var found platform.Window
	testdesk.WaitFor(t, 20*time.Second, "no window "+title, func() bool {
		ws, err := d.Windows(context.Background())
		if err != nil {
			return false
		}
		for _, w := range ws {
			if w.ProcessID == pid && w.Title == title {
				found = w
				return true
			}
		}
		return false
	})
	return found
}

func find(n *platform.Node, pred func(*platform.Node) bool) *platform.Node {
	if n == nil {
		return nil
	}
	if pred(n) {
		return n
	}
	for _, k := range n.Children {
		if f := find(k, pred); f != nil {
			return f
		}
	}
	return nil
}

func named(role, name string) func(*platform.Node) bool {
	return func(n *platform.Node) bool { return n.Role == role && n.Name == name }
}

func tree(t *testing.T, d *linux.Desktop, w platform.Window) platform.Tree {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tr, err := d.Tree(ctx, w, platform.TreeLimits{MaxDepth: 6, MaxNodes: 1000})
	if err != nil {
		t.Fatalf("Tree(%q): %v", w.Title, err)
	}
	return tr
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// TestQt: Qt's bridge segfaults on Properties.GetAll; the backend must read it one property at
// a time, keep it alive through repeated walks and actions, and tell its dialog from its main
// window.
func TestQt(t *testing.T) {
	for _, v := range []string{"5", "6"} {
		t.Run("Qt"+v, func(t *testing.T) {
			d := open(t)
			p := testdesk.Start(t, "/usr/bin/python3", "testdata/qtform.py", v)
			main := windowTitled(t, d, p.PID, "Qt"+v+" Form")
			testdesk.WaitAccessible(t, p.PID, 20*time.Second)
			var submit *platform.Node
			for range 10 {
				tr := tree(t, d, main)
				if tr.Root.Name != main.Title {
					t.Fatalf("root is %s %q, want the main window's frame", tr.Root.Role, tr.Root.Name)
				}
				submit = find(tr.Root, named("push button", "Submit"))
				if submit == nil || submit.Bounds == nil || !main.Bounds.Contains(*submit.Bounds) {
					t.Fatalf("Submit button missing or outside the window %+v: %+v", main.Bounds, submit)
				}
				if name := find(tr.Root, func(n *platform.Node) bool { return n.Name == "Name" }); name == nil || name.Value == nil || *name.Value != "Ada" {
					t.Fatalf("the Name field does not read back its text: %+v", name)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := d.Element(ctx, submit.Ref); err != nil {
				t.Fatalf("Element(Submit): %v", err)
			}
			if _, err := d.Act(ctx, submit.Ref, platform.ActInvoke, ""); err != nil {
				t.Fatalf("invoke Submit: %v", err)
			}
			testdesk.WaitFor(t, 5*time.Second, "the status label never said submitted", func() bool {
				return find(tree(t, d, main).Root, func(n *platform.Node) bool {
					return n.Role == "label" && strings.HasPrefix(n.Name, "Status: submitted Ada")
				}) != nil
			})

			opener := find(tree(t, d, main).Root, named("push button", "Open dialog"))
			if opener == nil {
				t.Fatal("no Open dialog button")
			}
			if _, err := d.Act(ctx, opener.Ref, platform.ActInvoke, ""); err != nil {
				t.Fatalf("invoke Open dialog: %v", err)
			}
			dialog := windowTitled(t, d, p.PID, "Qt Dialog")
			testdesk.WaitFor(t, 5*time.Second, "the dialog's frame never showed its button", func() bool {
				return find(tree(t, d, dialog).Root, named("push button", "Close dialog")) != nil
			})
			if got := tree(t, d, dialog).Root.Name; got != "Qt Dialog" {
				t.Errorf("dialog window's tree is %q's", got)
			}
			if got := tree(t, d, main).Root.Name; got != main.Title {
				t.Errorf("with the dialog open, the main window's tree is %q's", got)
			}
			if !alive(p.PID) {
				t.Fatal("the Qt application died")
			}
		})
	}
}
