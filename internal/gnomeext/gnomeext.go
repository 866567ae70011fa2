// Package gnomeext holds mcec's GNOME Shell extension (extension/: GNOME 42-44) and installs it.
// The extension serves org.mcec.Shell on the session bus (internal/wayland/gnome is its
// client) to one executable: the one named in allowed-exe beside it.
package gnomeext

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// UUID is the extension's id: its directory's name and its entry in enabled-extensions.
const UUID = "mcec@mcec.github.io"

//go:embed extension
var files embed.FS

// Dir is where the extension lives below a data directory ($XDG_DATA_HOME).
func Dir(dataHome string) string {
	return filepath.Join(dataHome, "gnome-shell", "extensions", UUID)
}

// Install writes the extension below dataHome, allowing the executable at exe (an absolute,
// symlink-free path) alone to call it. It replaces an older copy.
func Install(dataHome, exe string) (string, error) {
	if !filepath.IsAbs(exe) {
		return "", fmt.Errorf("gnomeext: the allowed executable %q is not an absolute path", exe)
	}
	dir := Dir(dataHome)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	err := fs.WalkDir(files, "extension", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, filepath.Base(path)), b, 0o644)
	})
	if err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, "allowed-exe"), []byte(exe+"\n"), 0o644)
}
