package headless

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPhocDesktop starts Phosh's compositor with its buses: the environment of a Phosh session
// without DISPLAY, and a Stop that leaves no process, directory, or the X socket and lock file
// phoc's lazily started Xwayland bound (phoc does not remove them itself).
func TestPhocDesktop(t *testing.T) {
	if miss := MissingFor(Phoc); len(miss) > 0 {
		t.Fatalf("the phoc desktop needs %v (make test-deps)", miss)
	}
	d := startDesktop(t, Options{Kind: Phoc})
	if d.Kind() != Phoc || d.Display() != "" || d.WaylandSocket() == "" || d.SwaySocket() != "" {
		t.Fatalf("kind %q display %q wayland %q sway %q", d.Kind(), d.Display(), d.WaylandSocket(), d.SwaySocket())
	}
	env := d.Env()
	for _, want := range []string{"XDG_CURRENT_DESKTOP=Phosh:GNOME", "GDK_BACKEND=wayland"} {
		if !slices.Contains(env, want) {
			t.Errorf("Env lacks %s", want)
		}
	}
	if slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "DISPLAY=") }) {
		t.Error("Env sets DISPLAY: programs would reach phoc's Xwayland")
	}
	var lock string
	waitUntil(t, 5*time.Second, "phoc's Xwayland lock file", func() bool {
		if n, ok := xLockOf(d.compositor.pid); ok {
			lock = lockPath(n)
		}
		return lock != ""
	})
	n := strings.TrimSuffix(strings.TrimPrefix(lock, "/tmp/.X"), "-lock")
	pids := d.PIDs()
	if err := d.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("pid %d still alive", pid)
		}
	}
	for _, f := range []string{lock, fmt.Sprintf("/tmp/.X11-unix/X%s", n), d.dir} {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind (%v)", f, err)
		}
	}
}

func TestLockFilePID(t *testing.T) {
	for in, want := range map[string]int{"      1234\n": 1234, "     25057\x00": 25057} {
		if got, ok := lockFilePID([]byte(in)); !ok || got != want {
			t.Errorf("lockFilePID(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	if _, ok := lockFilePID([]byte("x")); ok {
		t.Error("lockFilePID(x) succeeded")
	}
}
