package doctor

import (
	"strings"
	"testing"

	"github.com/mcec/mcec/internal/wayland/gnome"
)

// TestExtensionDiagnosis: each state GNOME Shell reports of mcec's extension gets its own
// reason and fix (the running Shell shows the unknown and out-of-date ones in TestGNOME).
func TestExtensionDiagnosis(t *testing.T) {
	for _, c := range []struct {
		info        gnome.ExtensionInfo
		detail, fix string
	}{
		{gnome.ExtensionInfo{State: gnome.StateUnknown}, "does not know it", "mcec setup gnome"},
		{gnome.ExtensionInfo{State: gnome.StateUninstalled}, "does not know it", "mcec setup gnome"},
		{gnome.ExtensionInfo{State: gnome.StateDisabled}, "not enabled", "gnome-extensions enable mcec@mcec.github.io"},
		{gnome.ExtensionInfo{State: gnome.StateInitialized}, "not enabled", "gnome-extensions enable"},
		{gnome.ExtensionInfo{State: gnome.StateOutOfDate}, "does not declare this GNOME Shell's version", "mcec setup gnome` again"},
		{gnome.ExtensionInfo{State: gnome.StateError, Error: "TypeError: x is undefined"}, "could not run mcec's extension: TypeError: x is undefined", "report it"},
		{gnome.ExtensionInfo{State: gnome.StateEnabled}, "org.mcec.Shell is not on the session bus", "log out and back in"},
	} {
		detail, fix := extensionDiagnosis(c.info)
		if !strings.Contains(detail, c.detail) || !strings.Contains(fix, c.fix) {
			t.Errorf("state %d: %q / %q; want %q / %q", c.info.State, detail, fix, c.detail, c.fix)
		}
	}
}
