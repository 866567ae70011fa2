package cli

import (
	"slices"
	"testing"
)

// --provision-warm and --no-glx reach the provisioning manager's options; a warm pool beyond the
// instance limit is a usage error.
func TestProvisionFlags(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("MCEC_CONFIG", "")
	g := &globalOptions{screen: "1280x800x24", provisionWarm: 2, noGLX: true, retention: retentionFlags{maxAge: "7d", maxBytes: "1GiB"}}
	cfg, err := g.daemonConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Provision.Warm != 2 || !slices.Equal(cfg.Provision.ServeArgs, []string{"--no-glx"}) || !cfg.Screen.NoGLX {
		t.Errorf("provision options %+v, screen %+v", cfg.Provision, cfg.Screen)
	}
	for _, bad := range []int{-1, 9} {
		g.provisionWarm = bad
		if _, err := g.daemonConfig(nil); err == nil {
			t.Errorf("--provision-warm %d accepted", bad)
		}
	}
}
