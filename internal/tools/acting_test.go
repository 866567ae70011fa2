package tools_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/testdesk"
)

type invokeRes struct {
	Invoked      bool  `json:"invoked"`
	ModalPending bool  `json:"modalPending"`
	Element      *node `json:"element"`
}

// assertNothingHeld fails when a test left a key or button down.
func assertNothingHeld(t *testing.T, h *harness) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	held, err := h.d.Desktop.Input().Held(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(held) > 0 {
		t.Fatalf("keys or buttons left held: %v", held)
	}
}

// findOne returns the element sel names in the window of pid, failing the test on a miss.
func (h *harness) findOne(pid int, sel map[string]any) *node {
	h.t.Helper()
	var r findRes
	h.ok("find", map[string]any{"pid": pid, "element": sel}, &r)
	if !r.Found {
		h.t.Fatalf("no element %v", sel)
	}
	return r.Element
}

// usable returns sel narrowed by index to the first match that is enabled and showing, in the
// order the server counts index in: shown matches first, breadth-first (the factory shows
// disabled twins of most widgets).
func (h *harness) usable(pid int, sel map[string]any) map[string]any {
	h.t.Helper()
	var q struct{ Tree *node }
	h.ok("query", map[string]any{"pid": pid, "maxDepth": 64, "maxNodes": 20000}, &q)
	matches := func(n *node) bool {
		for k, v := range sel {
			switch k {
			case "name":
				if n.Name != v {
					return false
				}
			case "role":
				if n.Role != v && n.ControlType != v {
					return false
				}
			case "text":
				if n.Value == nil || *n.Value != v {
					return false
				}
			}
		}
		return true
	}
	i := 0
	for queue := []*node{q.Tree}; len(queue) > 0; queue = queue[1:] {
		n := queue[0]
		queue = append(queue, n.Children...)
		if !matches(n) {
			continue
		}
		if n.IsEnabled && !n.IsOffscreen && n.X != nil && n.ToggleState != "indeterminate" {
			out := map[string]any{"index": i}
			for k, v := range sel {
				out[k] = v
			}
			return out
		}
		if !n.IsOffscreen {
			i++ // hidden matches are counted after every shown one
		}
	}
	h.t.Fatalf("no enabled, showing element matches %v", sel)
	return nil
}

// TestActingOnWidgetFactory is the multi-step task of the acting issue, every step verified by a
// fresh observation.
func TestActingOnWidgetFactory(t *testing.T) {
	h := newHarness(t)
	p := startFactory(t)
	defer assertNothingHeld(t, h)
	at := func(sel map[string]any) map[string]any { return map[string]any{"pid": p.PID, "element": sel} }
	act := func(sel map[string]any, action string, extra map[string]any) invokeRes {
		t.Helper()
		args := at(sel)
		args["action"] = action
		for k, v := range extra {
			args[k] = v
		}
		var r invokeRes
		h.ok("invoke", args, &r)
		if !r.Invoked || r.ModalPending {
			t.Fatalf("invoke %s %v: %+v", action, sel, r)
		}
		return r
	}

	t.Run("type into an entry", func(t *testing.T) {
		h.t = t
		act(h.usable(p.PID, map[string]any{"role": "text", "text": "entry"}), "setvalue", map[string]any{"text": "typed by mcec"})
		if n := h.findOne(p.PID, map[string]any{"role": "text", "text": "typed by mcec"}); n == nil {
			t.Fatal("the entry does not read back the text")
		}
	})
	t.Run("wait for part of a value", func(t *testing.T) {
		h.t = t
		entry := h.findOne(p.PID, map[string]any{"role": "text", "text": "typed by mcec"})
		if entry == nil {
			t.Fatal("no entry holding the typed text")
		}
		sel := map[string]any{"ref": entry.Ref}
		h.ok("wait-for", map[string]any{"element": sel, "condition": "contains", "text": "by mc", "timeout": 2000}, nil)
		e := contracttest.Fail(t, h.call("wait-for", map[string]any{"element": sel, "condition": "contains", "text": "absent", "timeout": 300}),
			contract.Timeout, contract.CodeWaitConditionTimeout)
		if !strings.Contains(e.Detail, `did not come to hold "absent"`) {
			t.Errorf("the timeout does not say what was waited for: %s", e.Detail)
		}
		contracttest.Fail(t, h.call("wait-for", map[string]any{"element": sel, "condition": "contains"}),
			contract.InvalidArgument, contract.CodeBadArguments)
	})
	t.Run("toggle with invoke and with click", func(t *testing.T) {
		h.t = t
		sel := h.usable(p.PID, map[string]any{"name": "checkbutton"})
		before := h.findOne(p.PID, sel).ToggleState
		act(sel, "toggle", nil)
		mid := h.findOne(p.PID, sel).ToggleState
		if mid == before {
			t.Fatalf("toggle left the state %q", mid)
		}
		h.ok("click", map[string]any{"pid": p.PID, "at": sel}, nil)
		var after string
		testdesk.WaitFor(t, 5*time.Second, "click did not toggle the check button back", func() bool {
			after = h.findOne(p.PID, sel).ToggleState
			return after == before
		})
	})
	t.Run("select a stack page and a notebook tab", func(t *testing.T) {
		h.t = t
		act(map[string]any{"name": "Page 2", "role": "radio button"}, "select", nil)
		testdesk.WaitFor(t, 5*time.Second, "Page 2 is not checked", func() bool {
			return h.findOne(p.PID, map[string]any{"name": "Page 2", "role": "radio button"}).ToggleState == "on"
		})
		act(map[string]any{"name": "Page 1", "role": "radio button"}, "select", nil)
		tab := map[string]any{"name": "page 2", "role": "page tab", "index": 0}
		act(tab, "select", nil)
		if n := h.findOne(p.PID, tab); n.IsSelected == nil || !*n.IsSelected {
			t.Fatalf("notebook tab not selected: %+v", n)
		}
	})
	t.Run("slider by value and by drag", func(t *testing.T) {
		h.t = t
		// A 0-100 slider, followed by ref since its value (part of the selector) will change.
		slider := map[string]any{"ref": h.findOne(p.PID, h.usable(p.PID, map[string]any{"role": "slider", "text": "50"})).Ref}
		act(slider, "setvalue", map[string]any{"text": "75"})
		n := h.findOne(p.PID, slider)
		if n.Value == nil || *n.Value != "75" {
			t.Fatalf("slider value %v after setvalue 75", n.Value)
		}
		act(slider, "setvalue", map[string]any{"text": "50"})
		n = h.findOne(p.PID, slider)
		if n.X == nil {
			t.Fatal("slider has no bounds")
		}
		cx, cy := *n.X+*n.Width/2, *n.Y+*n.Height/2
		horizontal := *n.Width > *n.Height
		to := map[string]any{"x": cx, "y": cy - 40}
		if horizontal {
			to = map[string]any{"x": cx + 40, "y": cy}
		}
		h.ok("drag", map[string]any{"from": map[string]any{"x": cx, "y": cy}, "to": to}, nil)
		testdesk.WaitFor(t, 5*time.Second, "dragging the slider did not change its value", func() bool {
			v := h.findOne(p.PID, slider).Value
			f, err := strconv.ParseFloat(*v, 64)
			return err == nil && f != 50
		})
	})
	t.Run("unsupported and unknown actions", func(t *testing.T) {
		h.t = t
		contracttest.Fail(t, h.call("invoke", map[string]any{"pid": p.PID, "element": map[string]any{"name": "Page 2"}, "action": "smash"}),
			contract.InvalidArgument, contract.CodeActionUnknown)
		contracttest.Fail(t, h.call("invoke", map[string]any{"pid": p.PID, "element": map[string]any{"name": "Page 2"}, "action": "setvalue", "text": "x"}),
			contract.InvalidArgument, contract.CodePatternUnsupported)
		contracttest.Fail(t, h.call("invoke", map[string]any{"pid": p.PID, "element": map[string]any{"name": "not there"}}),
			contract.NoTarget, contract.CodeElementNotFound)
		contracttest.Fail(t, h.call("invoke", map[string]any{"pid": p.PID, "element": h.usable(p.PID, map[string]any{"role": "slider"}), "action": "setvalue", "text": "lots"}),
			contract.InvalidArgument, contract.CodeBadArguments)
	})
}

func TestDialogsAndClipboard(t *testing.T) {
	h := newHarness(t)
	app := startTestApp(t)
	defer assertNothingHeld(t, h)

	t.Run("open and dismiss a dialog", func(t *testing.T) {
		h.t = t
		var r invokeRes
		h.ok("invoke", map[string]any{"pid": app.PID, "element": map[string]any{"name": "Open dialog"}}, &r)
		var w findRes
		h.ok("wait-for", map[string]any{"window": "mcec test dialog", "element": map[string]any{"name": "Close"}}, &w)
		h.ok("invoke", map[string]any{"element": map[string]any{"ref": w.Element.Ref}}, nil)
		var gone struct{ Satisfied bool }
		h.ok("windows", map[string]any{"window": "mcec test dialog", "condition": "disappears", "timeout": 5000}, &gone)
		if !gone.Satisfied {
			t.Fatal("the dialog did not close")
		}
	})
	t.Run("modal dialog returns modalPending", func(t *testing.T) {
		h.t = t
		start := time.Now()
		var r invokeRes
		h.ok("invoke", map[string]any{"pid": app.PID, "element": map[string]any{"name": "Modal"}}, &r)
		if !r.ModalPending {
			t.Fatalf("no modalPending: %+v", r)
		}
		if el := time.Since(start); el > 3*time.Second {
			t.Errorf("invoke took %v with a modal dialog", el)
		}
		// The server stays usable: the dialog is found as a window, and closed with real input on
		// its OK button, which spans the dialog's bottom edge (keys do not reach a dialog whose
		// nested loop runs inside an accessibility call; clicks do).
		var dlg struct {
			Satisfied bool
			Windows   []window
		}
		h.ok("windows", map[string]any{"window": "mcec modal dialog", "condition": "appears", "timeout": 5000}, &dlg)
		if !dlg.Satisfied {
			t.Fatal("the modal dialog never appeared")
		}
		d := dlg.Windows[0]
		h.ok("click", map[string]any{"handle": d.Handle, "at": map[string]any{"x": d.Width / 2, "y": d.Height - 15}}, nil)
		h.ok("windows", map[string]any{"window": "mcec modal dialog", "condition": "disappears", "timeout": 5000}, &dlg)
		if !dlg.Satisfied {
			t.Fatal("clicking OK did not close the modal dialog")
		}
		h.findOne(app.PID, map[string]any{"name": "Modal"}) // the app answers again
	})
	t.Run("copy through the clipboard, paste with a chord", func(t *testing.T) {
		h.t = t
		var set struct {
			Set    bool
			Length int
		}
		h.ok("clipboard", map[string]any{"action": "set", "text": "pasté ✓"}, &set)
		if !set.Set || set.Length != 7 {
			t.Fatalf("set: %+v", set)
		}
		var got struct{ Text string }
		h.ok("clipboard", map[string]any{"action": "get"}, &got)
		if got.Text != "pasté ✓" {
			t.Fatalf("get %q", got.Text)
		}
		entry := map[string]any{"role": "text", "index": 0}
		h.ok("focus", map[string]any{"pid": app.PID, "at": entry}, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		in := h.d.Desktop.Input()
		if err := in.Chord(ctx, "Control_L", "a"); err != nil {
			t.Fatal(err)
		}
		if err := in.Chord(ctx, "Control_L", "v"); err != nil {
			t.Fatal(err)
		}
		testdesk.WaitFor(t, 5*time.Second, "the entry did not receive the pasted text", func() bool {
			n := h.findOne(app.PID, entry)
			return n.Value != nil && *n.Value == "pasté ✓"
		})
		contracttest.Fail(t, h.call("clipboard", map[string]any{"action": "set"}), contract.InvalidArgument, contract.CodeClipboardTextMissing)
		contracttest.Fail(t, h.call("clipboard", map[string]any{"action": "cut"}), contract.InvalidArgument, contract.CodeActionUnknown)
	})
}

func TestLaunchFocusAndWindow(t *testing.T) {
	h := newHarness(t)
	defer assertNothingHeld(t, h)
	var l struct {
		ProcessID          int    `json:"processId"`
		ProcessName        string `json:"processName"`
		Handle             uint32 `json:"handle"`
		StartedNewProcess  bool   `json:"startedNewProcess"`
		AttachedToExisting bool   `json:"attachedToExisting"`
	}
	h.ok("launch", map[string]any{"path": "gtk3-demo", "timeout": 20000}, &l)
	if !l.StartedNewProcess || l.AttachedToExisting || l.Handle == 0 || l.ProcessName != "gtk3-demo" {
		t.Fatalf("launch gtk3-demo: %+v", l)
	}
	t.Cleanup(func() { testdesk.Kill(t, l.ProcessID) })

	// gtk3-demo-application is a single-instance GtkApplication: a second launch hands off to
	// the running one (which opens another window) and exits.
	type launched struct {
		ProcessID          int    `json:"processId"`
		Handle             uint32 `json:"handle"`
		StartedNewProcess  bool   `json:"startedNewProcess"`
		AttachedToExisting bool   `json:"attachedToExisting"`
	}
	var first, again launched
	h.ok("launch", map[string]any{"path": "gtk3-demo-application", "timeout": 20000}, &first)
	t.Cleanup(func() { testdesk.Kill(t, first.ProcessID) })
	h.ok("launch", map[string]any{"path": "gtk3-demo-application", "timeout": 20000}, &again)
	if !first.StartedNewProcess || again.StartedNewProcess || !again.AttachedToExisting ||
		again.ProcessID != first.ProcessID || again.Handle == 0 || again.Handle == first.Handle {
		t.Errorf("launches of a single-instance app: first %+v, second %+v", first, again)
	}
	contracttest.Fail(t, h.call("launch", map[string]any{"path": "/no/such/program"}), contract.InvalidArgument, contract.CodeLaunchPathMissing)
	contracttest.Fail(t, h.call("launch", map[string]any{"path": "gtk3-demo --help"}), contract.InvalidArgument, contract.CodeLaunchPathMissing)

	// A second window on top, then focus brings gtk3-demo back and verifies it.
	other := testdesk.SolidWindow(t, "mcec cover", 0x884422, 400, 300)
	h.ok("focus", map[string]any{"handle": other}, nil)
	var f struct {
		Focused bool
		Window  window
	}
	h.ok("focus", map[string]any{"handle": l.Handle}, &f)
	if !f.Focused || !contains(f.Window.State, "focused") {
		t.Fatalf("focus: %+v", f)
	}

	var w struct{ Window window }
	h.ok("window", map[string]any{"handle": l.Handle, "action": "move", "x": 50, "y": 60}, &w)
	if abs(w.Window.X-50) > 1 || abs(w.Window.Y-60) > 1 {
		t.Errorf("move: %+v", w.Window)
	}
	h.ok("window", map[string]any{"handle": l.Handle, "action": "resize", "width": 500, "height": 400, "animate": true}, &w)
	if abs(w.Window.Width-500) > 1 || abs(w.Window.Height-400) > 1 {
		t.Errorf("resize: %+v", w.Window)
	}
	for _, tc := range []struct{ action, state string }{{"maximize", "maximized"}, {"restore", "normal"}, {"minimize", "minimized"}, {"restore", "normal"}} {
		h.ok("window", map[string]any{"handle": l.Handle, "action": tc.action}, &w)
		if !contains(w.Window.State, tc.state) {
			t.Errorf("%s: state %v", tc.action, w.Window.State)
		}
	}
	contracttest.Fail(t, h.call("window", map[string]any{"handle": l.Handle, "action": "move"}), contract.InvalidArgument, contract.CodeBadArguments)
	contracttest.Fail(t, h.call("window", map[string]any{"handle": l.Handle, "action": "spin"}), contract.InvalidArgument, contract.CodeActionUnknown)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
