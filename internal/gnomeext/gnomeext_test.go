package gnomeext

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestInstall: the files land under the data directory with the allowed executable beside
// them, the metadata names the package's UUID, and the script parses as JavaScript (node
// --check: GNOME Shell would otherwise refuse the extension only at the user's next login).
func TestInstall(t *testing.T) {
	data := t.TempDir()
	if _, err := Install(data, "relative/mcec"); err == nil {
		t.Error("a relative executable path was accepted")
	}
	dir, err := Install(data, "/opt/mcec/bin/mcec")
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(data, "gnome-shell", "extensions", UUID) {
		t.Errorf("installed in %s", dir)
	}
	b, err := os.ReadFile(filepath.Join(dir, "allowed-exe"))
	if err != nil || string(b) != "/opt/mcec/bin/mcec\n" {
		t.Errorf("allowed-exe = %q, %v", b, err)
	}
	var meta struct {
		UUID    string   `json:"uuid"`
		Version []string `json:"shell-version"`
	}
	b, err = os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err != nil || json.Unmarshal(b, &meta) != nil || meta.UUID != UUID || len(meta.Version) == 0 {
		t.Errorf("metadata.json: %s (%v)", b, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed (make clients-deps): %v", err)
	}
	if out, err := exec.Command(node, "--check", filepath.Join(dir, "extension.js")).CombinedOutput(); err != nil {
		t.Errorf("extension.js does not parse: %v\n%s", err, out)
	}
}
