package daemon

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionOf(t *testing.T) {
	vcs := func(main string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/mcec/mcec", Version: main}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, tt := range []struct {
		name, stamp string
		bi          *debug.BuildInfo
		want        string
	}{
		{"stamped wins", "v1.2.3", vcs("v0.0.0-20260101000000-0123456789ab", "vcs.revision", rev), "v1.2.3"},
		{"module version from VCS", "dev", vcs("v0.0.0-20260101000000-0123456789ab+dirty", "vcs.revision", rev, "vcs.modified", "true"), "v0.0.0-20260101000000-0123456789ab+dirty"},
		{"tagged module", "dev", vcs("v1.4.0"), "v1.4.0"},
		{"devel with revision", "dev", vcs("(devel)", "vcs.revision", rev, "vcs.modified", "false"), "dev-0123456789ab"},
		{"devel, modified", "dev", vcs("(devel)", "vcs.revision", rev, "vcs.modified", "true"), "dev-0123456789ab+dirty"},
		{"nothing known", "dev", vcs("(devel)"), "dev"},
		{"no build info", "dev", nil, "dev"},
	} {
		if got := versionOf(tt.stamp, tt.bi, tt.bi != nil); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// Issue 17 row 18: a binary built with plain `go build` (no -ldflags) names its commit in
// `mcec version`, not "dev".
func TestPlainBuildReportsItsCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcec")
	}
	rev, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("not in a git checkout:", err)
	}
	bin := filepath.Join(t.TempDir(), "mcec")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/mcec")
	// go build's own default; this machine's environment may switch VCS stamping off.
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=auto")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.TrimSpace(string(out))
	if got == "mcec dev" || !strings.Contains(got, strings.TrimSpace(string(rev))[:12]) {
		t.Fatalf("mcec version says %q; want the commit %.12s", got, rev)
	}
}
