package agentguide

import (
	"strings"
	"testing"
)

// The guidance must teach the loop, cost-aware observation, targeting by ref or handle when
// names overlap, and the codes an agent meets most, by name.
func TestTeachesTheEssentials(t *testing.T) {
	for _, tc := range []struct{ what, text string }{
		{"the loop", "observe → target → act → verify"},
		{"tree before pixels", "Tree before pixels"},
		{"small trees", "`maxDepth`"},
		{"small trees", "`maxNodes`"},
		{"downscaled pixels", "`maxWidth`"},
		{"pixels without base64", "`pathOnly: true`"},
		{"the smallest region", "smallest region"},
		{"targeting by handle", "use the `handle`"},
		{"targeting by ref", "A `ref` from `query`/`find`"},
		{"waiting on events", "`wait-for`"},
		{"the last observation after a failure", "`error.lastObservation`"},
	} {
		if !strings.Contains(Text, tc.text) {
			t.Errorf("guidance does not teach %s (%q)", tc.what, tc.text)
		}
	}
	for _, code := range []string{"window-not-found", "element-not-found", "no-accessible-tree", "selector-matched-N",
		"element-stale", "window-closed", "wait-condition-timeout", "app-not-responding", "pattern-unsupported",
		"bad-arguments", "frame-all-black", "focus-not-confirmed", "foreground-not-set", "command-disabled"} {
		if !strings.Contains(Text, "`"+code+"`") {
			t.Errorf("guidance does not explain the common code %s", code)
		}
	}
}
