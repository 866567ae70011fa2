package wayland_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform/linux"
	"github.com/mcec/mcec/internal/platform/platformtest"
	"github.com/mcec/mcec/internal/testdesk"
)

// The package's tests run on a private Wayland desktop (headless sway), the Linux backend
// attached to it as the daemon attaches.
func TestMain(m *testing.M) { os.Exit(testdesk.MainWayland(m)) }

func open(t *testing.T) *linux.Desktop {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	desk := testdesk.Desktop()
	d, err := linux.Open(ctx, linux.Config{Wayland: desk.WaylandSocket(), Sway: desk.SwaySocket(),
		DBusAddress: desk.DBusAddress(), AtspiCallTimeout: 2 * time.Second})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// TestConformance runs the backend conformance suite on Wayland, with the scene as a GTK 3
// application running natively on the compositor.
func TestConformance(t *testing.T) {
	platformtest.Run(t, func(t *testing.T) platformtest.Harness {
		return platformtest.Harness{Desktop: open(t), Start: testdesk.GTKScene,
			NoDialogParent: "sway 1.7 names the parent of Xwayland windows only, and sends no wlr-foreign-toplevel parent (newer wlroots compositors do)"}
	})
}
