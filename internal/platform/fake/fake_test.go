package fake_test

import (
	"strconv"
	"testing"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/fake"
	"github.com/mcec/mcec/internal/platform/platformtest"
)

// scene is platformtest's application, built in memory.
type scene struct {
	d      *fake.Desktop
	pid    int
	main   uint32
	dialog uint32
}

func (a *scene) PID() int { return a.pid }

func (a *scene) Do(t *testing.T, cmd string) {
	t.Helper()
	var err error
	switch cmd {
	case "add":
		_, err = a.d.AddChild(a.d.Ref(a.main, platformtest.Title), &fake.Elem{Role: "push button", Name: platformtest.Extra,
			Bounds: &platform.Rect{X: 10, Y: 130, Width: 80, Height: 24}, States: []string{"focusable"}, Actions: []string{"click"}})
	case "remove":
		err = a.d.Remove(a.d.Ref(a.main, platformtest.Extra))
	case "dialog":
		a.dialog = a.d.AddWindow(fake.WindowSpec{Title: platformtest.DialogTitle, PID: a.pid, ProcessName: "scene",
			TransientFor: a.main, Type: "dialog", Bounds: platform.Rect{X: 150, Y: 150, Width: 200, Height: 100},
			Root: &fake.Elem{Role: "dialog", Name: platformtest.DialogTitle}})
	case "close":
		a.d.CloseWindow(a.dialog)
	default:
		t.Fatalf("scene: unknown command %q", cmd)
	}
	if err != nil {
		t.Fatalf("scene %s: %v", cmd, err)
	}
}

// newScene opens platformtest's scene on d.
func newScene(d *fake.Desktop) *scene {
	a := &scene{d: d, pid: 5000001}
	clicks := 0
	text := platformtest.EntryText
	a.main = d.AddWindow(fake.WindowSpec{Title: platformtest.Title, ClassName: "Scene", ProcessName: "scene", PID: a.pid,
		Bounds: platform.Rect{X: 100, Y: 80, Width: 320, Height: 200},
		Root: &fake.Elem{Role: "frame", Name: platformtest.Title, Bounds: &platform.Rect{Width: 320, Height: 200}, Children: []*fake.Elem{
			{Role: "panel", Bounds: &platform.Rect{Width: 320, Height: 200}, Children: []*fake.Elem{
				{Role: "label", Name: platformtest.LabelIdle, Bounds: &platform.Rect{X: 10, Y: 10, Width: 200, Height: 20}},
				{Role: "push button", Name: platformtest.Button, Bounds: &platform.Rect{X: 10, Y: 40, Width: 80, Height: 24},
					States: []string{"focusable"}, OnInvoke: func(d *fake.Desktop, _ string) {
						label := d.Ref(a.main, "Clicks: "+strconv.Itoa(clicks))
						clicks++
						_ = d.SetName(label, platformtest.LabelClicked(clicks))
					}},
				{Role: "check box", Name: platformtest.CheckBox, Bounds: &platform.Rect{X: 10, Y: 70, Width: 80, Height: 20}, States: []string{"focusable"}},
				{Role: "text", Bounds: &platform.Rect{X: 10, Y: 100, Width: 200, Height: 24}, Value: &text, States: []string{"focusable", "editable"}},
				{Role: "panel", Hidden: true, Children: []*fake.Elem{{Role: "label", Name: platformtest.Hidden, Hidden: true}}},
			}},
		}}})
	return a
}

func TestConformance(t *testing.T) {
	platformtest.Run(t, func(t *testing.T) platformtest.Harness {
		d := fake.New(fake.Options{})
		t.Cleanup(func() { _ = d.Close() })
		return platformtest.Harness{Desktop: d, Start: func(t *testing.T) platformtest.App { return newScene(d) }}
	})
}
