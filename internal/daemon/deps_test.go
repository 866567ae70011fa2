package daemon

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportGraph keeps the layering of docs/design.md: imports point one way, and only the
// composition root (this package) and the CLI assemble everything.
func TestImportGraph(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{join .Imports " "}}`, "github.com/mcec/mcec/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/mcec/mcec/"
	// forbidden[pkg] lists the prefixes pkg must not import.
	forbidden := map[string][]string{
		"contract":           {"internal/"},
		"internal/platform":  {"internal/tools", "internal/catalog", "internal/dispatch", "internal/transport", "internal/session", "internal/daemon", "internal/cli"},
		"internal/catalog":   {"internal/tools", "internal/dispatch", "internal/transport", "internal/platform", "internal/daemon", "internal/cli"},
		"internal/dispatch":  {"internal/tools", "internal/transport", "internal/platform", "internal/daemon", "internal/cli"},
		"internal/transport": {"internal/tools", "internal/platform", "internal/daemon", "internal/cli"},
		"internal/tools":     {"internal/dispatch", "internal/transport", "internal/daemon", "internal/cli", "internal/platform/"},
		"internal/session":   {"internal/tools", "internal/catalog", "internal/dispatch", "internal/transport", "internal/platform", "internal/daemon", "internal/cli"},
		"internal/headless":  {"internal/tools", "internal/catalog", "internal/dispatch", "internal/transport", "internal/platform", "internal/daemon", "internal/cli"},
		"internal/imaging":   {"internal/"},
		"internal/a11yenv":   {"internal/"},
		"internal/control":   {"internal/"},
		"internal/consent":   {"internal/tools", "internal/dispatch", "internal/transport", "internal/platform", "internal/session", "internal/daemon", "internal/cli"},
		"internal/safety":    {"internal/tools", "internal/transport", "internal/platform", "internal/daemon", "internal/cli"},
		"internal/evidence":  {"internal/tools", "internal/transport", "internal/platform/", "internal/daemon", "internal/cli"},
		"internal/recorder":  {"internal/tools", "internal/catalog", "internal/dispatch", "internal/transport", "internal/platform", "internal/session", "internal/daemon", "internal/cli"},
		"internal/ocr":       {"internal/tools", "internal/catalog", "internal/dispatch", "internal/transport", "internal/platform", "internal/session", "internal/daemon", "internal/cli"},
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ":")
		rel := strings.TrimPrefix(pkg, mod)
		for owner, bans := range forbidden {
			if rel != owner && !strings.HasPrefix(rel, owner+"/") {
				continue
			}
			for _, imp := range strings.Fields(imports) {
				irel, ok := strings.CutPrefix(imp, mod)
				if !ok {
					continue
				}
				for _, ban := range bans {
					if strings.HasPrefix(irel, ban) {
						t.Errorf("%s imports %s (layering forbids %s → %s)", rel, irel, owner, ban)
					}
				}
			}
		}
	}
}
