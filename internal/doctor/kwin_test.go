package doctor_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/doctor"
	"github.com/mcec/mcec/internal/headless"
)

// TestKWin: on KWin with its permission checks on (a user's Plasma session before `mcec setup
// kde`), doctor names KWin and its version, fails the screenshot check and warns of the missing
// fake input, each with the setup command as the fix; with the checks off, all is well.
func TestKWin(t *testing.T) {
	for _, checks := range []bool{true, false} {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		desk, err := headless.Start(ctx, headless.Options{Kind: headless.KWin, KWinChecks: checks})
		if err != nil {
			t.Fatal(err)
		}
		r := doctor.Run(ctx, doctor.Target{Wayland: desk.WaylandSocket(), KWin: true, DBusAddress: desk.DBusAddress()})
		desk.Stop()
		got := statuses(r)
		if c := got["compositor"]; c.Status != doctor.OK || !strings.HasPrefix(c.Detail, "KWin 5.") {
			t.Errorf("checks %v: compositor %+v", checks, c)
		}
		shot, protos := got["kwin-screenshot"], got["wayland-protocols"]
		if checks {
			if shot.Status != doctor.Fail || !strings.Contains(shot.Fix, "mcec setup kde") {
				t.Errorf("unauthorized screenshot: %+v", shot)
			}
			if protos.Status != doctor.Warn || !strings.Contains(protos.Detail, "org_kde_kwin_fake_input") || !strings.Contains(protos.Fix, "mcec setup kde") {
				t.Errorf("unauthorized fake input: %+v", protos)
			}
			continue
		}
		if shot.Status != doctor.OK || protos.Status != doctor.OK || r.Failed() {
			t.Errorf("KWin without checks: %+v", r.Checks)
		}
	}
}
