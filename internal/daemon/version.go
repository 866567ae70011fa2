package daemon

import (
	"runtime/debug"
	"sync"
)

// Version is mcec's version as stamped at build time with -ldflags "-X ...daemon.Version=v1.2.3"
// (make build does); "dev" when nothing was stamped. What mcec reports is BuildVersion.
var Version = "dev"

// BuildVersion is the version mcec reports (mcec version, mcec:ver, initialize's serverInfo,
// the evidence): the stamped Version, else what the Go toolchain recorded in the binary — the
// module version (from VCS since Go 1.24: v0.0.0-TIME-REVISION, +dirty for a modified tree), or
// the VCS revision and whether the tree was modified — else "dev". A plain `go build` is then
// still traceable to its commit.
func BuildVersion() string { return buildVersion() }

var buildVersion = sync.OnceValue(func() string {
	bi, ok := debug.ReadBuildInfo()
	return versionOf(Version, bi, ok)
})

func versionOf(stamp string, bi *debug.BuildInfo, ok bool) string {
	if stamp != "" && stamp != "dev" {
		return stamp
	}
	if !ok || bi == nil {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	v := "dev-" + rev
	if dirty {
		v += "+dirty"
	}
	return v
}
