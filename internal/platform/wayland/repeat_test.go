package wayland_test

import (
	"testing"

	"github.com/mcec/mcec/internal/platform/platformtest"
	"github.com/mcec/mcec/internal/testdesk"
)

// TestHeldKeyTypesOnce: Wayland clients repeat a held key themselves; mcec's sway tells them not
// to (repeat_rate 0).
func TestHeldKeyTypesOnce(t *testing.T) {
	platformtest.HeldKeyTypesOnce(t, platformtest.Harness{Desktop: open(t), Start: testdesk.GTKScene})
}
