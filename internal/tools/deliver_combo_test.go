package tools_test

import (
	"strings"
	"testing"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
)

// Choosing combo box entries by name (issue 15 §5): a closed Qt combo box offers no call that
// chooses (its entries only toggle a highlight), a GTK 3 one chooses through its Selection. The
// app writes its choice into its window title, read back through X; it refuses the entry
// Locked, which must fail value-not-applied, never ok.
func TestDeliverComboEntries(t *testing.T) {
	for _, tc := range []struct {
		toolkit string
		// a11y is what via accessibility gives: "" chooses, else the error code.
		a11y contract.Code
	}{{"qt", contract.CodePatternUnsupported}, {"gtk3", ""}} {
		t.Run(tc.toolkit, func(t *testing.T) {
			h := newHarness(t)
			res, _, _ := h.launch(map[string]any{"path": "/usr/bin/python3", "arguments": []string{"testdata/combos.py", tc.toolkit}, "timeout": 20000})
			pid := res.ProcessID
			defer assertNothingHeld(t, h)
			h.waitTitle("mcec combo plan=Basic")
			entry := func(name string) map[string]any { return map[string]any{"name": name} }
			if tc.toolkit == "qt" {
				// Qt lists its entries as list items; the combo box is named after its choice.
				entry = func(name string) map[string]any { return map[string]any{"name": name, "role": "list item"} }
			}

			// A closed combo box: opened with a click, the entry chosen with input, the combo box
			// read back.
			r := h.act(pid, entry("Team"), "select", "input", nil)
			if r.Verified == nil || !*r.Verified {
				t.Errorf("select of Team: verified %v", r.Verified)
			}
			h.waitTitle("mcec combo plan=Team")

			// Again, from the other direction.
			h.act(pid, entry("Pro"), "select", "input", nil)
			h.waitTitle("mcec combo plan=Pro")

			// The accessibility API alone.
			args := map[string]any{"pid": pid, "element": entry("Basic"), "action": "select", "via": "accessibility"}
			if tc.a11y == "" {
				h.act(pid, entry("Basic"), "select", "accessibility", map[string]any{"via": "accessibility"})
				h.waitTitle("mcec combo plan=Basic")
			} else {
				contracttest.Fail(t, h.call("invoke", args), contract.InvalidArgument, tc.a11y)
				h.waitTitle("mcec combo plan=Pro")
			}

			// An entry the application refuses: the combo box does not show it, and the call says so
			// with what it shows.
			env := h.call("invoke", map[string]any{"pid": pid, "element": entry("Locked"), "action": "select"})
			e := contracttest.Fail(t, env, contract.Internal, contract.CodeValueNotApplied)
			part, _ := e.PartialResult.(map[string]any)
			if v, _ := part["value"].(string); v == "Locked" || v == "" {
				t.Errorf("partialResult %+v: want the entry the combo box shows instead", e.PartialResult)
			}
			if !strings.Contains(e.Detail, `"Locked"`) {
				t.Errorf("detail %q does not name the entry", e.Detail)
			}
		})
	}
}
