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
