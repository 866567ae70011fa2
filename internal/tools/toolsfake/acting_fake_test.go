package toolsfake_test

import (
	"strings"
	"testing"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/fake"
	"github.com/mcec/mcec/internal/tools"
)

type actResult struct {
	Effect *tools.Effect `json:"effect"`
}

// A pixel click on the button reaches it (the fake records the click where it was asked) and
// reports the label's change; a click on bare window reports nothing and warns.
func TestClickEffects(t *testing.T) {
	a := newApp(t)
	var res actResult
	env := a.OK(t, "click", map[string]any{"handle": a.win, "at": map[string]any{"x": 50, "y": 52}, "settle": 100}, &res)
	if contracttest.HasWarning(env, contract.WarnNoObservedEffect) || res.Effect == nil || len(res.Effect.Changed) == 0 {
		t.Errorf("click on Apply: effect %+v, warnings %v", res.Effect, env.Warnings())
	}
	g := a.Fake.Gestures()
	if last := g[len(g)-1]; last.Kind != "click" || last.Points[0] != (platform.Point{X: 150, Y: 152}) {
		t.Errorf("the click went to %+v, want the window-relative point made absolute (150,152)", last)
	}
	var nothing actResult
	env = a.OK(t, "click", map[string]any{"handle": a.win, "at": map[string]any{"x": 390, "y": 290}, "settle": 50}, &nothing)
	if !contracttest.HasWarning(env, contract.WarnNoObservedEffect) {
		t.Errorf("a click on nothing did not warn; effect %+v", nothing.Effect)
	}
}

// An element whose centre lies off the screen (its window reaches past the edge) is refused by
// name, before any input: the input layer would only name a point the agent never gave.
func TestClickOffScreenElement(t *testing.T) {
	a := newApp(t)
	d, err := a.Fake.Displays(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	wide := a.Fake.AddWindow(fake.WindowSpec{Title: "Wide", ProcessName: "wide", PID: pid + 2,
		Bounds: platform.Rect{X: d.VirtualBounds.Width - 100, Y: 100, Width: 400, Height: 200},
		Root: &fake.Elem{Role: "frame", Name: "Wide", Bounds: rect(0, 0, 400, 200), Children: []*fake.Elem{
			{Role: "push button", Name: "Near", Bounds: rect(10, 40, 80, 24)},
			{Role: "push button", Name: "Far", Bounds: rect(300, 40, 80, 24)},
		}}})
	before := len(a.Fake.Gestures())
	env := a.Call(t, "click", map[string]any{"handle": wide, "at": map[string]any{"name": "Far"}})
	fails(t, env, contract.NoTarget, contract.CodeElementNotFound)
	if !strings.Contains(env.Err().Detail, "off the screen") {
		t.Errorf("detail %q does not say the element is off the screen", env.Err().Detail)
	}
	if n := len(a.Fake.Gestures()); n != before {
		t.Errorf("%d gestures were made for a refused click", n-before)
	}
	a.OK(t, "click", map[string]any{"handle": wide, "at": map[string]any{"name": "Near"}, "settle": 50}, nil)
}

// Clicking a window that another covers raises it first, and the effect says the foreground moved.
func TestClickRaisesCoveredWindow(t *testing.T) {
	a := newApp(t)
	other := a.Fake.AddWindow(fake.WindowSpec{Title: "Other", ProcessName: "other", PID: pid + 1,
		Bounds: platform.Rect{X: 50, Y: 50, Width: 500, Height: 400}, Root: &fake.Elem{Role: "frame", Name: "Other"}})
	var res actResult
	a.OK(t, "click", map[string]any{"handle": a.win, "at": map[string]any{"x": 50, "y": 52}, "settle": 100}, &res)
	if res.Effect == nil || res.Effect.Foreground == nil || res.Effect.Foreground.To == nil || res.Effect.Foreground.To.Handle != a.win {
		t.Errorf("effect %+v: want the foreground moved to %d", res.Effect, a.win)
	}
	if n, _ := a.Fake.Node(a.Fake.Ref(a.win, "Status: applied")); n.Name == "" {
		t.Errorf("the click landed on window %d instead of the raised one", other)
	}
}

// Window operations report the window's change. One that finds the window already in the state
// asked for is no failure: no warning, and an effect that shows no change.
func TestWindowEffects(t *testing.T) {
	a := newApp(t)
	var moved actResult
	a.OK(t, "window", map[string]any{"handle": a.win, "action": "move", "x": 300, "y": 200, "settle": 100}, &moved)
	if e := moved.Effect; e == nil || e.Window == nil || e.Window.To.X != 300 || e.Window.From.X != 100 {
		t.Errorf("move: effect %+v", moved.Effect)
	}
	var minimized actResult
	a.OK(t, "window", map[string]any{"handle": a.win, "action": "minimize", "settle": 100}, &minimized)
	if w, _ := a.Fake.Window(t.Context(), a.win); !w.Minimized || minimized.Effect == nil || minimized.Effect.Window == nil {
		t.Errorf("minimize: window minimized %v, effect %+v", w.Minimized, minimized.Effect)
	}
	var again actResult
	env := a.OK(t, "window", map[string]any{"handle": a.win, "action": "minimize", "settle": 50}, &again)
	if contracttest.HasWarning(env, contract.WarnNoObservedEffect) || again.Effect == nil || again.Effect.Window != nil || again.Effect.Foreground != nil {
		t.Errorf("minimizing a minimized window: warnings %v, effect %+v", env.Warnings(), again.Effect)
	}
	fails(t, a.Call(t, "window", map[string]any{"handle": 12345, "action": "minimize"}), contract.StaleElement, contract.CodeWindowClosed)
}

// clipboard set reads the text back as its effect.
func TestClipboardReadBack(t *testing.T) {
	a := newApp(t)
	var res struct {
		Set    bool          `json:"set"`
		Effect *tools.Effect `json:"effect"`
	}
	a.OK(t, "clipboard", map[string]any{"action": "set", "text": "copied ✓"}, &res)
	if !res.Set || res.Effect == nil || res.Effect.Clipboard == nil || !res.Effect.Clipboard.Same {
		t.Errorf("set: %+v (effect %+v)", res, res.Effect)
	}
	var got struct {
		Text *string `json:"text"`
	}
	a.OK(t, "clipboard", map[string]any{}, &got)
	if got.Text == nil || *got.Text != "copied ✓" {
		t.Errorf("get: %v", got.Text)
	}
}

// A window whose place the compositor does not tell (a wlroots compositor through
// wlr-foreign-toplevel) has no bounds: pixels relative to it are nowhere, so a click or a
// capture region given relative to it fails compositor-unsupported before any input.
func TestPixelsRelativeToUnplacedWindow(t *testing.T) {
	a := newApp(t)
	unplaced := a.Fake.AddWindow(fake.WindowSpec{Title: "Unplaced", ProcessName: "unplaced", PID: pid + 3,
		Root: &fake.Elem{Role: "frame", Name: "Unplaced"}})
	before := len(a.Fake.Gestures())
	env := a.Call(t, "click", map[string]any{"handle": unplaced, "at": map[string]any{"x": 10, "y": 10}})
	fails(t, env, contract.InvalidArgument, contract.CodeCompositorUnsupported)
	env = a.Call(t, "drag", map[string]any{"handle": unplaced, "from": map[string]any{"x": 10, "y": 10}, "to": map[string]any{"x": 40, "y": 10}})
	fails(t, env, contract.InvalidArgument, contract.CodeCompositorUnsupported)
	if n := len(a.Fake.Gestures()); n != before {
		t.Errorf("%d gestures were made for refused pixels", n-before)
	}
	env = a.Call(t, "capture", map[string]any{"handle": unplaced, "region": map[string]any{"x": 0, "y": 0, "width": 10, "height": 10}})
	fails(t, env, contract.InvalidArgument, contract.CodeCompositorUnsupported)
	// Screen coordinates, without the window, still work.
	a.OK(t, "click", map[string]any{"at": map[string]any{"x": 150, "y": 150}, "settle": 50}, nil)
}
