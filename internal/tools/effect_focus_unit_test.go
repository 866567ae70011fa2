package tools

import (
	"testing"

	"github.com/mcec/mcec/internal/platform"
)

// A button that writes into the focused field (GNOME Calculator's digits): the lean walk reads no
// values, so the focused field's value change is reported from the focus reads.
func TestFocusValueChange(t *testing.T) {
	el := func(ref, role, value string) *platform.Element {
		return &platform.Element{Node: platform.Node{Ref: ref, Role: role, Value: &value}}
	}
	var eff Effect
	focusValueChange(&eff, el("1.4:7", "text", "1"), el("1.4:7", "text", "12"), "1.4:9")
	if len(eff.Changed) != 1 || *eff.Changed[0].Value != "12" || *eff.Changed[0].Was.Value != "1" || !eff.observed() {
		t.Fatalf("effect %+v: want the display's 1 → 12", eff)
	}
	for _, tc := range []struct {
		name          string
		before, after *platform.Element
		target        string
	}{
		{"same value", el("1.4:7", "text", "1"), el("1.4:7", "text", "1"), ""},
		{"focus moved", el("1.4:7", "text", "1"), el("1.4:8", "text", "2"), ""},
		{"the target itself", el("1.4:7", "text", "1"), el("1.4:7", "text", "2"), "1.4:7"},
		{"a password field", el("1.4:7", "password text", "•"), el("1.4:7", "password text", "••"), ""},
		{"no focus before", nil, el("1.4:7", "text", "2"), ""},
	} {
		var eff Effect
		focusValueChange(&eff, tc.before, tc.after, tc.target)
		if len(eff.Changed) != 0 {
			t.Errorf("%s: reported %+v", tc.name, eff.Changed)
		}
	}
}
