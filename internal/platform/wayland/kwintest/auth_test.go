package kwintest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/headless"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/linux"
	"github.com/mcec/mcec/internal/testdesk"
)

// TestAuthorization: KWin with its permission checks on, as in a user's Plasma session. Until a
// desktop file names mcec's executable, capture and input fail with compositor-unsupported and
// say what to install; once it does, a new attachment captures and sends input.
func TestAuthorization(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	desk, err := headless.Start(ctx, headless.Options{Kind: headless.KWin, KWinChecks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer desk.Stop()
	attach := func() *linux.Desktop {
		d, err := linux.Open(ctx, linux.Config{Wayland: desk.WaylandSocket(), KWin: true, DBusAddress: desk.DBusAddress()})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() { d.Close() })
		return d
	}
	d := attach()
	_, err = d.CaptureRect(ctx, platform.Rect{Width: 10, Height: 10})
	if !errors.Is(err, platform.ErrCompositorUnsupported) || !strings.Contains(err.Error(), "desktop file") {
		t.Errorf("capture without authorization = %v, want compositor-unsupported naming the desktop file", err)
	}
	err = d.Input().MoveTo(ctx, platform.Point{X: 5, Y: 5})
	if !errors.Is(err, platform.ErrCompositorUnsupported) || !strings.Contains(err.Error(), "org_kde_kwin_fake_input") {
		t.Errorf("input without authorization = %v, want compositor-unsupported naming fake input", err)
	}

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	apps := filepath.Join(desk.DataHome(), "applications")
	if err := os.MkdirAll(apps, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(apps, "mcec.desktop"), []byte(linux.KWinDesktopFile(self)), 0o600); err != nil {
		t.Fatal(err)
	}
	// KWin's service cache looks at the directory again at most every second or two.
	testdesk.WaitFor(t, 15*time.Second, "KWin never let mcec capture with the desktop file", func() bool {
		_, err = d.CaptureRect(ctx, platform.Rect{Width: 10, Height: 10})
		return err == nil
	})
	d = attach() // fake input is offered to connections made after the desktop file
	if err := d.Input().MoveTo(ctx, platform.Point{X: 5, Y: 5}); err != nil {
		t.Errorf("input with the desktop file: %v", err)
	}
}
