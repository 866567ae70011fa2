// Package phoctest runs the backend's tests on phoc, Phosh's wlroots compositor: a private phoc
// desktop (headless.Phoc), the Linux backend attached to it as it attaches to a user's session
// of a wlroots compositor without sway's IPC (Hyprland, labwc, river, Phosh …), through the
// protocols alone.
package phoctest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform/linux"
	"github.com/mcec/mcec/internal/platform/platformtest"
	"github.com/mcec/mcec/internal/platform/wayland/wlrtest"
	"github.com/mcec/mcec/internal/testdesk"
)

func TestMain(m *testing.M) { os.Exit(testdesk.MainPhoc(m)) }

// open attaches to the desktop as mcec attaches to the user's session there: Session decides
// from the environment a Phosh session has and from the program serving the socket.
func open(t *testing.T) *linux.Desktop {
	t.Helper()
	desk := testdesk.Desktop()
	cfg, ok, _, err := linux.Session(envOf(desk.Env()), linux.CompositorProgram)
	if err != nil || !ok || !cfg.Toplevels || cfg.GNOME || cfg.Wayland != desk.WaylandSocket() {
		t.Fatalf("Session in a Phosh session = %+v, %v, %v; want phoc's protocols at %s", cfg, ok, err, desk.WaylandSocket())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg.DBusAddress, cfg.AtspiCallTimeout = desk.DBusAddress(), 2*time.Second
	d, err := linux.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// envOf reads a desktop's environment as getenv does.
func envOf(env []string) func(string) string {
	return func(k string) string {
		v := ""
		for _, kv := range env {
			if len(kv) > len(k) && kv[:len(k)] == k && kv[len(k)] == '=' {
				v = kv[len(k)+1:]
			}
		}
		return v
	}
}

// TestCompositorProgram: the program behind the socket is phoc, though the session names GNOME.
func TestCompositorProgram(t *testing.T) {
	desk := testdesk.Desktop()
	if got := linux.CompositorProgram(desk.WaylandSocket()); got != "phoc" {
		t.Errorf("CompositorProgram = %q, want phoc", got)
	}
	if got := envOf(desk.Env())("XDG_CURRENT_DESKTOP"); got != "Phosh:GNOME" {
		t.Errorf("XDG_CURRENT_DESKTOP = %q, want Phosh's", got)
	}
}

// TestConformance runs the backend conformance suite on phoc, with the scene as a GTK 3
// application running natively on the compositor. phoc, unlike sway 1.7, names a dialog's
// parent through wlr-foreign-toplevel, so that is checked too.
func TestConformance(t *testing.T) {
	platformtest.Run(t, func(t *testing.T) platformtest.Harness {
		return platformtest.Harness{Desktop: open(t), Start: testdesk.GTKScene,
			NoPlaces: "wlr-foreign-toplevel tells no window's place"}
	})
}

// TestFullscreenUnplaced: phoc draws a GTK 3 window that entered fullscreen off its output's
// corner (by the shadow it had), so a fullscreen window there has no place either.
func TestFullscreenUnplaced(t *testing.T) {
	wlrtest.FullscreenUnplaced(t, open(t))
}
