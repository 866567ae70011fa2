package toolsfake_test

import (
	"testing"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/daemon/daemontest"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/fake"
	"github.com/mcec/mcec/internal/safety"
)

// pid is the scene's process: above the kernel's pid_max, so no real process has it.
const pid = 5000001

// app is one window of a form: a status label, a button that sets it ("Apply"), a button that
// does nothing ("Inert"), and a text field.
type app struct {
	*daemontest.Daemon
	win uint32
}

func rect(x, y, w, h int) *platform.Rect { return &platform.Rect{X: x, Y: y, Width: w, Height: h} }

func newApp(t *testing.T) *app {
	t.Helper()
	d := daemontest.Start(t, daemon.Config{Safety: safety.Settings{AllowAll: true}})
	a := &app{Daemon: d}
	text := "hello"
	a.win = d.Fake.AddWindow(fake.WindowSpec{Title: "Form", ClassName: "Form", ProcessName: "form", PID: pid,
		Bounds: platform.Rect{X: 100, Y: 100, Width: 400, Height: 300},
		Root: &fake.Elem{Role: "frame", Name: "Form", Bounds: rect(0, 0, 400, 300), Children: []*fake.Elem{
			{Role: "panel", Bounds: rect(0, 0, 400, 300), Children: []*fake.Elem{
				{Role: "label", Name: "Status: idle", Bounds: rect(10, 10, 200, 20)},
				{Role: "push button", Name: "Apply", Bounds: rect(10, 40, 80, 24), OnInvoke: func(d *fake.Desktop, _ string) {
					_ = d.SetName(d.Ref(a.win, "Status: idle"), "Status: applied")
				}},
				{Role: "push button", Name: "Inert", Bounds: rect(100, 40, 80, 24), Actions: []string{"click"}},
				{Role: "text", Name: "Note", Bounds: rect(10, 80, 200, 24), Value: &text, States: []string{"focusable", "editable"}},
			}},
		}}})
	return a
}

// fails checks a failure's category and code.
func fails(t *testing.T, env contract.Envelope, cat contract.Category, code contract.Code) {
	t.Helper()
	if env.OK() {
		t.Fatalf("want %s/%s, the call succeeded", cat, code)
	}
	if e := env.Err(); e.Category != cat || e.Code != code {
		t.Fatalf("want %s/%s, got %s/%s: %s", cat, code, e.Category, e.Code, e.Detail)
	}
}
