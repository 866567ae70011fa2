package linux_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/headless"
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

// form is one toolkit's test form (testdata/): a status label, a text field with a value, a
// Submit button that writes the field into the label, and an Open dialog button.
type form struct {
	name          string
	argv          []string
	title, dialog string
	field         func(*platform.Node) bool
	value         string
}

// javaATK switches Java's ATK wrapper on (Debian libatk-wrapper-java), as mcec's launch does.
const javaATK = "JAVA_TOOL_OPTIONS=-Xbootclasspath/a:/usr/share/java/java-atk-wrapper.jar " +
	"-Djavax.accessibility.assistive_technologies=org.GNOME.Accessibility.AtkWrapper"

var forms = []form{
	// Qt's bridge segfaults on Properties.GetAll: it must be read one property at a time.
	{name: "Qt5", argv: []string{"/usr/bin/python3", "testdata/qtform.py", "5"}, title: "Qt5 Form", dialog: "Qt Dialog",
		field: func(n *platform.Node) bool { return n.Name == "Name" }, value: "Ada"},
	{name: "Qt6", argv: []string{"/usr/bin/python3", "testdata/qtform.py", "6"}, title: "Qt6 Form", dialog: "Qt Dialog",
		field: func(n *platform.Node) bool { return n.Name == "Name" }, value: "Ada"},
	// GTK 4.8: window-relative extents, no SHOWING below the frame, "" for GetText(0, -1).
	{name: "GTK4", argv: []string{"/usr/bin/python3", "testdata/gtk4form.py"}, title: "GTK4 Form", dialog: "GTK4 Dialog",
		field: func(n *platform.Node) bool { return n.Role == "text" }, value: "hello gtk4"},
	// Swing through the ATK wrapper; its dialog is active while open.
	{name: "Swing", argv: []string{"env", javaATK, "java", "testdata/Form.java"}, title: "Swing Form", dialog: "Swing Dialog",
		field: func(n *platform.Node) bool { return n.Name == "Name" }, value: "Ada"},
}

// TestToolkitForms walks each form repeatedly (the application must survive), checks roles,
// names, bounds inside the window and the field's value, acts on Submit and sees the label
// change, and, with the dialog open, gets the dialog's tree for the dialog window and the main
// window's for the main window.
func TestToolkitForms(t *testing.T) {
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			d := open(t)
			p := testdesk.Start(t, f.argv...)
			main := windowTitled(t, d, p.PID, f.title)
			// No wait for the registration: Tree waits for a process that carries a bridge (GTK 4
			// registers seconds after mapping) and says tree-not-ready when it is not there yet.
			var submit *platform.Node
			testdesk.WaitFor(t, 30*time.Second, "the form never showed its Submit button", func() bool {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				tr, err := d.Tree(ctx, main, platform.TreeLimits{MaxDepth: 6, MaxNodes: 1000})
				if errors.Is(err, platform.ErrTreeNotReady) {
					return false
				}
				if err != nil {
					t.Fatalf("Tree right after the window mapped: %v", err)
				}
				submit = find(tr.Root, named("push button", "Submit"))
				return submit != nil
			})
			for range 10 {
				tr := tree(t, d, main)
				if tr.Root.Name != main.Title {
					t.Fatalf("root is %s %q, want the main window's frame", tr.Root.Role, tr.Root.Name)
				}
				if b := tr.Root.Bounds; b == nil || b.Empty() {
					t.Fatalf("the frame has no bounds: %+v", b)
				}
				submit = find(tr.Root, named("push button", "Submit"))
				if submit == nil || submit.Bounds == nil || !main.Bounds.Contains(*submit.Bounds) {
					t.Fatalf("Submit button missing or outside the window %+v: %+v", main.Bounds, submit)
				}
				if !submit.States["showing"] {
					t.Fatalf("Submit button is not showing: %v", submit.States)
				}
				if fld := find(tr.Root, f.field); fld == nil || fld.Value == nil || *fld.Value != f.value {
					t.Fatalf("the text field does not read back %q: %+v", f.value, fld)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			el, err := d.Element(ctx, submit.Ref)
			if err != nil {
				t.Fatalf("Element(Submit): %v", err)
			}
			if el.Node.Bounds == nil || *el.Node.Bounds != *submit.Bounds {
				t.Errorf("Submit re-read by ref has bounds %+v, the tree said %+v", el.Node.Bounds, submit.Bounds)
			}
			if _, err := d.Act(ctx, submit.Ref, platform.ActInvoke, ""); err != nil {
				t.Fatalf("invoke Submit: %v", err)
			}
			testdesk.WaitFor(t, 5*time.Second, "the status label never said submitted", func() bool {
				return find(tree(t, d, main).Root, func(n *platform.Node) bool {
					return n.Role == "label" && (strings.HasPrefix(n.Name, "Status: submitted") ||
						n.Value != nil && strings.HasPrefix(*n.Value, "Status: submitted"))
				}) != nil
			})

			opener := find(tree(t, d, main).Root, named("push button", "Open dialog"))
			if opener == nil {
				t.Fatal("no Open dialog button")
			}
			if _, err := d.Act(ctx, opener.Ref, platform.ActInvoke, ""); err != nil {
				t.Fatalf("invoke Open dialog: %v", err)
			}
			dialog := windowTitled(t, d, p.PID, f.dialog)
			testdesk.WaitFor(t, 10*time.Second, "the dialog's frame never showed its button", func() bool {
				return find(tree(t, d, dialog).Root, named("push button", "Close dialog")) != nil
			})
			if got := tree(t, d, dialog).Root; got.Name != f.dialog || got.Bounds == nil || got.Bounds.Empty() {
				t.Errorf("dialog window's tree is %q's, bounds %+v", got.Name, got.Bounds)
			}
			if got := tree(t, d, main).Root.Name; got != main.Title {
				t.Errorf("with the dialog open, the main window's tree is %q's", got)
			}
			if !alive(p.PID) {
				t.Fatal("the application died")
			}
		})
	}
}

// TestNoTreeSaysWhy: a process without a tree fails at once with the reason and the fix — a
// toolkit with no bridge (Tk), a bridge switched off (NO_AT_BRIDGE=1) — instead of waiting for a
// registration that never comes.
func TestNoTreeSaysWhy(t *testing.T) {
	d := open(t)
	for _, tc := range []struct {
		name, title string
		argv        []string
		want        string
	}{
		{"Tk", "mcec tk", []string{"wish", "testdata/tk.tcl"}, "Tk has no accessibility bridge"},
		{"bridge off", "mcec gtk off", []string{"env", "NO_AT_BRIDGE=1", "/usr/bin/python3", "testdata/gtk3win.py", "mcec gtk off"}, "NO_AT_BRIDGE=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testdesk.Start(t, tc.argv...)
			var w platform.Window
			testdesk.WaitFor(t, 20*time.Second, "no window "+tc.title, func() bool {
				ws, _ := d.Windows(context.Background())
				for _, x := range ws {
					if x.Title == tc.title {
						w = x
						return true
					}
				}
				return false
			})
			if w.ProcessID != p.PID {
				t.Fatalf("window %q belongs to pid %d, want %d", tc.title, w.ProcessID, p.PID)
			}
			start := time.Now()
			_, err := d.Tree(context.Background(), w, platform.TreeLimits{MaxDepth: 6, MaxNodes: 1000})
			if !errors.Is(err, platform.ErrNoAccessibleTree) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Tree: %v; want no-accessible-tree saying %q", err, tc.want)
			}
			if took := time.Since(start); took > time.Second {
				t.Errorf("took %v: a process that will never register is not waited for", took)
			}
		})
	}
}

// TestFirstClickOnFreshDesktop: on a new X server the first XTEST event switches the master
// pointer's slave device and GTK drops the event that caused the switch; the backend primes
// input so that the very first click lands. A desktop of its own: the package's is not fresh.
func TestFirstClickOnFreshDesktop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	fresh, err := headless.Start(ctx, headless.Options{})
	if err != nil {
		t.Fatalf("fresh desktop: %v", err)
	}
	t.Cleanup(func() { _ = fresh.Stop() })
	cmd := exec.Command("/usr/bin/python3", "testdata/four.py")
	cmd.Env = fresh.Env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	d, err := linux.Open(ctx, linux.Config{Display: fresh.Display(), DBusAddress: fresh.DBusAddress()})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	w := windowTitled(t, d, cmd.Process.Pid, "four:")
	var buttons []*platform.Node
	testdesk.WaitFor(t, 20*time.Second, "the four buttons never showed", func() bool {
		tr, err := d.Tree(ctx, w, platform.TreeLimits{MaxDepth: 6, MaxNodes: 100})
		if err != nil {
			return false
		}
		buttons = nil
		for _, name := range []string{"A", "B", "C", "D"} {
			if b := find(tr.Root, named("push button", name)); b != nil && b.Bounds != nil {
				buttons = append(buttons, b)
			}
		}
		return len(buttons) == 4
	})
	for _, b := range buttons {
		c := platform.Point{X: b.Bounds.X + b.Bounds.Width/2, Y: b.Bounds.Y + b.Bounds.Height/2}
		if err := d.Input().Click(ctx, c, platform.ButtonLeft, 1); err != nil {
			t.Fatalf("click %s: %v", b.Name, err)
		}
	}
	testdesk.WaitFor(t, 5*time.Second, "not all four clicks landed", func() bool {
		cur, err := d.Window(ctx, w.Handle)
		return err == nil && cur.Title == "four:ABCD"
	})
}
