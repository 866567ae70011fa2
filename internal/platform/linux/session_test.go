package linux

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform/x11"
	"github.com/mcec/mcec/internal/testdesk"
)

func TestSession(t *testing.T) {
	runtime := t.TempDir()
	env := func(kv ...string) func(string) string {
		m := map[string]string{"XDG_RUNTIME_DIR": runtime}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, tt := range []struct {
		name       string
		getenv     func(string) string
		compositor string // the program on the Wayland socket ("": unknown)
		want       Config
		ok         bool
		err        string
	}{
		{"nothing: a private desktop", env(), "", Config{}, false, ""},
		{"X11", env("DISPLAY", ":3"), "", Config{Display: ":3"}, true, ""},
		{"sway", env("WAYLAND_DISPLAY", "wayland-1", "SWAYSOCK", "/run/s.sock", "DISPLAY", ":0"), "sway",
			Config{Wayland: filepath.Join(runtime, "wayland-1"), Sway: "/run/s.sock"}, true, ""},
		{"sway, absolute socket", env("WAYLAND_DISPLAY", "/x/wl", "SWAYSOCK", "/run/s.sock"), "", Config{Wayland: "/x/wl", Sway: "/run/s.sock"}, true, ""},
		{"KDE Plasma: KWin", env("WAYLAND_DISPLAY", "wayland-0", "DISPLAY", ":0", "XDG_CURRENT_DESKTOP", "KDE"), "",
			Config{Wayland: filepath.Join(runtime, "wayland-0"), KWin: true}, true, ""},
		{"GNOME: its Shell, and XWayland kept for when mcec's extension is missing",
			env("WAYLAND_DISPLAY", "wayland-0", "DISPLAY", ":0", "XDG_CURRENT_DESKTOP", "ubuntu:GNOME"), "",
			Config{Display: ":0", Wayland: filepath.Join(runtime, "wayland-0"), GNOME: true}, true, ""},
		{"another wlroots compositor: its protocols, and XWayland kept for when it lacks them",
			env("WAYLAND_DISPLAY", "wayland-0", "DISPLAY", ":0", "XDG_CURRENT_DESKTOP", "Hyprland"), "",
			Config{Display: ":0", Wayland: filepath.Join(runtime, "wayland-0"), Toplevels: true}, true, ""},
		{"another compositor without XWayland", env("WAYLAND_DISPLAY", "wayland-0", "XDG_CURRENT_DESKTOP", "Hyprland"), "",
			Config{Wayland: filepath.Join(runtime, "wayland-0"), Toplevels: true}, true, ""},
		{"Phosh names GNOME, but phoc serves: its protocols", env("WAYLAND_DISPLAY", "wayland-0", "DISPLAY", ":0", "XDG_CURRENT_DESKTOP", "Phosh:GNOME"),
			"phoc", Config{Display: ":0", Wayland: filepath.Join(runtime, "wayland-0"), Toplevels: true}, true, ""},
		{"GNOME named, another compositor serving", env("WAYLAND_DISPLAY", "wayland-0", "XDG_CURRENT_DESKTOP", "Budgie:GNOME"),
			"labwc", Config{Wayland: filepath.Join(runtime, "wayland-0"), Toplevels: true}, true, ""},
		{"KWin by its program, with no desktop named", env("WAYLAND_DISPLAY", "wayland-0", "DISPLAY", ":0"),
			"kwin_wayland_wrapper", Config{Wayland: filepath.Join(runtime, "wayland-0"), KWin: true}, true, ""},
		{"GNOME Shell by its program, with no desktop named", env("WAYLAND_DISPLAY", "wayland-0", "DISPLAY", ":0"),
			"gnome-shell", Config{Display: ":0", Wayland: filepath.Join(runtime, "wayland-0"), GNOME: true}, true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			compositor := func(socket string) string {
				if socket != filepath.Join(runtime, "wayland-0") && socket != filepath.Join(runtime, "wayland-1") && socket != "/x/wl" {
					t.Errorf("compositor asked about %s, not the session's socket", socket)
				}
				return tt.compositor
			}
			got, ok, _, err := Session(tt.getenv, compositor)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want one naming %s", err, tt.err)
				}
				return
			}
			if err != nil || ok != tt.ok || got != tt.want {
				t.Errorf("Session = %+v, %v, %v; want %+v, %v", got, ok, err, tt.want, tt.ok)
			}
		})
	}

	// Without SWAYSOCK, sway's socket in the runtime directory is found.
	l, err := net.Listen("unix", filepath.Join(runtime, "sway-ipc.1000.42.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got, ok, _, err := Session(env("WAYLAND_DISPLAY", "wayland-1"), nil)
	if err != nil || !ok || got.Sway != l.Addr().String() {
		t.Errorf("Session without SWAYSOCK = %+v, %v, %v; want sway at %s", got, ok, err, l.Addr())
	}
}

// TestGNOMEFallsBackToXWayland: a GNOME session whose Shell does not answer for mcec's
// extension is attached through its XWayland display instead of failing.
func TestGNOMEFallsBackToXWayland(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := Open(ctx, Config{Wayland: filepath.Join(t.TempDir(), "wayland-0"), GNOME: true,
		Display: testdesk.Desktop().Display(), DBusAddress: testdesk.Desktop().DBusAddress()})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer d.Close()
	if _, ok := d.x.(*x11.Conn); !ok {
		t.Errorf("attached through %T, want the X11 backend", d.x)
	}
}
