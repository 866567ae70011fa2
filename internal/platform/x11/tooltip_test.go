//go:build linux

package x11_test

import (
	"bufio"
	"context"
	"encoding/json"
	"image"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/x11"
	"github.com/mcec/mcec/internal/testdesk"
)

// TestClickUnderTooltip is issue 27's first lost click: on a desktop started by a script (Xvfb
// and openbox, no input ever sent), the pointer rests where the server put it, on a button with
// a tooltip; the tooltip shows below the pointer, over the button the first click is for. The
// click must reach that button, not the tooltip. It runs on a desktop of its own, so the
// connection's first gesture is the first XTEST input its X server ever gets.
func TestClickUnderTooltip(t *testing.T) {
	const python = "/usr/bin/python3" // Debian's, with python3-gi (see startGTKApp)
	for _, prog := range []string{"Xvfb", "openbox", python} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("no %s", prog)
		}
	}
	if err := exec.Command(python, "-c", "import gi; gi.require_version('Gtk', '3.0')").Run(); err != nil {
		t.Skipf("%s cannot import GTK 3 through gi: %v", python, err)
	}
	display := startXvfb(t)
	xc, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(xc.Close)
	root := xproto.Setup(xc).DefaultScreen(xc).Root
	atom := func(name string) xproto.Atom {
		r, err := xproto.InternAtom(xc, false, uint16(len(name)), name).Reply()
		if err != nil {
			t.Fatal(err)
		}
		return r.Atom
	}
	wmCheck, winType, tooltipType := atom("_NET_SUPPORTING_WM_CHECK"), atom("_NET_WM_WINDOW_TYPE"), atom("_NET_WM_WINDOW_TYPE_TOOLTIP")

	env := append(os.Environ(), "DISPLAY="+display, "NO_AT_BRIDGE=1", "GDK_BACKEND=x11",
		"GSETTINGS_BACKEND=memory", "XDG_CONFIG_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir())
	// openbox as a script starts it: its system configuration (Debian's click-to-focus binds
	// presses into windows with a synchronous grab).
	startProc(t, env, false, "openbox", "--sm-disable")
	testdesk.WaitFor(t, waitLimit(), "openbox to manage the screen", func() bool {
		r, err := xproto.GetProperty(xc, false, root, wmCheck, xproto.AtomWindow, 0, 1).Reply()
		return err == nil && r.ValueLen > 0
	})

	app := startProc(t, env, true, python, "testdata/tooltipapp.py")
	lines := make(chan map[string]json.RawMessage, 64)
	go func() { // ends when the cleanup kills the app and its stdout closes
		defer close(lines)
		sc := bufio.NewScanner(app.stdout)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
	}()
	next := func(key string) map[string]json.RawMessage {
		t.Helper()
		limit := time.NewTimer(waitLimit())
		defer limit.Stop()
		for {
			select {
			case m, ok := <-lines:
				if !ok {
					t.Fatalf("the app exited while waiting for %q", key)
				}
				if _, ok := m[key]; ok {
					return m
				}
			case <-limit.C:
				t.Fatalf("after %v: the app reported no %q", waitLimit(), key)
			}
		}
	}
	rectOf := func(m map[string]json.RawMessage, key string) image.Rectangle {
		var r [4]int
		if err := json.Unmarshal(m[key], &r); err != nil {
			t.Fatal(err)
		}
		return image.Rect(r[0], r[1], r[0]+r[2], r[1]+r[3])
	}
	ready := next("ready")
	hover, target := rectOf(ready, "hover"), rectOf(ready, "target")

	// The pointer rests on the lower part of "Hover", as the fresh server's pointer rested on
	// galculator's "MS": a core warp, not XTEST input.
	rest := image.Pt((hover.Min.X+hover.Max.X)/2, hover.Max.Y-8)
	if err := xproto.WarpPointerChecked(xc, 0, root, 0, 0, 0, 0, int16(rest.X), int16(rest.Y)).Check(); err != nil {
		t.Fatal(err)
	}
	var tip image.Rectangle
	testdesk.WaitFor(t, waitLimit(), "the tooltip of Hover to show", func() bool {
		tree, err := xproto.QueryTree(xc, root).Reply()
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tree.Children {
			a, err1 := xproto.GetWindowAttributes(xc, w).Reply()
			p, err2 := xproto.GetProperty(xc, false, w, winType, xproto.AtomAtom, 0, 8).Reply()
			g, err3 := xproto.GetGeometry(xc, xproto.Drawable(w)).Reply()
			if err1 != nil || err2 != nil || err3 != nil || !a.OverrideRedirect || a.MapState != xproto.MapStateViewable {
				continue
			}
			for i := 0; i+4 <= len(p.Value); i += 4 {
				if xproto.Atom(xgb.Get32(p.Value[i:])) == tooltipType {
					tip = image.Rect(int(g.X), int(g.Y), int(g.X)+int(g.Width), int(g.Y)+int(g.Height))
					return true
				}
			}
		}
		return false
	})
	under := tip.Intersect(target)
	if under.Dx() < 4 || under.Dy() < 4 {
		t.Fatalf("the tooltip %v does not cover the target %v (pointer at %v): nothing to test", tip, target, rest)
	}
	at := platform.Point{X: (under.Min.X + under.Max.X) / 2, Y: (under.Min.Y + under.Max.Y) / 2}

	ctx, cancel := context.WithTimeout(context.Background(), waitLimit())
	defer cancel()
	c, err := x11.Dial(ctx, display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Input().Click(ctx, at, platform.ButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := json.Unmarshal(next("clicked")["clicked"], &got); err != nil {
		t.Fatal(err)
	}
	if got != "target" {
		t.Fatalf("the click at %v (under the tooltip %v) reached %q, want target", at, tip, got)
	}
}

// startXvfb starts an X server of its own (not the package's desktop) and returns its display;
// a cleanup stops it.
func startXvfb(t *testing.T) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	t.Cleanup(func() { stopProc(t, cmd) })
	// Xvfb writes the display number and a newline once it listens.
	line, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if err != nil {
		t.Fatalf("Xvfb -displayfd: %q, %v", line, err)
	}
	return ":" + strings.TrimSpace(line)
}

type testProc struct {
	cmd    *exec.Cmd
	stdout *os.File
}

// startProc starts argv with env, with its stdout on a pipe when piped; a cleanup stops it.
func startProc(t *testing.T, env []string, piped bool, argv ...string) *testProc {
	t.Helper()
	p := &testProc{cmd: exec.Command(argv[0], argv[1:]...)}
	p.cmd.Env = env
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var w *os.File
	if piped {
		var err error
		if p.stdout, w, err = os.Pipe(); err != nil {
			t.Fatal(err)
		}
		p.cmd.Stdout = w
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if w != nil {
		w.Close()
	}
	t.Cleanup(func() {
		stopProc(t, p.cmd)
		if p.stdout != nil {
			p.stdout.Close()
		}
	})
	return p
}

// stopProc ends cmd's process by its pid: SIGTERM, SIGKILL if it is still there after a while.
func stopProc(t *testing.T, cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
		return
	case <-time.After(5 * time.Second):
	}
	_ = cmd.Process.Kill()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Errorf("%s (pid %d) did not exit", cmd.Path, cmd.Process.Pid)
	}
}
