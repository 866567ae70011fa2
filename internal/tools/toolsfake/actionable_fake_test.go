package toolsfake_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/platform/fake"
	"github.com/mcec/mcec/internal/testdesk"
)

// An action whose element is still being laid out when it arrives (a page filling its tree after
// load) looks again on the application's events for a moment; a real miss fails after that and
// says how long it looked.
func TestActionsWaitBrieflyForTheirElement(t *testing.T) {
	a := newApp(t)
	t.Run("an element that appears just after the call", func(t *testing.T) {
		ch := callAsync(a, "click", map[string]any{"handle": a.win, "at": map[string]any{"name": "Late"}})
		testdesk.WaitFor(t, 10*time.Second, "the click never watched the application", func() bool { return a.Fake.TreeWatches(pid) > 0 })
		if _, err := a.Fake.AddChild(a.Fake.Ref(a.win, "Form"), &fake.Elem{Role: "push button", Name: "Late", Bounds: rect(200, 40, 80, 24)}); err != nil {
			t.Fatal(err)
		}
		env := receive(t, ch)
		if !env.OK() {
			t.Fatalf("click of an element that appeared: %+v", env.Err())
		}
	})
	t.Run("a real miss costs about a second and says so", func(t *testing.T) {
		start := time.Now()
		env := a.Call(t, "invoke", map[string]any{"handle": a.win, "element": map[string]any{"name": "Never"}})
		fails(t, env, contract.NoTarget, contract.CodeElementNotFound)
		if d := env.Err().Detail; !strings.Contains(d, "looked for 1s") {
			t.Errorf("detail %q", d)
		}
		if el := time.Since(start); el < 900*time.Millisecond {
			t.Errorf("gave up after %v", el)
		}
	})
	t.Run("a found element is acted on at once", func(t *testing.T) {
		start := time.Now()
		a.OK(t, "invoke", map[string]any{"handle": a.win, "element": map[string]any{"name": "Apply"}}, nil)
		if el := time.Since(start); el > 900*time.Millisecond {
			t.Errorf("took %v", el)
		}
	})
}

// A dialog's button that is insensitive for a moment (a file chooser checking the typed path)
// is invoked once it is enabled, not refused.
func TestInvokeWaitsBrieflyForAControlToBeEnabled(t *testing.T) {
	a := newApp(t)
	ref, err := a.Fake.AddChild(a.Fake.Ref(a.win, "Form"), &fake.Elem{Role: "push button", Name: "Save", Bounds: rect(200, 40, 80, 24),
		Actions: []string{"click"}, Disabled: true})
	if err != nil {
		t.Fatal(err)
	}
	ch := callAsync(a, "invoke", map[string]any{"handle": a.win, "element": map[string]any{"name": "Save"}, "via": "accessibility"})
	testdesk.WaitFor(t, 10*time.Second, "the invoke never watched the application", func() bool { return a.Fake.TreeWatches(pid) > 0 })
	for _, st := range []string{"enabled", "sensitive"} {
		if err := a.Fake.SetState(ref, st, true); err != nil {
			t.Fatal(err)
		}
	}
	if env := receive(t, ch); !env.OK() {
		t.Fatalf("invoke of a button enabled just after the call: %+v", env.Err())
	}
}
