package paths

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// clean points every variable the package reads at nothing, so each test sets only its own.
func clean(t *testing.T) {
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_STATE_HOME", RuntimeVar} {
		t.Setenv(k, "")
	}
	t.Setenv("HOME", "")
	t.Setenv("TMPDIR", t.TempDir())
}

func TestConfig(t *testing.T) {
	clean(t)
	if got := Config("config.toml"); got != "" {
		t.Errorf("without home or XDG_CONFIG_HOME: %q, want empty", got)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	if got, want := Config("config.toml"), filepath.Join(home, ".config", "mcec", "config.toml"); got != want {
		t.Errorf("home: %q, want %q", got, want)
	}
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	if got, want := Config("commands.toml"), filepath.Join(xdg, "mcec", "commands.toml"); got != want {
		t.Errorf("XDG_CONFIG_HOME: %q, want %q", got, want)
	}
}

func TestState(t *testing.T) {
	clean(t)
	if got, want := State("sessions"), filepath.Join(os.TempDir(), "mcec-sessions"); got != want {
		t.Errorf("without home or XDG_STATE_HOME: %q, want %q", got, want)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	if got, want := State("sessions"), filepath.Join(home, ".local", "state", "mcec", "sessions"); got != want {
		t.Errorf("home: %q, want %q", got, want)
	}
	xdg := t.TempDir()
	t.Setenv("XDG_STATE_HOME", xdg)
	if got, want := State("sessions"), filepath.Join(xdg, "mcec", "sessions"); got != want {
		t.Errorf("XDG_STATE_HOME: %q, want %q", got, want)
	}
}

func TestRuntime(t *testing.T) {
	clean(t)
	user := filepath.Join(os.TempDir(), "mcec-"+strconv.Itoa(os.Getuid()))
	if got := UserTemp(); got != user {
		t.Errorf("UserTemp: %q, want %q", got, user)
	}
	if got := Runtime(); !slices.Equal(got, []string{user}) {
		t.Errorf("without a runtime directory: %q, want [%s]", got, user)
	}
	run := t.TempDir()
	t.Setenv(RuntimeVar, run)
	if got, want := Runtime(), []string{filepath.Join(run, "mcec"), user}; !slices.Equal(got, want) {
		t.Errorf("with %s: %q, want %q", RuntimeVar, got, want)
	}
}

func TestDesktopRoot(t *testing.T) {
	clean(t)
	short := t.TempDir()
	if len(short) > maxDesktopRoot {
		short = "/tmp" // the test's own directory is long; /tmp is short by definition
	}
	t.Setenv("TMPDIR", short)
	if got := DesktopRoot(); got != short {
		t.Errorf("short TMPDIR %q: root %q", short, got)
	}
	long := "/" + strings.Repeat("d", maxDesktopRoot)
	t.Setenv("TMPDIR", long)
	if got := DesktopRoot(); got != "/tmp" {
		t.Errorf("long TMPDIR: root %q, want /tmp", got)
	}
	if got := DesktopRoots(); !slices.Equal(got, []string{long, "/tmp"}) {
		t.Errorf("long TMPDIR: roots %q, want [%s /tmp]", got, long)
	}
	t.Setenv("TMPDIR", "/tmp")
	if got := DesktopRoots(); !slices.Equal(got, []string{"/tmp"}) {
		t.Errorf("TMPDIR=/tmp: roots %q, want [/tmp]", got)
	}
}
