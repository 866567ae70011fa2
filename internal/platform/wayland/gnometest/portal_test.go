package gnometest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/headless"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/linux"
	"github.com/mcec/mcec/internal/platform/platformtest"
	"github.com/mcec/mcec/internal/testdesk"
)

// TestPortalKeysWithoutExtension: on GNOME without mcec's extension (as a user who has not run `mcec setup gnome`),
// keys for the active native Wayland window go through the desktop's RemoteDesktop portal once
// the user allows remote interaction in the portal's dialog. Here mcec answers the dialog itself,
// by semantic actions on the dialog's own tree, as an operator would by hand. A character off
// the session's layout is refused before anything is typed; a user who cancels the dialog gets
// compositor-unsupported, and is not asked again.
func TestPortalKeysWithoutExtension(t *testing.T) {
	if _, err := os.Stat("/usr/libexec/xdg-desktop-portal-gnome"); err != nil {
		t.Fatal("xdg-desktop-portal-gnome is not installed (make test-deps)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	desk, err := headless.Start(ctx, headless.Options{Kind: headless.GNOME, XWayland: true, NoShellExtension: true})
	if err != nil {
		t.Fatal(err)
	}
	defer desk.Stop()
	open := func() *linux.Desktop {
		d, err := linux.Open(ctx, linux.Config{Wayland: desk.WaylandSocket(), GNOME: true, Display: desk.XWaylandDisplay(),
			DBusAddress: desk.DBusAddress(), AtspiCallTimeout: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	d := open() // closed at the end, by the test
	defer func() {
		if !t.Failed() {
			return
		}
		_ = d.Close()
	}()

	_, self, _, _ := runtime.Caller(0)
	cmd := exec.Command("/usr/bin/python3", filepath.Join(filepath.Dir(self), "..", "..", "..", "testdesk", "testdata", "conformance.py"))
	cmd.Env = desk.Env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })

	// GNOME starts in the Overview and gives a window opened under it no focus: the user leaves
	// the Overview and switches to the window with Escape and Alt+Tab, here through the portal
	// (keys for the Shell go there too). The first keys wait for the user's answer to the
	// portal's dialog.
	typed := make(chan error, 1)
	go func() { typed <- untilAnswered(ctx, func() error { return d.Input().Chord(ctx, "Escape") }) }()
	answer(ctx, t, d, "Share")
	select {
	case err := <-typed:
		if err != nil {
			t.Fatalf("keys through the portal: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the keys did not go once the dialog was answered")
	}
	var win platform.Window
	switched := time.Time{}
	testdesk.WaitFor(t, 30*time.Second, "no active native window of the scene", func() bool {
		if time.Since(switched) > 3*time.Second { // once more if the Shell was still leaving the Overview
			if err := d.Input().Chord(ctx, "Alt_L", "Tab"); err != nil {
				t.Fatal(err)
			}
			switched = time.Now()
		}
		ws, _ := d.Windows(ctx)
		for _, w := range ws {
			if w.ProcessID == cmd.Process.Pid && w.Title == platformtest.Title && w.Server == platform.ServerWayland && w.Focused {
				win = w
				return true
			}
		}
		return false
	})
	var entry *platform.Node
	testdesk.WaitFor(t, 20*time.Second, "no text field in the scene's tree", func() bool {
		tr, err := d.Tree(ctx, win, platform.TreeLimits{MaxDepth: 64, MaxNodes: 1000})
		entry = find(tr.Root, func(n, _ *platform.Node) bool { return err == nil && n.Role == "text" })
		return entry != nil
	})
	if _, err := d.Act(ctx, entry.Ref, platform.ActSetFocus, ""); err != nil {
		t.Fatal(err)
	}

	in := d.Input()
	if err := in.Chord(ctx, "Control_L", "a"); err != nil {
		t.Fatal(err)
	}
	if err := in.Type(ctx, "Hi, there: 42!"); err != nil {
		t.Fatal(err)
	}
	testdesk.WaitFor(t, 10*time.Second, "the text field does not read what was typed", func() bool {
		el, err := d.Element(ctx, entry.Ref)
		return err == nil && el.Node.Value != nil && *el.Node.Value == "Hi, there: 42!"
	})

	// Off the layout (a US one here): refused, nothing typed, nothing held.
	if err := d.Input().Type(ctx, "5 €"); !errors.Is(err, platform.ErrCompositorUnsupported) {
		t.Errorf("Type of € on a US layout = %v, want ErrCompositorUnsupported", err)
	}
	if held, err := d.Input().Held(ctx); err != nil || len(held) != 0 {
		t.Errorf("held %v (%v) after a refused Type", held, err)
	}
	if el, err := d.Element(ctx, entry.Ref); err != nil || el.Node.Value == nil || *el.Node.Value != "Hi, there: 42!" {
		t.Errorf("a refused Type changed the field: %+v, %v", el.Node.Value, err)
	}

	// A user who cancels is not asked again.
	d2 := open()
	defer d2.Close()
	refused := make(chan error, 1)
	go func() { refused <- untilAnswered(ctx, func() error { return d2.Input().Type(ctx, "x") }) }()
	answer(ctx, t, d, "Cancel")
	select {
	case err := <-refused:
		if !errors.Is(err, platform.ErrCompositorUnsupported) || !strings.Contains(err.Error(), "did not allow") {
			t.Fatalf("keys after the user cancelled: %v, want ErrCompositorUnsupported saying so", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the keys did not fail once the dialog was cancelled")
	}
	start := time.Now()
	if err := d2.Input().Type(ctx, "x"); !errors.Is(err, platform.ErrCompositorUnsupported) || time.Since(start) > 5*time.Second {
		t.Errorf("keys again after the user cancelled: %v after %v, want ErrCompositorUnsupported at once", err, time.Since(start))
	}

	// Closing ends the portal's session without waiting on the portal.
	closed := make(chan error, 1)
	go func() { closed <- d.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close of a desktop whose keys went through the portal hangs")
	}
}

// untilAnswered calls keys again while it fails for want of the user's answer: a call waits 20 s
// for it, and on a loaded machine the dialog alone may take that long to show; the next call
// waits for the same dialog.
func untilAnswered(ctx context.Context, keys func() error) error {
	for {
		err := keys()
		if err == nil || !strings.Contains(err.Error(), "waiting for the user") || ctx.Err() != nil {
			return err
		}
	}
}

// answer presses button ("Share", allowing input first, or "Cancel") in the RemoteDesktop
// portal's dialog, a native window of xdg-desktop-portal-gnome.
func answer(ctx context.Context, t *testing.T, d *linux.Desktop, button string) {
	t.Helper()
	var allow, press *platform.Node
	testdesk.WaitFor(t, 30*time.Second, "no portal dialog with "+button, func() bool {
		ws, _ := d.Windows(ctx)
		for _, w := range ws {
			if w.Title != "Remote desktop" || w.Server != platform.ServerWayland {
				continue
			}
			tr, err := d.Tree(ctx, w, platform.TreeLimits{MaxDepth: 64, MaxNodes: 2000})
			if err != nil {
				return false
			}
			allow = find(tr.Root, func(n, _ *platform.Node) bool { return n.Role == "check box" && n.Name == "Allow remote interaction" })
			press = find(tr.Root, func(n, _ *platform.Node) bool {
				return n.Role == "push button" && strings.HasSuffix(n.Name, button)
			})
			return allow != nil && press != nil
		}
		return false
	})
	if button == "Share" && !allow.States["checked"] {
		if _, err := d.Act(ctx, allow.Ref, platform.ActToggle, ""); err != nil {
			t.Fatal(err)
		}
	}
	// Share is sensitive once input is allowed (GTK 4.8 reports no "enabled").
	testdesk.WaitFor(t, 10*time.Second, button+" stays disabled", func() bool {
		el, err := d.Element(ctx, press.Ref)
		return err == nil && el.Node.States["sensitive"]
	})
	if _, err := d.Act(ctx, press.Ref, platform.ActInvoke, ""); err != nil {
		t.Fatal(err)
	}
}
