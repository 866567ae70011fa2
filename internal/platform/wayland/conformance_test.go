package wayland_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/linux"
	"github.com/mcec/mcec/internal/platform/platformtest"
	"github.com/mcec/mcec/internal/platform/wayland/wlrtest"
	"github.com/mcec/mcec/internal/testdesk"
)

// The package's tests run on a private Wayland desktop (headless sway), the Linux backend
// attached to it as the daemon attaches.
func TestMain(m *testing.M) { os.Exit(testdesk.MainWayland(m)) }

func open(t *testing.T) *linux.Desktop {
	t.Helper()
	desk := testdesk.Desktop()
	return openWith(t, linux.Config{Wayland: desk.WaylandSocket(), Sway: desk.SwaySocket()})
}

// openToplevels attaches to the private sway as to a wlroots compositor without sway's IPC
// (Hyprland, labwc …): through wlr-foreign-toplevel and the other protocols alone.
func openToplevels(t *testing.T) *linux.Desktop {
	t.Helper()
	return openWith(t, linux.Config{Wayland: testdesk.Desktop().WaylandSocket(), Toplevels: true})
}

func openWith(t *testing.T, cfg linux.Config) *linux.Desktop {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg.DBusAddress, cfg.AtspiCallTimeout = testdesk.Desktop().DBusAddress(), 2*time.Second
	d, err := linux.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// TestConformance runs the backend conformance suite on Wayland, with the scene as a GTK 3
// application running natively on the compositor.
func TestConformance(t *testing.T) {
	platformtest.Run(t, func(t *testing.T) platformtest.Harness {
		return platformtest.Harness{Desktop: open(t), Start: testdesk.GTKScene,
			NoDialogParent: "sway 1.7 names the parent of Xwayland windows only, and sends no wlr-foreign-toplevel parent (newer wlroots compositors do)"}
	})
}

// TestConformanceToplevels runs the suite on sway driven as any wlroots compositor is, through
// its protocols alone: windows without places, owners found by title.
func TestConformanceToplevels(t *testing.T) {
	platformtest.Run(t, func(t *testing.T) platformtest.Harness {
		return platformtest.Harness{Desktop: openToplevels(t), Start: testdesk.GTKScene,
			NoDialogParent: "sway 1.7 sends no wlr-foreign-toplevel parent",
			NoPlaces:       "wlr-foreign-toplevel tells no window's place"}
	})
}

// TestTypeAnyCharacter types characters of no one layout into a GTK 3 entry through the
// virtual keyboard, and a chord selects them all (Control through the modifiers).
func TestTypeAnyCharacter(t *testing.T) {
	d := open(t)
	app := testdesk.GTKScene(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	win := sceneWindow(ctx, t, d, app.PID())
	tr, err := d.Tree(ctx, win, platform.TreeLimits{MaxDepth: 64, MaxNodes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	entry := findRole(tr.Root, "text")
	if entry == nil {
		t.Fatal("no text field")
	}
	if _, err := d.Act(ctx, entry.Ref, platform.ActSetValue, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Act(ctx, entry.Ref, platform.ActSetFocus, ""); err != nil {
		t.Fatal(err)
	}
	const text = "Grüße-1 € ok; Ωmega"
	if err := d.Input().Type(ctx, text); err != nil {
		t.Fatal(err)
	}
	value := func() string {
		el, err := d.Element(ctx, entry.Ref)
		if err != nil || el.Node.Value == nil {
			return ""
		}
		return *el.Node.Value
	}
	testdesk.WaitFor(t, 10*time.Second, "the typed text never arrived exactly", func() bool { return value() == text })
	// Select all, then type over it: Control reaches the application as a modifier.
	if err := d.Input().Chord(ctx, "Control_L", "a"); err != nil {
		t.Fatal(err)
	}
	if err := d.Input().Type(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	last := ""
	defer func() {
		if t.Failed() {
			t.Logf("the text field read %q", last)
		}
	}()
	testdesk.WaitFor(t, 10*time.Second, "Control+a then x did not replace the text", func() bool { last = value(); return last == "x" })
	if held, err := d.Input().Held(ctx); err != nil || len(held) != 0 {
		t.Errorf("held %v (%v) after the gestures", held, err)
	}
}

// sceneWindow waits for the scene's main window of process pid, listed with its owner.
func sceneWindow(ctx context.Context, t *testing.T, d *linux.Desktop, pid int) platform.Window {
	t.Helper()
	return wlrtest.SceneWindow(ctx, t, d, pid)
}

func findNode(n *platform.Node, role, name string) *platform.Node {
	if n == nil {
		return nil
	}
	if n.Role == role && n.Name == name {
		return n
	}
	for _, k := range n.Children {
		if f := findNode(k, role, name); f != nil {
			return f
		}
	}
	return nil
}

func findRole(n *platform.Node, role string) *platform.Node {
	if n.Role == role {
		return n
	}
	for _, k := range n.Children {
		if f := findRole(k, role); f != nil {
			return f
		}
	}
	return nil
}

// TestCaptureMinimized: a window in the scratchpad is restored to be captured, as on X11.
func TestCaptureMinimized(t *testing.T) {
	d := open(t)
	app := testdesk.GTKScene(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	handle := testdesk.WaitWindow(t, app.PID(), 10*time.Second)
	if err := d.WindowOp(ctx, handle, platform.WindowOp{Kind: platform.OpMinimize}); err != nil {
		t.Fatal(err)
	}
	testdesk.WaitFor(t, 10*time.Second, "the window never minimized", func() bool {
		w, err := d.Window(ctx, handle)
		return err == nil && w.Minimized
	})
	wc, err := d.CaptureWindow(ctx, handle)
	if err != nil {
		t.Fatal(err)
	}
	w, err := d.Window(ctx, handle)
	if err != nil {
		t.Fatal(err)
	}
	if !wc.Restored || w.Minimized || wc.Image == nil || wc.Image.Bounds().Dx() != w.Bounds.Width || wc.Image.Bounds().Dy() != w.Bounds.Height {
		t.Errorf("capture of a minimized window: restored %v, window %+v, image %v", wc.Restored, w, wc.Image.Bounds())
	}
}
