package doctor_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

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
	for _, name := range []string{"programs", "display", "x-extensions", "window-manager", "accessibility-bus", "a11y-status", "accessible-apps"} {
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

// setStatus sets an org.a11y.Status property on the test desktop's bus launcher.
func setStatus(t *testing.T, ctx context.Context, prop string, on bool) {
	t.Helper()
	conn, err := dbus.Connect(testdesk.Desktop().DBusAddress(), dbus.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Object("org.a11y.Bus", "/org/a11y/bus").CallWithContext(ctx, "org.freedesktop.DBus.Properties.Set", 0,
		"org.a11y.Status", prop, dbus.MakeVariant(on)).Err
	if err != nil {
		t.Fatal(err)
	}
}

// TestA11yStatusAttached: on an attached desktop doctor reports both org.a11y.Status properties
// and says what the operator can switch, without switching anything itself.
func TestA11yStatusAttached(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if c := statuses(doctor.Run(ctx, doctor.Target{}))["a11y-status"]; c.Status != doctor.OK ||
		!strings.Contains(c.Detail, "IsEnabled true") || !strings.Contains(c.Detail, "ScreenReaderEnabled true") {
		t.Errorf("both on: %+v", c)
	}
	setStatus(t, ctx, "IsEnabled", false)
	setStatus(t, ctx, "ScreenReaderEnabled", false)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		setStatus(t, ctx, "IsEnabled", true)
		setStatus(t, ctx, "ScreenReaderEnabled", true)
	})
	c := statuses(doctor.Run(ctx, doctor.Target{}))["a11y-status"]
	if c.Status != doctor.Warn {
		t.Fatalf("both off: %+v", c)
	}
	for _, want := range []string{"IsEnabled false", "ScreenReaderEnabled false", "Qt", "launch"} {
		if !strings.Contains(c.Detail, want) {
			t.Errorf("detail lacks %q: %s", want, c.Detail)
		}
	}
	for _, want := range []string{"gsettings set org.gnome.desktop.interface toolkit-accessibility true",
		"gsettings set org.gnome.desktop.a11y.applications screen-reader-enabled true",
		"busctl --user set-property org.a11y.Bus /org/a11y/bus org.a11y.Status IsEnabled b true"} {
		if !strings.Contains(c.Fix, want) {
			t.Errorf("fix lacks %q: %s", want, c.Fix)
		}
	}
	// Doctor only reads: the properties are as the test left them.
	var v dbus.Variant
	conn, err := dbus.Connect(testdesk.Desktop().DBusAddress(), dbus.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Object("org.a11y.Bus", "/org/a11y/bus").CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0,
		"org.a11y.Status", "IsEnabled").Store(&v)
	if on, _ := v.Value().(bool); err != nil || on {
		t.Errorf("doctor changed IsEnabled: %v %v", v, err)
	}
	// On mcec's own desktop the same state is a fault of the desktop, not the operator's choice.
	if c := statuses(doctor.Run(ctx, doctor.Target{Private: true}))["a11y-status"]; c.Status != doctor.Warn || !strings.Contains(c.Fix, "restart mcec") {
		t.Errorf("private, both off: %+v", c)
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
