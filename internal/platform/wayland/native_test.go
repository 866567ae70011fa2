package wayland_test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/headless"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/linux"
	"github.com/mcec/mcec/internal/platform/platformtest"
	"github.com/mcec/mcec/internal/testdesk"
)

// TestNativeWindowsFromTheBus: where the compositor lists no windows to mcec (GNOME Shell
// without mcec's extension; here sway's bus, which has no extension to answer), mcec attaches to
// XWayland for X11 programs and lists native Wayland windows from the accessibility bus. A
// native window has no place: its tree has no bounds, semantic actions work, and window
// operations and capture fail compositor-unsupported. An X11 program beside it is driven as on
// X11.
func TestNativeWindowsFromTheBus(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	desk, err := headless.Start(ctx, headless.Options{Kind: headless.Wayland, XWayland: true})
	if err != nil {
		t.Fatal(err)
	}
	defer desk.Stop()
	d, err := linux.Open(ctx, linux.Config{Wayland: desk.WaylandSocket(), GNOME: true, Display: desk.XWaylandDisplay(),
		DBusAddress: desk.DBusAddress(), AtspiCallTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	_, self, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(self), "..", "..", "testdesk", "testdata", "conformance.py")
	start := func(env ...string) int {
		cmd := exec.Command("/usr/bin/python3", script)
		cmd.Env = append(desk.Env(), env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { stdin.Close(); _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
		return cmd.Process.Pid
	}
	native, x11 := start(), start("GDK_BACKEND=x11")
	window := func(pid int, served string) platform.Window {
		var win platform.Window
		testdesk.WaitFor(t, 20*time.Second, "no window of the program", func() bool {
			ws, err := d.Windows(ctx)
			for _, w := range ws {
				if err == nil && w.ProcessID == pid && w.Title == platformtest.Title && w.Server == served {
					win = w
					return true
				}
			}
			return false
		})
		return win
	}
	nw, xw := window(native, platform.ServerWayland), window(x11, platform.ServerXWayland)
	if nw.Server != platform.ServerWayland || !nw.Bounds.Empty() {
		t.Errorf("the native window %+v: want served by wayland, without bounds", nw)
	}
	if xw.Bounds.Empty() {
		t.Errorf("the X11 window %+v has no bounds", xw)
	}
	// Once the X11 program's window is managed, none of its frames passes for a native window.
	ws, err := d.Windows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if w.ProcessID == x11 && w.Server == platform.ServerWayland {
			t.Errorf("the X11 program is also listed as a native window: %+v", w)
		}
	}

	var button, label *platform.Node
	testdesk.WaitFor(t, 20*time.Second, "no Count button in the native window's tree", func() bool {
		tr, err := d.Tree(ctx, nw, platform.TreeLimits{MaxDepth: 64, MaxNodes: 1000})
		if err != nil {
			return false
		}
		button, label = findNamed(tr.Root, platformtest.Button), findNamed(tr.Root, platformtest.LabelIdle)
		var placed func(n *platform.Node) bool
		placed = func(n *platform.Node) bool {
			if n.Bounds != nil {
				return true
			}
			for _, k := range n.Children {
				if placed(k) {
					return true
				}
			}
			return false
		}
		if placed(tr.Root) {
			t.Fatalf("the native window's tree has bounds")
		}
		return button != nil && label != nil
	})
	if _, err := d.Act(ctx, button.Ref, platform.ActInvoke, ""); err != nil {
		t.Fatal(err)
	}
	testdesk.WaitFor(t, 10*time.Second, "invoking the native window's button did not press it", func() bool {
		el, err := d.Element(ctx, label.Ref)
		return err == nil && el.Node.Name == platformtest.LabelClicked(1) && el.Node.Bounds == nil
	})
	if err := d.WindowOp(ctx, nw.Handle, platform.WindowOp{Kind: platform.OpActivate}); !errors.Is(err, platform.ErrCompositorUnsupported) {
		t.Errorf("raise a native window: %v, want ErrCompositorUnsupported", err)
	}
	if _, err := d.CaptureWindow(ctx, nw.Handle); !errors.Is(err, platform.ErrCompositorUnsupported) {
		t.Errorf("capture a native window: %v, want ErrCompositorUnsupported", err)
	}

	// The X11 program keeps its places.
	testdesk.WaitFor(t, 20*time.Second, "no placed Count button in the X11 window's tree", func() bool {
		tr, err := d.Tree(ctx, xw, platform.TreeLimits{MaxDepth: 64, MaxNodes: 1000})
		if err != nil {
			return false
		}
		b := findNamed(tr.Root, platformtest.Button)
		return b != nil && b.Bounds != nil && xw.Bounds.Contains(*b.Bounds)
	})
}
