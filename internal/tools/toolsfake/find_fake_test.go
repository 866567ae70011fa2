package toolsfake_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/fake"
	"github.com/mcec/mcec/internal/testdesk"
)

type findResult struct {
	Found   bool `json:"found"`
	Element *struct {
		Ref  string `json:"ref"`
		Name string `json:"name"`
		Role string `json:"role"`
	} `json:"element"`
	Path   []string `json:"path"`
	Waited *struct {
		Checks       int `json:"checks"`
		EventWakeups int `json:"eventWakeups"`
	} `json:"waited"`
}

func TestFind(t *testing.T) {
	a := newApp(t)
	t.Run("one match, with its path", func(t *testing.T) {
		var res findResult
		a.OK(t, "find", map[string]any{"pid": pid, "element": map[string]any{"name": "Apply"}}, &res)
		if !res.Found || res.Element == nil || res.Element.Role != "push button" || res.Element.Ref != a.Fake.Ref(a.win, "Apply") {
			t.Fatalf("result %+v", res)
		}
		if len(res.Path) != 1 || res.Path[0] != `frame "Form"` {
			t.Errorf("path %q, want the frame alone (the unnamed panel is layout)", res.Path)
		}
	})
	t.Run("a miss is ok, not found", func(t *testing.T) {
		var res findResult
		a.OK(t, "find", map[string]any{"pid": pid, "element": map[string]any{"name": "Nowhere"}}, &res)
		if res.Found || res.Element != nil {
			t.Errorf("result %+v, want found false", res)
		}
	})
	t.Run("two matches are ambiguous", func(t *testing.T) {
		if _, err := a.Fake.AddChild(a.Fake.Ref(a.win, "Form"), &fake.Elem{Role: "push button", Name: "Apply", Bounds: rect(10, 200, 80, 24)}); err != nil {
			t.Fatal(err)
		}
		env := a.Call(t, "find", map[string]any{"pid": pid, "element": map[string]any{"name": "Apply"}})
		fails(t, env, contract.AmbiguousSelector, contract.SelectorMatched(2))
		var one findResult
		a.OK(t, "find", map[string]any{"pid": pid, "element": map[string]any{"name": "Apply", "index": 1}}, &one)
		if !one.Found {
			t.Errorf("index 1 of two matches: %+v", one)
		}
	})
	t.Run("windows with one title are ambiguous", func(t *testing.T) {
		a.Fake.AddWindow(fake.WindowSpec{Title: "Form", PID: pid + 1, ProcessName: "other", Bounds: platform.Rect{X: 600, Y: 100, Width: 100, Height: 100}, Background: true})
		env := a.Call(t, "find", map[string]any{"window": "Form", "element": map[string]any{"name": "Apply"}})
		fails(t, env, contract.AmbiguousSelector, contract.SelectorMatched(2))
		if !strings.Contains(env.Err().Detail, "refine") {
			t.Errorf("detail %q does not say how to refine", env.Err().Detail)
		}
	})
	t.Run("a stale ref", func(t *testing.T) {
		ref := a.Fake.Ref(a.win, "Inert")
		if err := a.Fake.Remove(ref); err != nil {
			t.Fatal(err)
		}
		env := a.Call(t, "find", map[string]any{"element": map[string]any{"ref": ref}})
		fails(t, env, contract.StaleElement, contract.CodeElementStale)
	})
	t.Run("a malformed ref", func(t *testing.T) {
		env := a.Call(t, "find", map[string]any{"element": map[string]any{"ref": "nonsense"}})
		fails(t, env, contract.InvalidArgument, contract.CodeBadArguments)
	})
}

// callAsync runs a tool off the test goroutine; the envelope is checked when it arrives.
func callAsync(a *app, tool string, args any) <-chan contract.Envelope {
	out := make(chan contract.Envelope, 1)
	go func() {
		env, _ := a.CallErr(tool, args)
		out <- env
	}()
	return out
}

func receive(t *testing.T, ch <-chan contract.Envelope) contract.Envelope {
	t.Helper()
	select {
	case env := <-ch:
		return contracttest.Check(t, contracttest.CheckEnvelope(t, env))
	case <-time.After(30 * time.Second):
		t.Fatal("the call did not return")
	}
	return contract.Envelope{}
}

func TestWaitFor(t *testing.T) {
	a := newApp(t)
	t.Run("appears, woken by the tree's event", func(t *testing.T) {
		ch := callAsync(a, "wait-for", map[string]any{"pid": pid, "element": map[string]any{"name": "Later"}, "timeout": 20000})
		testdesk.WaitFor(t, 10*time.Second, "wait-for never watched the tree", func() bool { return a.Fake.TreeWatches(pid) > 0 })
		if _, err := a.Fake.AddChild(a.Fake.Ref(a.win, "Form"), &fake.Elem{Role: "push button", Name: "Later", Bounds: rect(10, 200, 80, 24)}); err != nil {
			t.Fatal(err)
		}
		var res findResult
		env := receive(t, ch)
		if err := env.DecodeResult(&res); err != nil || !env.OK() {
			t.Fatalf("%v %+v", err, env.Err())
		}
		if !res.Found || res.Element.Name != "Later" || res.Waited == nil || res.Waited.EventWakeups < 1 {
			t.Errorf("result %+v (waited %+v), want found after an event", res, res.Waited)
		}
	})
	t.Run("disappears", func(t *testing.T) {
		ch := callAsync(a, "wait-for", map[string]any{"pid": pid, "element": map[string]any{"name": "Later"}, "condition": "disappears", "timeout": 20000})
		testdesk.WaitFor(t, 10*time.Second, "wait-for never watched the tree", func() bool { return a.Fake.TreeWatches(pid) > 0 })
		if err := a.Fake.Remove(a.Fake.Ref(a.win, "Later")); err != nil {
			t.Fatal(err)
		}
		if env := receive(t, ch); !env.OK() {
			t.Fatalf("disappears: %+v", env.Err())
		}
	})
	t.Run("a timeout says what it last saw", func(t *testing.T) {
		env := a.Call(t, "wait-for", map[string]any{"pid": pid, "element": map[string]any{"name": "Never"}, "timeout": 50})
		fails(t, env, contract.Timeout, contract.CodeWaitConditionTimeout)
	})
	t.Run("the window may appear during the wait", func(t *testing.T) {
		ch := callAsync(a, "wait-for", map[string]any{"window": "Settings", "element": map[string]any{"name": "Close"}, "timeout": 20000})
		testdesk.WaitFor(t, 10*time.Second, "wait-for never watched the windows", func() bool { return a.Fake.WindowWatches() > 0 })
		a.Fake.AddWindow(fake.WindowSpec{Title: "Settings", PID: pid, ProcessName: "form", TransientFor: a.win, Type: "dialog",
			Bounds: platform.Rect{X: 150, Y: 150, Width: 200, Height: 100},
			Root:   &fake.Elem{Role: "dialog", Name: "Settings", Children: []*fake.Elem{{Role: "push button", Name: "Close", Bounds: rect(10, 10, 60, 24)}}}})
		var res findResult
		env := receive(t, ch)
		if err := env.DecodeResult(&res); err != nil || !env.OK() || !res.Found {
			t.Fatalf("%v %+v %+v", err, env.Err(), res)
		}
	})
	t.Run("a hung application costs one deadline", func(t *testing.T) {
		a.Fake.Hang(pid, true)
		defer a.Fake.Hang(pid, false)
		env := a.Call(t, "find", map[string]any{"handle": a.win, "element": map[string]any{"name": "Apply"}})
		if env.OK() || env.Err().Category != contract.Timeout {
			t.Fatalf("find on a hung application: %+v", env.Err())
		}
		var ws struct{ Count int }
		a.OK(t, "windows", map[string]any{}, &ws)
		if ws.Count < 1 {
			t.Errorf("windows after a hung call: %+v", ws)
		}
	})
	// A reach run saw "among 0 nodes of window 0" when the only attempt of a wait on a slow
	// LibreOffice was cut by the timeout: it must say that no attempt finished instead.
	t.Run("a wait whose every attempt the timeout cut says so", func(t *testing.T) {
		a.Fake.Hang(pid, true)
		defer a.Fake.Hang(pid, false)
		env := a.Call(t, "wait-for", map[string]any{"handle": a.win, "element": map[string]any{"name": "Apply"}, "timeout": 300})
		fails(t, env, contract.Timeout, contract.CodeWaitConditionTimeout)
		if d := env.Err().Detail; !strings.Contains(d, "no attempt finished") || strings.Contains(d, "window 0") {
			t.Errorf("detail %q", d)
		}
	})
}
