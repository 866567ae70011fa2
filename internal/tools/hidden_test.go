package tools_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/testdesk"
)

// TestHiddenElements is issue 27's on-screen truth, on GTK 4, which reports the widgets of a
// hidden stack page and of an unrevealed revealer as visible with 0×0 extents: they are offscreen
// without bounds, index counts the shown "Close" first though the hidden one comes first in the
// tree, the ambiguity error marks the hidden candidate, and acting on the hidden one warns.
func TestHiddenElements(t *testing.T) {
	h := newHarness(t)
	p := testdesk.Start(t, "/usr/bin/python3", "testdata/hidden4.py")
	testdesk.WaitWindow(t, p.PID, 20*time.Second)
	testdesk.WaitAccessible(t, p.PID, 20*time.Second)
	defer assertNothingHeld(t, h)

	var q struct{ Tree *node }
	h.ok("query", map[string]any{"pid": p.PID}, &q)
	var closes []*node
	q.Tree.walk(func(n *node) {
		switch {
		case n.Name == "Could Not Open File" && (!n.IsOffscreen || n.Width != nil):
			t.Errorf("the unrevealed label is reported shown: %+v", n)
		case n.Name == "Close" && n.Role == "push button":
			closes = append(closes, n)
		}
	})
	if len(closes) != 2 || !closes[0].IsOffscreen || closes[0].X != nil || closes[1].IsOffscreen || closes[1].X == nil {
		t.Fatalf("want the hidden page's Close offscreen without bounds, then the shown one with bounds; got %+v", closes)
	}
	hidden, shownRef := closes[0].Ref, closes[1].Ref

	closeSel := map[string]any{"name": "Close", "role": "push button"}
	env := h.call("find", map[string]any{"pid": p.PID, "element": closeSel})
	if e := env.Err(); e == nil || e.Code != contract.SelectorMatched(2) ||
		!strings.Contains(e.Detail, "[1 ref="+hidden) || !strings.Contains(e.Detail, " hidden]") || strings.Count(e.Detail, " hidden]") != 1 {
		t.Errorf("ambiguity error should list the shown Close first and mark the hidden one: %+v", env)
	}
	var r findRes
	h.ok("find", map[string]any{"pid": p.PID, "element": map[string]any{"name": "Close", "role": "push button", "index": 0}}, &r)
	if !r.Found || r.Element.Ref != shownRef {
		t.Errorf("index 0 picked %+v, want the shown Close %s", r.Element, shownRef)
	}
	h.act(p.PID, map[string]any{"name": "Close", "index": 0, "role": "push button"}, "invoke", "", nil)
	h.waitNamed(p.PID, "Status: closed shown")

	env = h.call("invoke", map[string]any{"element": map[string]any{"ref": hidden}, "via": "accessibility"})
	if !env.OK() || !hasWarning(env, contract.WarnElementHidden) {
		t.Errorf("invoke on the hidden Close should succeed with element-hidden: %+v", env)
	}
}

func hasWarning(env contract.Envelope, code contract.Code) bool {
	for _, w := range env.Warnings() {
		if w.Code == code {
			return true
		}
	}
	return false
}
