package doctor_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/doctor"
	"github.com/mcec/mcec/internal/testdesk"
)

// TestWindowTrees: doctor reads every window's tree and names the ones an agent cannot read,
// with why: here a GTK window whose bridge was switched off, beside a healthy one and a terminal
// (no bridge at all, which is no problem).
func TestWindowTrees(t *testing.T) {
	ok := testdesk.Start(t, "/usr/bin/python3", "testdata/gtk3win.py", "doctor healthy")
	off := testdesk.Start(t, "env", "NO_AT_BRIDGE=1", "/usr/bin/python3", "testdata/gtk3win.py", "doctor switched off")
	term := testdesk.Start(t, "xterm", "-T", "doctor terminal")
	// The healthy app's tree is on the bus before its window is mapped, and doctor lists only
	// mapped windows (beside a second make test the window came after the tree).
	testdesk.WaitAccessible(t, ok.PID, 20*time.Second)
	testdesk.WaitWindow(t, ok.PID, 20*time.Second)
	testdesk.WaitWindow(t, off.PID, 20*time.Second)
	testdesk.WaitWindow(t, term.PID, 20*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := statuses(doctor.Run(ctx, doctor.Target{Private: true}))["window-trees"]
	if c.Status != doctor.Warn {
		t.Fatalf("window-trees %+v; want a warning for the switched-off window", c)
	}
	for _, want := range []string{`"doctor healthy"`, "tree ok", `"doctor switched off"`, "NO_AT_BRIDGE=1", `"doctor terminal"`, "no tree"} {
		if !strings.Contains(c.Detail, want) {
			t.Errorf("detail lacks %q: %s", want, c.Detail)
		}
	}
	if strings.Index(c.Detail, "doctor switched off") > strings.Index(c.Detail, "doctor healthy") {
		t.Errorf("the problem is not listed first: %s", c.Detail)
	}
	if c.Fix == "" {
		t.Error("no fix")
	}
}
