package tools_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/testdesk"
)

// effectJSON is the effect every acting result carries.
type effectJSON struct {
	SettledMs int64 `json:"settledMs"`
	Settled   bool  `json:"settled"`
	Focus     *struct {
		From, To *struct{ Ref, Role, Name string }
	} `json:"focus"`
	Target        *changeJSON  `json:"target"`
	Changed       []changeJSON `json:"changed"`
	WindowsOpened []struct {
		Handle uint32 `json:"handle"`
		Title  string `json:"title"`
	} `json:"windowsOpened"`
	WindowsClosed []struct {
		Handle uint32 `json:"handle"`
	} `json:"windowsClosed"`
	Window *struct {
		From, To struct {
			X, Y, Width, Height int
			Title               *string `json:"title"`
		}
	} `json:"window"`
	Pixels    *struct{ X, Y, Width, Height, Changed int } `json:"pixels"`
	Clipboard *struct {
		Length int  `json:"length"`
		Same   bool `json:"same"`
	} `json:"clipboard"`
}

type changeJSON struct {
	Ref, Role, Name string
	Value           *string `json:"value"`
	Was             *struct {
		Name  *string `json:"name"`
		Value *string `json:"value"`
	} `json:"was"`
	States string `json:"states"`
}

type withEffect struct {
	Effect *effectJSON `json:"effect"`
}

func warned(env contract.Envelope, code contract.Code) bool {
	return slices.ContainsFunc(env.Warnings(), func(w contract.Warning) bool { return w.Code == code })
}

// TestEffects: every acting tool reports what it changed, once the UI settled, and warns
// no-observed-effect when nothing did.
func TestEffects(t *testing.T) {
	h := newHarness(t)
	p := testdesk.Start(t, "/usr/bin/python3", "testdata/effects.py")
	handle := testdesk.WaitWindow(t, p.PID, 20*time.Second)
	testdesk.WaitAccessible(t, p.PID, 20*time.Second)
	win := map[string]any{"handle": handle}
	with := func(m map[string]any) map[string]any {
		out := map[string]any{}
		for k, v := range win {
			out[k] = v
		}
		for k, v := range m {
			out[k] = v
		}
		return out
	}

	t.Run("invoke changes another element", func(t *testing.T) {
		var r withEffect
		env := h.ok("invoke", with(map[string]any{"element": map[string]any{"name": "Count"}}), &r)
		if r.Effect == nil || !slices.ContainsFunc(r.Effect.Changed, func(c changeJSON) bool {
			return c.Role == "label" && c.Name == "count: 1" && c.Was != nil && c.Was.Name != nil && *c.Was.Name == "count: 0"
		}) {
			t.Fatalf("effect %+v does not show the label going from count: 0 to count: 1", r.Effect)
		}
		if warned(env, contract.WarnNoObservedEffect) || !r.Effect.Settled {
			t.Errorf("warnings %v, settled %v", env.Warnings(), r.Effect.Settled)
		}
	})

	t.Run("an action that changes nothing warns", func(t *testing.T) {
		var r withEffect
		// Through accessibility: a real click would move the focus to the button, an effect.
		env := h.ok("invoke", with(map[string]any{"element": map[string]any{"name": "Nothing"}, "settle": 300, "via": "accessibility"}), &r)
		if !warned(env, contract.WarnNoObservedEffect) {
			t.Fatalf("no no-observed-effect warning; effect %+v", r.Effect)
		}
		if r.Effect == nil || r.Effect.SettledMs < 250 {
			t.Errorf("the observer gave up before the settle time: %+v", r.Effect)
		}
	})

	t.Run("toggle shows the state", func(t *testing.T) {
		var r withEffect
		h.ok("invoke", with(map[string]any{"element": map[string]any{"name": "Check"}, "action": "toggle"}), &r)
		if r.Effect == nil || r.Effect.Target == nil || !strings.Contains(r.Effect.Target.States, "+checked") {
			t.Fatalf("effect %+v does not show +checked on the check box", r.Effect)
		}
	})

	t.Run("click opens a window", func(t *testing.T) {
		var r withEffect
		h.ok("click", with(map[string]any{"at": map[string]any{"name": "Open"}}), &r)
		if r.Effect == nil || !slices.ContainsFunc(r.Effect.WindowsOpened, func(w struct {
			Handle uint32 `json:"handle"`
			Title  string `json:"title"`
		}) bool {
			return w.Title == "mcec effects window"
		}) {
			t.Fatalf("effect %+v does not list the window that opened", r.Effect)
		}
	})

	t.Run("typing changes the focused field", func(t *testing.T) {
		h.ok("focus", with(map[string]any{"at": map[string]any{"role": "text", "index": 0}}), nil)
		h.ok("send_command", map[string]any{"command": "end"}, nil)
		var r withEffect
		h.ok("send_command", map[string]any{"command": "chars:yz"}, &r)
		if r.Effect == nil || r.Effect.Target == nil || r.Effect.Target.Value == nil || *r.Effect.Target.Value != "xyz" ||
			r.Effect.Target.Was == nil || r.Effect.Target.Was.Value == nil || *r.Effect.Target.Was.Value != "x" {
			t.Fatalf("effect %+v does not show the field going from x to xyz", r.Effect)
		}
		// Held modifiers and meta commands have nothing to observe.
		var meta withEffect
		env := h.ok("send_command", map[string]any{"command": "mcec:ver"}, &meta)
		if meta.Effect != nil || warned(env, contract.WarnNoObservedEffect) {
			t.Errorf("mcec:ver reported an effect %+v / warnings %v", meta.Effect, env.Warnings())
		}
	})

	t.Run("window move and clipboard", func(t *testing.T) {
		var r withEffect
		env := h.ok("window", with(map[string]any{"action": "move", "x": 40, "y": 60}), &r)
		if r.Effect == nil || r.Effect.Window == nil || r.Effect.Window.To.X != 40 || r.Effect.Window.To.Y != 60 {
			t.Fatalf("effect %+v does not show the move", r.Effect)
		}
		if warned(env, contract.WarnNoObservedEffect) {
			t.Errorf("a move that landed warned: %v", env.Warnings())
		}
		h.ok("clipboard", map[string]any{"action": "set", "text": "héllo"}, &r)
		if r.Effect == nil || r.Effect.Clipboard == nil || !r.Effect.Clipboard.Same || r.Effect.Clipboard.Length != 5 {
			t.Fatalf("clipboard effect %+v", r.Effect)
		}
	})

	t.Run("a change right after the focus moved is reported", func(t *testing.T) {
		var r withEffect
		h.ok("click", with(map[string]any{"at": map[string]any{"name": "Later"}}), &r)
		if r.Effect == nil || !slices.ContainsFunc(r.Effect.Changed, func(c changeJSON) bool { return c.Name == "later: done" }) {
			t.Fatalf("effect %+v lists the focus move without the label that changed 120 ms later", r.Effect)
		}
	})

	t.Run("a text emptied is a changed value", func(t *testing.T) {
		var r withEffect
		env := h.ok("invoke", with(map[string]any{"element": map[string]any{"name": "Clear"}, "via": "accessibility"}), &r)
		if warned(env, contract.WarnNoObservedEffect) || r.Effect == nil || !slices.ContainsFunc(r.Effect.Changed, func(c changeJSON) bool {
			return c.Was != nil && c.Was.Value != nil && strings.Contains(*c.Was.Value, "2*3 = 6") && c.Value != nil && *c.Value == ""
		}) {
			t.Fatalf("effect %+v (warnings %v) does not show the history emptied", r.Effect, env.Warnings())
		}
	})

	t.Run("a new title is an effect", func(t *testing.T) {
		var r withEffect
		env := h.ok("invoke", with(map[string]any{"element": map[string]any{"name": "Rename"}, "via": "accessibility"}), &r)
		if warned(env, contract.WarnNoObservedEffect) || r.Effect == nil || r.Effect.Window == nil || r.Effect.Window.To.Title == nil ||
			*r.Effect.Window.To.Title != "mcec effects renamed 1" || r.Effect.Window.From.Title == nil || *r.Effect.Window.From.Title != "mcec effects" {
			t.Fatalf("effect %+v (warnings %v) does not show the title going from mcec effects to renamed 1", r.Effect, env.Warnings())
		}
	})

	t.Run("settle 0 reports at once", func(t *testing.T) {
		var r withEffect
		start := time.Now()
		h.ok("invoke", with(map[string]any{"element": map[string]any{"name": "Nothing"}, "settle": 0, "via": "accessibility"}), &r)
		if r.Effect == nil || r.Effect.SettledMs > 100 {
			t.Errorf("settle 0 waited: %+v after %v", r.Effect, time.Since(start))
		}
	})
	assertNothingHeld(t, h)
}

// TestEffectsWithoutTree: for an application without a tree (Tk, xterm) the effect compares
// the window's pixels: a check box ticked and a command typed are effects, a click on empty space
// is observed to change nothing (not "could not observe"), and the hover of the pointer's arrival
// is not taken for a click's effect.
func TestEffectsWithoutTree(t *testing.T) {
	h := newHarness(t)
	needProgram(t, "wish")
	res, _, _ := h.launch(map[string]any{"path": "wish", "arguments": []string{"../reach/testdata/tk_form.tcl"}, "timeout": 10000})
	defer assertNothingHeld(t, h)
	at := func(x, y int) map[string]any {
		return map[string]any{"pid": res.ProcessID, "at": map[string]any{"x": x, "y": y}}
	}
	// tk_form.tcl: Subscribe's box at 20,130 (window-relative); nothing at 300,200.
	var r withEffect
	env := h.ok("click", at(30, 140), &r)
	if r.Effect == nil || r.Effect.Pixels == nil || warned(env, contract.WarnNoObservedEffect) || warned(env, contract.WarnEffectUnobservable) {
		t.Fatalf("ticking Subscribe: effect %+v, warnings %v", r.Effect, env.Warnings())
	}
	r = withEffect{}
	env = h.ok("click", at(300, 200), &r)
	// Tk's entry keeps its cursor blinking: at most that may show.
	if p := r.Effect.Pixels; !warned(env, contract.WarnNoObservedEffect) || p != nil && p.Width > 3 {
		t.Errorf("a click on empty space, the pointer leaving Subscribe's hover: effect %+v (pixels %+v), warnings %v", r.Effect, p, env.Warnings())
	}

	needProgram(t, "xterm")
	term, _, _ := h.launch(map[string]any{"path": "xterm", "arguments": []string{"-T", "mcec pixels"}, "timeout": 10000})
	h.ok("focus", map[string]any{"pid": term.ProcessID}, nil)
	r = withEffect{}
	env = h.ok("send_command", map[string]any{"command": "chars:echo pixels"}, &r)
	if r.Effect == nil || r.Effect.Pixels == nil || warned(env, contract.WarnNoObservedEffect) || warned(env, contract.WarnEffectUnobservable) {
		t.Fatalf("typing into xterm: effect %+v, warnings %v", r.Effect, env.Warnings())
	}
}

// TestEnterClosesFileChooser: Enter in zenity's GTK save file chooser closes it once the chooser
// has looked at the file (≈ 620 ms here), which the default settle must see rather than warn
// no-observed-effect.
func TestEnterClosesFileChooser(t *testing.T) {
	h := newHarness(t)
	p := testdesk.Start(t, "zenity", "--file-selection", "--save", "--filename="+filepath.Join(t.TempDir(), "note.txt"))
	handle := testdesk.WaitWindow(t, p.PID, 20*time.Second)
	testdesk.WaitAccessible(t, p.PID, 20*time.Second)
	h.ok("window", map[string]any{"handle": handle, "action": "foreground"}, nil)
	var r withEffect
	env := h.ok("send_command", map[string]any{"command": "enter"}, &r)
	if warned(env, contract.WarnNoObservedEffect) || r.Effect == nil ||
		!slices.ContainsFunc(r.Effect.WindowsClosed, func(w struct {
			Handle uint32 `json:"handle"`
		}) bool {
			return w.Handle == handle
		}) {
		t.Fatalf("Enter in the file chooser: effect %+v, warnings %v; want the chooser closed", r.Effect, env.Warnings())
	}
}
