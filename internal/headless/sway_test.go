package headless

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startWayland starts a private Wayland desktop, skipping where sway is not installed.
func startWayland(t *testing.T) *Desktop {
	t.Helper()
	if miss := MissingFor(Wayland); len(miss) > 0 {
		t.Skipf("the Wayland desktop needs %v", miss)
	}
	return startDesktop(t, Options{Kind: Wayland})
}

// TestWaylandDesktop starts headless sway with its buses, runs a GTK 3 program natively on it,
// and checks that Stop leaves no process, socket or directory behind.
func TestWaylandDesktop(t *testing.T) {
	d := startWayland(t)
	if d.Kind() != Wayland || d.Display() != "" || d.WaylandSocket() == "" || d.SwaySocket() == "" {
		t.Fatalf("kind %q display %q wayland %q sway %q", d.Kind(), d.Display(), d.WaylandSocket(), d.SwaySocket())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := d.Check(ctx); err != nil {
		t.Fatalf("Check: %v", err)
	}
	env := d.Env()
	for _, want := range []string{"GDK_BACKEND=wayland", "QT_QPA_PLATFORM=wayland", "XDG_SESSION_TYPE=wayland", "WAYLAND_DISPLAY=" + strings.TrimPrefix(d.WaylandSocket(), d.RuntimeDir()+"/")} {
		if !slices.Contains(env, want) {
			t.Errorf("Env lacks %s", want)
		}
	}
	if slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "DISPLAY=") }) {
		t.Error("Env sets DISPLAY on a Wayland desktop")
	}
	if slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "_JAVA_AWT_WM_NONREPARENTING=") }) {
		t.Error("Env tells Java of a non-reparenting window manager on a desktop without Xwayland")
	}

	// A GTK 3 program opens the desktop's display natively.
	if _, err := exec.LookPath("/usr/bin/python3"); err == nil {
		cmd := exec.CommandContext(ctx, "/usr/bin/python3", "-c", `import gi
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk
print(type(Gdk.Display.get_default()).__name__)`)
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil || !strings.Contains(out.String(), "Wayland") {
			t.Errorf("GTK 3's display on the desktop: %q (%v), want a GdkWaylandDisplay", out.String(), err)
		}
	}

	pids := d.PIDs()
	if len(pids) != 3 {
		t.Fatalf("PIDs = %v, want sway, dbus-daemon, launcher", pids)
	}
	pgids := map[int]bool{}
	for _, p := range pids {
		pgids[p] = true
	}
	members := groupMembers(pgids)
	if err := d.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range members {
		if alive(pid) {
			t.Errorf("pid %d still alive", pid)
		}
	}
	if _, err := os.Stat(d.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still there (%v)", d.dir, err)
	}
}

// TestWaylandCheckSeesCompositorGone: a desktop whose compositor died is not usable.
func TestWaylandCheckSeesCompositorGone(t *testing.T) {
	d := startWayland(t)
	d.compositor.signal(syscall.SIGKILL)
	<-d.compositor.done
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := d.Check(ctx); err == nil || !strings.Contains(err.Error(), "sway") {
		t.Fatalf("Check after sway died: %v, want it named", err)
	}
}

// TestWithNonReparentingWM: Java is told of wlroots' non-reparenting Xwayland window manager,
// unless the user said otherwise.
func TestWithNonReparentingWM(t *testing.T) {
	got := WithNonReparentingWM([]string{"A=1"})
	if !slices.Equal(got, []string{"A=1", "_JAVA_AWT_WM_NONREPARENTING=1"}) {
		t.Errorf("WithNonReparentingWM = %q", got)
	}
	user := []string{"_JAVA_AWT_WM_NONREPARENTING=0"}
	if got := WithNonReparentingWM(user); !slices.Equal(got, user) {
		t.Errorf("WithNonReparentingWM overrode the user's %q: %q", user, got)
	}
}

func TestParseKind(t *testing.T) {
	for in, want := range map[string]Kind{"": X11, "x11": X11, "X11": X11, "wayland": Wayland, "kwin": KWin, "gnome": GNOME, "phoc": Phoc} {
		if got, err := ParseKind(in); err != nil || got != want {
			t.Errorf("ParseKind(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseKind("mir"); err == nil {
		t.Error("ParseKind(mir) succeeded")
	}
}
