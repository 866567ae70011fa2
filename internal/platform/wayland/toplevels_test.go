package wayland_test

import (
	"testing"

	"github.com/mcec/mcec/internal/platform/wayland/wlrtest"
)

// TestToplevelsFullscreenClick: through wlr-foreign-toplevel alone, on sway, a fullscreen
// window's elements get bounds a click hits (wlrtest.FullscreenClick).
func TestToplevelsFullscreenClick(t *testing.T) {
	wlrtest.FullscreenClick(t, openToplevels(t))
}
