package tools

import (
	"testing"

	"github.com/mcec/mcec/internal/platform"
)

// TestUnownedWindow: where the compositor tells no window's process, launch takes a new window
// without an owner whose application id names the program at once, and otherwise only the one
// new window without an owner, once the grace has passed: never an old window, nor one of two.
func TestUnownedWindow(t *testing.T) {
	prog := launchedProgram{names: []string{"foot"}}
	old := platform.Window{Handle: 1, Title: "old"}
	owned := platform.Window{Handle: 2, Title: "owned", ProcessID: 42}
	other := platform.Window{Handle: 3, Title: "other", ClassName: "org.example.Other"}
	foot := platform.Window{Handle: 4, Title: "foot", ClassName: "foot"}
	another := platform.Window{Handle: 5, Title: "another"}
	before := []platform.Window{old}
	for _, tt := range []struct {
		name   string
		after  []platform.Window
		settle bool
		want   uint32
	}{
		{"the program's own app id, at once", []platform.Window{old, other, foot}, false, 4},
		{"another new window, before the grace", []platform.Window{old, other}, false, 0},
		{"the only new window without an owner, after the grace", []platform.Window{old, owned, other}, true, 3},
		{"two new windows without owners", []platform.Window{old, other, another}, true, 0},
		{"an old window is never the launch's", []platform.Window{old}, true, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := unownedWindow(before, tt.after, prog, tt.settle)
			switch {
			case tt.want == 0 && got != nil:
				t.Errorf("got window %d, want none", got.Handle)
			case tt.want != 0 && (got == nil || got.Handle != tt.want):
				t.Errorf("got %v, want window %d", got, tt.want)
			}
		})
	}
}
