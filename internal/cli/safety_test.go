package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"
)

// The command line's part of the precedence: the file is found in the XDG config dir (or
// named by --config / MCEC_CONFIG), variables override it, given flags override both, and
// absent flags leave them alone.
func TestSafetyFlagsPrecedence(t *testing.T) {
	xdg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(xdg, "mcec"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(xdg, "mcec", "config.toml"),
		[]byte("[agent]\nenabled = true\n[tcp]\nenabled = true\n[tools.launch]\nenabled = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("MCEC_CONFIG", "")
	t.Setenv("MCEC_TCP", "false")
	t.Setenv("MCEC_ALLOW_AGENT", "")
	t.Setenv("MCEC_ALLOW_ALL", "")

	parse := func(args ...string) *safetyFlags {
		f := &safetyFlags{}
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		f.register(fs)
		boolVar(fs, &f.tcp, "tcp", "")
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return f
	}
	s, err := parse().settings()
	if err != nil {
		t.Fatal(err)
	}
	if s.Agent == nil || !*s.Agent || s.TCP || !s.Tools["launch"] || s.AllowAll {
		t.Errorf("file + env: %+v", s)
	}
	s, err = parse("--tcp", "--allow-agent=false", "--allow-all").settings()
	if err != nil {
		t.Fatal(err)
	}
	if *s.Agent || !s.TCP || !s.AllowAll {
		t.Errorf("flags: %+v", s)
	}
	if _, err := parse("--config", filepath.Join(xdg, "missing.toml")).settings(); err == nil {
		t.Error("a missing --config file was accepted")
	}
	t.Setenv("MCEC_ALLOW_ALL", "maybe")
	if _, err := parse().settings(); err == nil {
		t.Error("MCEC_ALLOW_ALL=maybe was accepted")
	}
}
