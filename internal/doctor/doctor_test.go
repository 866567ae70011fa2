package doctor_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/doctor"
	"github.com/mcec/mcec/internal/testdesk"
)

func TestMain(m *testing.M) { os.Exit(testdesk.Main(m)) }

func statuses(r doctor.Report) map[string]doctor.Check {
	out := map[string]doctor.Check{}
	for _, c := range r.Checks {
		out[c.Name] = c
	}
	return out
}

func TestHealthyDesktop(t *testing.T) {
	p := testdesk.Start(t, "gtk3-widget-factory")
	testdesk.WaitAccessible(t, p.PID, 20*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := doctor.Run(ctx, doctor.Target{Private: true})
	got := statuses(r)
	for _, name := range []string{"programs", "display", "x-extensions", "window-manager", "accessibility-bus", "accessible-apps"} {
		if c, ok := got[name]; !ok || c.Status != doctor.OK {
			t.Errorf("%s: %+v", name, c)
		}
	}
	if !strings.Contains(got["window-manager"].Detail, "Openbox") {
		t.Errorf("window manager %q", got["window-manager"].Detail)
	}
	if !strings.Contains(got["accessible-apps"].Detail, "gtk") {
		t.Errorf("apps %q", got["accessible-apps"].Detail)
	}
	if r.Failed() {
		t.Error("a healthy desktop failed")
	}
}

func TestBrokenSetups(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tests := []struct {
		name   string
		target doctor.Target
		check  string
	}{
		{"unreachable display", doctor.Target{Display: ":4242"}, "display"},
		{"no session bus", doctor.Target{DBusAddress: "unix:path=/nonexistent/bus"}, "accessibility-bus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := doctor.Run(ctx, tt.target)
			c := statuses(r)[tt.check]
			if c.Status != doctor.Fail || c.Fix == "" || !r.Failed() {
				t.Fatalf("%s: %+v", tt.check, c)
			}
		})
	}
}
