// Package gnometest runs the backend's tests on GNOME Shell: a private headless gnome-shell with
// mcec's extension (headless.GNOME), the Linux backend attached to it as it attaches to a user's
// GNOME session once `mcec setup gnome` has installed the extension.
package gnometest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/linux"
	"github.com/mcec/mcec/internal/platform/platformtest"
	"github.com/mcec/mcec/internal/testdesk"
	"github.com/mcec/mcec/internal/wayland/gnome"
)

func TestMain(m *testing.M) { os.Exit(testdesk.MainGNOME(m)) }

func open(t *testing.T) *linux.Desktop {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	desk := testdesk.Desktop()
	d, err := linux.Open(ctx, linux.Config{Wayland: desk.WaylandSocket(), GNOME: true,
		DBusAddress: desk.DBusAddress(), AtspiCallTimeout: 2 * time.Second})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// TestSessionByProgram: the program serving the socket is gnome-shell, and the session is found as
// GNOME Shell by it, whatever XDG_CURRENT_DESKTOP says (a desktop that names none of them).
func TestSessionByProgram(t *testing.T) {
	desk := testdesk.Desktop()
	if got := linux.CompositorProgram(desk.WaylandSocket()); got != "gnome-shell" {
		t.Fatalf("CompositorProgram = %q, want gnome-shell", got)
	}
	env := map[string]string{"WAYLAND_DISPLAY": desk.WaylandSocket(), "XDG_CURRENT_DESKTOP": "Unnamed"}
	cfg, ok, _, err := linux.Session(func(k string) string { return env[k] }, linux.CompositorProgram)
	if err != nil || !ok || !cfg.GNOME || cfg.Toplevels {
		t.Errorf("Session = %+v, %v, %v; want GNOME Shell's", cfg, ok, err)
	}
}

// TestConformance runs the backend conformance suite on GNOME Shell, with the scene as a GTK 3
// application running natively on the compositor.
func TestConformance(t *testing.T) {
	platformtest.Run(t, func(t *testing.T) platformtest.Harness {
		return platformtest.Harness{Desktop: open(t), Start: testdesk.GTKScene}
	})
}

// TestOnlyMcec: the extension serves the executable it was installed for (this test binary)
// and refuses any other program (dbus-send stands for one).
func TestOnlyMcec(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	g, err := gnome.Dial(ctx, testdesk.Desktop().DBusAddress())
	if err != nil {
		t.Fatalf("this executable is refused: %v", err)
	}
	defer g.Close()
	if _, err := g.Windows(ctx); err != nil {
		t.Fatalf("Windows: %v", err)
	}
	cmd := exec.CommandContext(ctx, "dbus-send", "--session", "--print-reply", "--dest=org.mcec.Shell", "/org/mcec/Shell",
		"org.mcec.Shell.Windows")
	cmd.Env = testdesk.Desktop().Env()
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "org.mcec.Shell.Error.NotAllowed") {
		t.Errorf("dbus-send, another executable, was served: %v\n%s", err, out)
	}
}

// TestTypeOffLayout: the Shell's keyboard types through the session's keymap, so a character no
// US key makes fails before anything is typed, with the code that names the compositor's limit.
func TestTypeOffLayout(t *testing.T) {
	d := open(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := d.Input().Type(ctx, "Grüße")
	if !errors.Is(err, platform.ErrCompositorUnsupported) {
		t.Fatalf("Type of ü on GNOME = %v, want ErrCompositorUnsupported", err)
	}
	if held, err := d.Input().Held(ctx); err != nil || len(held) != 0 {
		t.Errorf("held %v (%v) after a refused Type", held, err)
	}
}

// TestLayoutGuard: when the session types through a German layout, a character key would type
// another character (mcec sends a US keyboard's keys), so Type refuses it naming the layout;
// keys that mean the same on every layout still go; back on a US layout, typing works.
func TestLayoutGuard(t *testing.T) {
	d := open(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	setSources := func(sources string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, "gsettings", "set", "org.gnome.desktop.input-sources", "sources", sources)
		cmd.Env = append(os.Environ(), "GSETTINGS_BACKEND=keyfile", "XDG_CONFIG_HOME="+testdesk.Desktop().ConfigHome())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gsettings: %v\n%s", err, out)
		}
	}
	setSources("[('xkb', 'de')]")
	defer setSources("[('xkb', 'us')]")
	var err error
	testdesk.WaitFor(t, 10*time.Second, "Type went on through a German layout", func() bool {
		err = d.Input().Type(ctx, "yz")
		return errors.Is(err, platform.ErrCompositorUnsupported)
	})
	if !strings.Contains(err.Error(), `"de"`) {
		t.Errorf("the refusal does not name the layout: %v", err)
	}
	if err := d.Input().Chord(ctx, "Return"); err != nil {
		t.Errorf("Return on a German layout: %v", err)
	}
	setSources("[('xkb', 'us')]")
	testdesk.WaitFor(t, 10*time.Second, "Type stayed refused on a US layout", func() bool {
		return d.Input().Type(ctx, "yz") == nil
	})
}

// TestPopupPlacement: an open combo box's list is a popup surface; its items get bounds from
// where GNOME Shell shows it, and a click at an item's centre chooses it (gtk3-widget-factory's
// "Andrea" combo box, whose list holds "Otto").
func TestPopupPlacement(t *testing.T) {
	d := open(t)
	p := testdesk.Start(t, "gtk3-widget-factory")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var win platform.Window
	testdesk.WaitFor(t, 20*time.Second, "no gtk3-widget-factory window", func() bool {
		ws, err := d.Windows(ctx)
		for _, w := range ws {
			if err == nil && w.ProcessID == p.PID {
				win = w
				return true
			}
		}
		return false
	})
	tree := func() *platform.Node {
		tr, err := d.Tree(ctx, win, platform.TreeLimits{MaxDepth: 40, MaxNodes: 5000})
		if err != nil {
			return nil
		}
		return tr.Root
	}
	// The enabled combo box whose list starts with Andrea.
	var combo *platform.Node
	testdesk.WaitFor(t, 20*time.Second, "no enabled combo box holding Andrea", func() bool {
		combo = find(tree(), func(n, parent *platform.Node) bool {
			return n.Role == "combo box" && n.States["enabled"] && n.Bounds != nil &&
				find(n, func(k, _ *platform.Node) bool { return k.Role == "menu item" && k.Name == "Andrea" }) != nil
		})
		return combo != nil
	})
	b := *combo.Bounds
	if err := d.WindowOp(ctx, win.Handle, platform.WindowOp{Kind: platform.OpActivate}); err != nil {
		t.Fatal(err)
	}
	if err := d.Input().Click(ctx, platform.Point{X: b.X + b.Width/2, Y: b.Y + b.Height/2}, platform.ButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	var otto *platform.Node
	testdesk.WaitFor(t, 10*time.Second, "the open list's Otto got no bounds", func() bool {
		otto = find(tree(), func(n, parent *platform.Node) bool {
			return n.Role == "menu item" && n.Name == "Otto" && n.Bounds != nil && n.States["showing"]
		})
		return otto != nil
	})
	o := *otto.Bounds
	if err := d.Input().Click(ctx, platform.Point{X: o.X + o.Width/2, Y: o.Y + o.Height/2}, platform.ButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	testdesk.WaitFor(t, 10*time.Second, "the click at Otto's centre did not choose it", func() bool {
		n := find(tree(), func(n, _ *platform.Node) bool { return n.Ref == combo.Ref })
		return n != nil && n.Name != combo.Name
	})
}

// find is the first node (depth first) for which match holds.
func find(n *platform.Node, match func(n, parent *platform.Node) bool) *platform.Node {
	var walk func(n, parent *platform.Node) *platform.Node
	walk = func(n, parent *platform.Node) *platform.Node {
		if n == nil {
			return nil
		}
		if match(n, parent) {
			return n
		}
		for _, k := range n.Children {
			if f := walk(k, n); f != nil {
				return f
			}
		}
		return nil
	}
	return walk(n, nil)
}

// TestHeldKeyTypesOnce: a key held past the repeat delay types once on mcec's desktop.
func TestHeldKeyTypesOnce(t *testing.T) {
	platformtest.HeldKeyTypesOnce(t, platformtest.Harness{Desktop: open(t), Start: testdesk.GTKScene})
}

// TestMaximizeRestore: the extension maximizes, restores and minimizes a window, and the window
// list reports each state (the extension reads the state from the maximized-horizontally and
// -vertically properties and passes MaximizeFlags only where mutter has them).
func TestMaximizeRestore(t *testing.T) {
	d := open(t)
	app := testdesk.GTKScene(t)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	windowOf := func() (platform.Window, bool) {
		ws, err := d.Windows(ctx)
		for _, w := range ws {
			if err == nil && w.ProcessID == app.PID() {
				return w, true
			}
		}
		return platform.Window{}, false
	}
	var before platform.Window
	testdesk.WaitFor(t, 20*time.Second, "no window of the GTK scene", func() (ok bool) {
		before, ok = windowOf()
		return ok
	})
	op := func(kind platform.WindowOpKind, want string, holds func(w platform.Window) bool) {
		t.Helper()
		if err := d.WindowOp(ctx, before.Handle, platform.WindowOp{Kind: kind}); err != nil {
			t.Fatalf("%v: %v", kind, err)
		}
		testdesk.WaitFor(t, 10*time.Second, "the window never got "+want, func() bool {
			w, ok := windowOf()
			return ok && holds(w)
		})
	}
	op(platform.OpMaximize, "maximized", func(w platform.Window) bool {
		return w.Maximized && w.Bounds.Width > before.Bounds.Width && w.Bounds.Height > before.Bounds.Height
	})
	op(platform.OpRestore, "restored", func(w platform.Window) bool {
		return !w.Maximized && w.Bounds.Width == before.Bounds.Width && w.Bounds.Height == before.Bounds.Height
	})
	op(platform.OpMinimize, "minimized", func(w platform.Window) bool { return w.Minimized })
	op(platform.OpRestore, "restored from minimized", func(w platform.Window) bool { return !w.Minimized && !w.Maximized })
}
