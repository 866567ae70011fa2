// Package kwintest runs the backend's tests on KDE's compositor: a private KWin desktop
// (kwin_wayland --virtual, headless.KWin), the Linux backend attached to it as it attaches to a
// user's Plasma session.
package kwintest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/linux"
	"github.com/mcec/mcec/internal/platform/platformtest"
	"github.com/mcec/mcec/internal/testdesk"
)

func TestMain(m *testing.M) { os.Exit(testdesk.MainKWin(m)) }

func open(t *testing.T) *linux.Desktop {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	desk := testdesk.Desktop()
	d, err := linux.Open(ctx, linux.Config{Wayland: desk.WaylandSocket(), KWin: true, KWinConfig: desk.ConfigHome(),
		DBusAddress: desk.DBusAddress(), AtspiCallTimeout: 2 * time.Second})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// TestSessionByProgram: the program serving the socket is kwin_wayland, and the session is found as
// KWin by it, whatever XDG_CURRENT_DESKTOP says (a desktop that names none of them).
func TestSessionByProgram(t *testing.T) {
	desk := testdesk.Desktop()
	if got := linux.CompositorProgram(desk.WaylandSocket()); got != "kwin_wayland" {
		t.Fatalf("CompositorProgram = %q, want kwin_wayland", got)
	}
	env := map[string]string{"WAYLAND_DISPLAY": desk.WaylandSocket(), "XDG_CURRENT_DESKTOP": "Unnamed"}
	cfg, ok, _, err := linux.Session(func(k string) string { return env[k] }, linux.CompositorProgram)
	if err != nil || !ok || !cfg.KWin || cfg.Toplevels {
		t.Errorf("Session = %+v, %v, %v; want KWin's", cfg, ok, err)
	}
}

// TestConformance runs the backend conformance suite on KWin, with the scene as a GTK 3
// application running natively on the compositor.
func TestConformance(t *testing.T) {
	platformtest.Run(t, func(t *testing.T) platformtest.Harness {
		return platformtest.Harness{Desktop: open(t), Start: testdesk.GTKScene}
	})
}

// TestTypeOffLayout: fake input types through the session's keymap, so a character no US key
// makes fails before anything is typed, with the code that names the compositor's limit.
func TestTypeOffLayout(t *testing.T) {
	d := open(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := d.Input().Type(ctx, "Grüße")
	if err == nil || !errors.Is(err, platform.ErrCompositorUnsupported) {
		t.Fatalf("Type of ü on KWin = %v, want ErrCompositorUnsupported", err)
	}
	if held, err := d.Input().Held(ctx); err != nil || len(held) != 0 {
		t.Errorf("held %v (%v) after a refused Type", held, err)
	}
}

// TestLayoutGuard: with KDE's keyboard settings naming a German layout (kxkbrc, what KWin reads
// when it offers no org.kde.keyboard), character keys are refused naming it; Return still goes.
func TestLayoutGuard(t *testing.T) {
	d := open(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rc := filepath.Join(testdesk.Desktop().ConfigHome(), "kxkbrc")
	if err := os.MkdirAll(filepath.Dir(rc), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rc, []byte("[Layout]\nLayoutList=de\nUse=true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(rc)
	err := d.Input().Type(ctx, "yz")
	if !errors.Is(err, platform.ErrCompositorUnsupported) || !strings.Contains(err.Error(), `"de"`) {
		t.Errorf("Type on a German KDE layout = %v, want compositor-unsupported naming it", err)
	}
	if err := d.Input().Chord(ctx, "Return"); err != nil {
		t.Errorf("Return on a German layout: %v", err)
	}
	os.Remove(rc)
	if err := d.Input().Type(ctx, "yz"); err != nil {
		t.Errorf("Type on a US layout: %v", err)
	}
}

// TestHeldKeyTypesOnce: a key held past the repeat delay types once on mcec's desktop.
func TestHeldKeyTypesOnce(t *testing.T) {
	platformtest.HeldKeyTypesOnce(t, platformtest.Harness{Desktop: open(t), Start: testdesk.GTKScene})
}
