package linux_test

import (
	"testing"

	"github.com/mcec/mcec/internal/platform/platformtest"
	"github.com/mcec/mcec/internal/testdesk"
)

// TestConformance runs the backend conformance suite on the package's private desktop, with
// the scene as a GTK 3 application.
func TestConformance(t *testing.T) {
	platformtest.Run(t, func(t *testing.T) platformtest.Harness {
		return platformtest.Harness{Desktop: open(t), Start: testdesk.GTKScene}
	})
}
