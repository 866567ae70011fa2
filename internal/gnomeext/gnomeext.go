// Package gnomeext holds mcec's GNOME Shell extension and installs it. The extension serves
// org.mcec.Shell on the session bus (internal/wayland/gnome is its client) to one executable:
// the one named in allowed-exe beside it.
//
// GNOME 45 changed how the Shell loads extensions (ES modules instead of legacy imports), and
// no file can be both. So the service (extension/service.js) is written once, for every
// version, and Install wraps it in the variant the user's Shell loads: extension/legacy.js for
// 42-44, extension/module.js for 45 and later.
package gnomeext

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// UUID is the extension's id: its directory's name and its entry in enabled-extensions.
const UUID = "mcec@mcec.github.io"

// The Shell versions each variant is written for. Oldest is the first with the Shell API the
// service uses; LastModule is the newest GNOME released when the module variant was written.
const (
	Oldest      = 42
	FirstModule = 45
	LastModule  = 51
)

//go:embed extension
var files embed.FS

// marker is the line of a variant that the service replaces.
const marker = "/* mcec: service.js */"

// Dir is where the extension lives below a data directory ($XDG_DATA_HOME).
func Dir(dataHome string) string {
	return filepath.Join(dataHome, "gnome-shell", "extensions", UUID)
}

// Install writes the extension for GNOME Shell major version shell below dataHome, allowing
// the executable at exe (an absolute, symlink-free path) alone to call it. It replaces an older
// copy. A Shell newer than LastModule gets the module variant declared for it too: GNOME
// refuses an extension that does not name its version, and the variant may well work there
// (mcec doctor tells).
func Install(dataHome, exe string, shell int) (string, error) {
	if !filepath.IsAbs(exe) {
		return "", fmt.Errorf("gnomeext: the allowed executable %q is not an absolute path", exe)
	}
	script, meta, err := Variant(shell)
	if err != nil {
		return "", err
	}
	dir := Dir(dataHome)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	for name, b := range map[string][]byte{"extension.js": script, "metadata.json": meta, "allowed-exe": []byte(exe + "\n")} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// Variant is the extension's extension.js and metadata.json for GNOME Shell major version
// shell.
func Variant(shell int) (script, metadata []byte, err error) {
	var wrapper string
	var versions []string
	switch {
	case shell < Oldest:
		return nil, nil, fmt.Errorf("gnomeext: GNOME Shell %d is older than the extension's oldest, %d", shell, Oldest)
	case shell < FirstModule:
		wrapper = "extension/legacy.js"
		for v := Oldest; v < FirstModule; v++ {
			versions = append(versions, strconv.Itoa(v))
		}
	default:
		wrapper = "extension/module.js"
		for v := FirstModule; v <= max(shell, LastModule); v++ {
			versions = append(versions, strconv.Itoa(v))
		}
	}
	w, err := files.ReadFile(wrapper)
	if err != nil {
		return nil, nil, err
	}
	service, err := files.ReadFile("extension/service.js")
	if err != nil {
		return nil, nil, err
	}
	if bytes.Count(w, []byte(marker)) != 1 {
		return nil, nil, fmt.Errorf("gnomeext: %s does not hold the service marker once", wrapper)
	}
	script = bytes.Replace(w, []byte(marker), bytes.TrimSpace(service), 1)
	metadata, err = json.MarshalIndent(map[string]any{
		"uuid": UUID,
		"name": "mcec",
		"description": "Lets mcec (desktop automation for AI agents) list and move windows, read pixels and send input. " +
			"Only the mcec executable named at installation may call it.",
		"shell-version": versions,
		"url":           "https://github.com/mcec/mcec",
		"version":       1,
	}, "", "  ")
	return script, append(metadata, '\n'), err
}

// ShellVersion is the major version of the gnome-shell on PATH, 0 when there is none to ask.
func ShellVersion(ctx context.Context) int {
	out, err := exec.CommandContext(ctx, "gnome-shell", "--version").Output()
	if err != nil {
		return 0
	}
	major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(strings.TrimSpace(string(out)), "GNOME Shell "), ".", 2)[0])
	return major
}
