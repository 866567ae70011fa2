package toolsfake_test

import (
	"testing"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/tools"
)

type invokeResult struct {
	Invoked bool          `json:"invoked"`
	Via     string        `json:"via"`
	Effect  *tools.Effect `json:"effect"`
}

// An invoke that renames a label reports that change as its effect, through either path.
func TestInvokeReportsEffect(t *testing.T) {
	for _, via := range []string{"input", "accessibility"} {
		t.Run(via, func(t *testing.T) {
			a := newApp(t)
			var res invokeResult
			env := a.OK(t, "invoke", map[string]any{"pid": pid, "element": map[string]any{"name": "Apply"}, "via": via, "settle": 200}, &res)
			if !res.Invoked || res.Via != via || res.Effect == nil {
				t.Fatalf("result %+v", res)
			}
			if contracttest.HasWarning(env, contract.WarnNoObservedEffect) {
				t.Errorf("warned %s although the label changed", contract.WarnNoObservedEffect)
			}
			found := false
			for _, c := range res.Effect.Changed {
				if c.Name == "Status: applied" && c.Was != nil && c.Was.Name != nil && *c.Was.Name == "Status: idle" {
					found = true
				}
			}
			if !found {
				t.Errorf("effect %+v does not report the label's rename", res.Effect)
			}
			clicks := 0
			for _, g := range a.Fake.Gestures() {
				if g.Kind == "click" {
					clicks++
				}
			}
			if want := map[string]int{"input": 1, "accessibility": 0}[via]; clicks != want {
				t.Errorf("%d clicks via %s, want %d", clicks, via, want)
			}
		})
	}
}

// An invoke that changes nothing is still ok, and warns that no effect was observed.
func TestInvokeWithoutEffectWarns(t *testing.T) {
	a := newApp(t)
	var res invokeResult
	env := a.OK(t, "invoke", map[string]any{"pid": pid, "element": map[string]any{"name": "Inert"}, "settle": 100}, &res)
	if !contracttest.HasWarning(env, contract.WarnNoObservedEffect) {
		t.Errorf("no %s warning; effect %+v", contract.WarnNoObservedEffect, res.Effect)
	}
	if !res.Invoked || res.Effect == nil || len(res.Effect.Changed) != 0 || res.Effect.Target != nil {
		t.Errorf("result %+v, effect %+v: want invoked, nothing changed", res, res.Effect)
	}
}

// Typing through invoke setvalue reports the target's new value.
func TestSetValueReportsTarget(t *testing.T) {
	a := newApp(t)
	var res invokeResult
	env := a.OK(t, "invoke", map[string]any{"pid": pid, "element": map[string]any{"name": "Note"}, "action": "setvalue",
		"text": "world", "settle": 100}, &res)
	if contracttest.HasWarning(env, contract.WarnNoObservedEffect) {
		t.Errorf("warned no effect for a value that changed")
	}
	n, _ := a.Fake.Node(a.Fake.Ref(a.win, "Note"))
	if n.Value == nil || *n.Value != "world" {
		t.Fatalf("the field reads %v after setvalue", n.Value)
	}
	if tg := res.Effect.Target; tg == nil || tg.Value == nil || *tg.Value != "world" {
		t.Errorf("effect target %+v, want the new value", res.Effect.Target)
	}
}

// An application that answers a setvalue after the backend's grace but answers the read-back
// was only slow: the value is verified and no modal is reported pending.
func TestSlowApplicationIsNotModal(t *testing.T) {
	type result struct {
		invokeResult
		ModalPending bool  `json:"modalPending"`
		Verified     *bool `json:"verified"`
	}
	a := newApp(t)
	a.Fake.SlowActs(pid, true)
	var res result
	env := a.OK(t, "invoke", map[string]any{"pid": pid, "element": map[string]any{"name": "Note"}, "action": "setvalue",
		"text": "slow", "via": "accessibility", "settle": 100}, &res)
	if res.ModalPending || res.Verified == nil || !*res.Verified {
		t.Errorf("setvalue on a slow application: modalPending %v, verified %v; want false, true", res.ModalPending, res.Verified)
	}
	if contracttest.HasWarning(env, contract.WarnNoObservedEffect) {
		t.Errorf("warned no effect for a value that changed")
	}
}
