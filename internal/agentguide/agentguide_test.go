package agentguide

import (
	"strings"
	"testing"

	"github.com/mcec/mcec/contract"
)

// The guidance must teach the recovery for every category.
func TestEveryCategoryHasRecovery(t *testing.T) {
	for _, c := range contract.Categories() {
		if !strings.Contains(Text, "| `"+c.String()+"` |") {
			t.Errorf("category %s has no row in the recovery table", c)
		}
	}
	for _, w := range []string{"observe", "target", "act", "verify"} {
		if !strings.Contains(strings.ToLower(Text), w) {
			t.Errorf("guidance does not mention %q", w)
		}
	}
}
