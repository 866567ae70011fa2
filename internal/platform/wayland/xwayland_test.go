package wayland_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/headless"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/linux"
	"github.com/mcec/mcec/internal/platform/platformtest"
	"github.com/mcec/mcec/internal/testdesk"
)

// TestXWayland: an X11 program under the compositor's Xwayland is listed as served by
// xwayland, and its tree (X screen coordinates, not window-local ones) is placed so that a click
// at a button's centre presses it.
func TestXWayland(t *testing.T) {
	if _, err := exec.LookPath("Xwayland"); err != nil {
		t.Fatalf("Xwayland is not installed (make test-deps): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	desk, err := headless.Start(ctx, headless.Options{Kind: headless.Wayland, XWayland: true})
	if err != nil {
		t.Fatal(err)
	}
	defer desk.Stop()
	if desk.XWaylandDisplay() == "" || !slices.Contains(desk.Env(), "DISPLAY="+desk.XWaylandDisplay()) {
		t.Fatalf("Xwayland display %q, not in the desktop's environment", desk.XWaylandDisplay())
	}
	if !slices.Contains(desk.Env(), "_JAVA_AWT_WM_NONREPARENTING=1") {
		t.Error("Java is not told that sway's Xwayland window manager does not reparent: its windows would stay grey")
	}
	d, err := linux.Open(ctx, linux.Config{Wayland: desk.WaylandSocket(), Sway: desk.SwaySocket(), DBusAddress: desk.DBusAddress(),
		AtspiCallTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	_, self, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(self), "..", "..", "testdesk", "testdata", "conformance.py")
	cmd := exec.Command("/usr/bin/python3", script)
	cmd.Env = append(desk.Env(), "GDK_BACKEND=x11") // the X11 program: GTK 3 on Xwayland
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() }()

	var win platform.Window
	testdesk.WaitFor(t, 20*time.Second, "no window of the X11 program", func() bool {
		ws, err := d.Windows(ctx)
		for _, w := range ws {
			if err == nil && w.ProcessID == cmd.Process.Pid && w.Title == platformtest.Title {
				win = w
				return true
			}
		}
		return false
	})
	if win.Server != platform.ServerXWayland {
		t.Errorf("the X11 program's window is served by %q, want %q", win.Server, platform.ServerXWayland)
	}
	var button *platform.Node
	testdesk.WaitFor(t, 20*time.Second, "no Count button in the X11 program's tree", func() bool {
		tr, err := d.Tree(ctx, win, platform.TreeLimits{MaxDepth: 64, MaxNodes: 1000})
		if err != nil {
			return false
		}
		button = findNamed(tr.Root, "Count")
		return button != nil && button.Bounds != nil
	})
	b := *button.Bounds
	if !win.Bounds.Contains(b) {
		t.Fatalf("the button at %v lies outside its window %v", b, win.Bounds)
	}
	if err := d.Input().Click(ctx, platform.Point{X: b.X + b.Width/2, Y: b.Y + b.Height/2}, platform.ButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	testdesk.WaitFor(t, 10*time.Second, "the click at the button's centre did not press it", func() bool {
		tr, err := d.Tree(ctx, win, platform.TreeLimits{MaxDepth: 64, MaxNodes: 1000})
		return err == nil && findNamed(tr.Root, platformtest.LabelClicked(1)) != nil
	})
}

func findNamed(n *platform.Node, name string) *platform.Node {
	if n == nil {
		return nil
	}
	if n.Name == name {
		return n
	}
	for _, k := range n.Children {
		if f := findNamed(k, name); f != nil {
			return f
		}
	}
	return nil
}
