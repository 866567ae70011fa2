package gnomeext

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestInstall: the files land under the data directory with the allowed executable beside
// them, and the metadata names the package's UUID and the Shell's version.
func TestInstall(t *testing.T) {
	data := t.TempDir()
	if _, err := Install(data, "relative/mcec", 43); err == nil {
		t.Error("a relative executable path was accepted")
	}
	if _, err := Install(data, "/opt/mcec/bin/mcec", 41); err == nil {
		t.Error("GNOME 41 was accepted")
	}
	for _, shell := range []int{43, 47} {
		dir, err := Install(data, "/opt/mcec/bin/mcec", shell)
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
		if err != nil || json.Unmarshal(b, &meta) != nil || meta.UUID != UUID || !slices.Contains(meta.Version, strconv.Itoa(shell)) {
			t.Errorf("GNOME %d: metadata.json: %s (%v)", shell, b, err)
		}
		script, _ := os.ReadFile(filepath.Join(dir, "extension.js"))
		if modular := bytes.Contains(script, []byte("export default class")); modular != (shell >= FirstModule) {
			t.Errorf("GNOME %d got the module variant: %v", shell, modular)
		}
	}
}

// TestVariants: each variant holds the whole service and declares exactly its versions, and
// both parse as JavaScript, the legacy one as a script and the other as a module (node --check:
// GNOME Shell would otherwise refuse the extension only at the user's next login).
func TestVariants(t *testing.T) {
	service, err := files.ReadFile("extension/service.js")
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed (make clients-deps): %v", err)
	}
	for _, c := range []struct {
		shell    int
		versions string
		file     string
	}{
		{42, "42 43 44", "legacy.js"},
		{44, "42 43 44", "legacy.js"},
		{45, "45 46 47 48 49 50 51", "module.mjs"},
		{51, "45 46 47 48 49 50 51", "module.mjs"},
		{53, "45 46 47 48 49 50 51 52 53", "module.mjs"},
	} {
		script, meta, err := Variant(c.shell)
		if err != nil {
			t.Fatalf("GNOME %d: %v", c.shell, err)
		}
		if !bytes.Contains(script, bytes.TrimSpace(service)) || bytes.Contains(script, []byte(marker)) {
			t.Errorf("GNOME %d: the service is not in place of the marker", c.shell)
		}
		var m struct {
			Version []string `json:"shell-version"`
		}
		if err := json.Unmarshal(meta, &m); err != nil || strings.Join(m.Version, " ") != c.versions {
			t.Errorf("GNOME %d: shell-version %v (%v), want %s", c.shell, m.Version, err, c.versions)
		}
		path := filepath.Join(t.TempDir(), c.file)
		if err := os.WriteFile(path, script, 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(node, "--check", path).CombinedOutput(); err != nil {
			t.Errorf("GNOME %d: %s does not parse: %v\n%s", c.shell, c.file, err, out)
		}
	}
}
