package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetupKDE: the desktop file names this executable and the two interfaces KWin guards, in
// $XDG_DATA_HOME/applications; --remove takes it away, twice without error.
func TestSetupKDE(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	run := func(args ...string) string {
		var out bytes.Buffer
		cmd := newSetupCmd(&streams{out: &out, err: &out})
		cmd.SetArgs(args)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("setup %v: %v", args, err)
		}
		return out.String()
	}
	run("kde")
	path := filepath.Join(data, "applications", "mcec.desktop")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	for _, want := range []string{"Exec=" + exe + "\n", "X-KDE-DBUS-Restricted-Interfaces=org.kde.KWin.ScreenShot2\n", "X-KDE-Wayland-Interfaces=org_kde_kwin_fake_input\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the desktop file lacks %q:\n%s", want, b)
		}
	}
	run("kde", "--remove")
	run("kde", "--remove")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("after --remove: %v", err)
	}
}

// TestSetupGNOME: the extension lands in $XDG_DATA_HOME with this executable allowed, and is
// added to enabled-extensions beside the others (gsettings and gnome-shell are stand-ins here);
// --remove takes both back. GNOME 45 and later get the ES-module variant; a Shell that does not
// say its version gets nothing.
func TestSetupGNOME(t *testing.T) {
	data, bin := t.TempDir(), t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	state := filepath.Join(bin, "enabled")
	if err := os.WriteFile(state, []byte("['other@example.org']"), 0o600); err != nil {
		t.Fatal(err)
	}
	gsettings := "#!/bin/sh\nif [ \"$1\" = get ]; then cat " + state + "; else printf '%s' \"$4\" > " + state + "; fi\n"
	version := "43.9"
	write := func() {
		shell := "#!/bin/sh\necho 'GNOME Shell " + version + "'\n"
		for name, body := range map[string]string{"gsettings": gsettings, "gnome-shell": shell} {
			if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o700); err != nil {
				t.Fatal(err)
			}
		}
	}
	write()
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	run := func(args ...string) error {
		var out bytes.Buffer
		cmd := newSetupCmd(&streams{out: &out, err: &out})
		cmd.SetArgs(args)
		return cmd.Execute()
	}
	if err := run("gnome"); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(data, "gnome-shell", "extensions", "mcec@mcec.github.io")
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	for file, want := range map[string]string{"allowed-exe": exe + "\n", "metadata.json": `"uuid": "mcec@mcec.github.io"`, "extension.js": "org.mcec.Shell"} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil || !strings.Contains(string(b), want) {
			t.Errorf("%s: %v, lacks %q", file, err, want)
		}
	}
	if b, _ := os.ReadFile(state); string(b) != "['other@example.org', 'mcec@mcec.github.io']" {
		t.Errorf("enabled-extensions = %s", b)
	}
	if err := run("gnome", "--remove"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("after --remove: %v", err)
	}
	if b, _ := os.ReadFile(state); string(b) != "['other@example.org']" {
		t.Errorf("enabled-extensions after --remove = %s", b)
	}
	version = "46.2"
	write()
	if err := run("gnome"); err != nil {
		t.Fatalf("setup on GNOME 46: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "extension.js")); !strings.Contains(string(b), "export default class") {
		t.Error("GNOME 46 did not get the ES-module variant")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "metadata.json")); !strings.Contains(string(b), `"46"`) {
		t.Errorf("metadata.json for GNOME 46: %s", b)
	}
	version = "unknown"
	write()
	if err := run("gnome"); err == nil || !strings.Contains(err.Error(), "gnome-shell --version") {
		t.Errorf("setup with a Shell that does not say its version: %v", err)
	}
}
