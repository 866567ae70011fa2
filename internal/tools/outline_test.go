package tools_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/testdesk"
)

type queryOut struct {
	NodeCount int    `json:"nodeCount"`
	Format    string `json:"format"`
	Sent      string `json:"sent"`
	Tree      *node  `json:"tree"`
	Outline   string `json:"outline"`
	Diff      *struct {
		Added, Changed, Removed []string
		ChangedNodes            []*node `json:"changedNodes"`
	} `json:"diff"`
}

var outlineRef = regexp.MustCompile(`^\s*(\S+:\S+) `)

// TestOutlineDiffAndSubtree: the outline shows the same nodes as the JSON tree (refs, names,
// values), less only the wrappers the rules collapse; since:"last" sends only what changed; a
// query by ref walks just that subtree.
func TestOutlineDiffAndSubtree(t *testing.T) {
	h := newHarness(t)
	p := testdesk.Start(t, "/usr/bin/python3", "testdata/effects.py")
	handle := testdesk.WaitWindow(t, p.PID, 20*time.Second)
	testdesk.WaitAccessible(t, p.PID, 20*time.Second)
	win := map[string]any{"handle": handle}

	var js, ol queryOut
	h.ok("query", win, &js)
	h.ok("query", map[string]any{"handle": handle, "format": "outline"}, &ol)
	if js.Format != "json" || js.Tree == nil || ol.Format != "outline" || ol.Tree != nil || ol.Outline == "" {
		t.Fatalf("formats: json %q tree %v, outline %q tree %v", js.Format, js.Tree != nil, ol.Format, ol.Tree != nil)
	}
	refs := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(ol.Outline), "\n") {
		m := outlineRef.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("outline line without a ref: %q", line)
		}
		refs[m[1]] = true
	}
	// Every node shows but unnamed layout containers and separators (left out by rule), what
	// lies inside a hidden subtree (its top's line names it) and hidden leaves (their parent's
	// line names them).
	var visit func(n *node, inHidden bool)
	visit = func(n *node, inHidden bool) {
		omitted := n.Role == "separator" || n.Name == "" && (n.Value == nil || *n.Value == "") && layoutRoles[n.Role]
		if !omitted && !refs[n.Ref] && n.IsOffscreen && len(n.Children) == 0 {
			inHidden = true // a hidden leaf: its parent's line names it
		}
		if !refs[n.Ref] && !omitted && !inHidden {
			t.Errorf("%s %s %q is in the JSON tree but not in the outline", n.Ref, n.Role, n.Name)
		}
		if refs[n.Ref] && n.Name != "" && !strings.Contains(ol.Outline, n.Ref+" "+n.Role+" \""+n.Name+"\"") {
			t.Errorf("the outline does not show %s %q", n.Role, n.Name)
		}
		if n.Value != nil && *n.Value != "" && *n.Value != n.Name && !inHidden && !strings.Contains(ol.Outline, "= \""+*n.Value+"\"") {
			t.Errorf("the outline does not show %s's value %q", n.Ref, *n.Value)
		}
		if inHidden && n.Name != "" && !strings.Contains(ol.Outline, "\""+n.Name+"\"") {
			t.Errorf("the outline does not name %s %q of a hidden subtree", n.Role, n.Name)
		}
		for _, k := range n.Children {
			visit(k, inHidden || (refs[n.Ref] && n.IsOffscreen && len(n.Children) > 0))
		}
	}
	visit(js.Tree, false)
	if len(ol.Outline) >= len(mustJSON(t, js.Tree))/2 {
		t.Errorf("the outline (%d bytes) is not much smaller than the JSON tree (%d)", len(ol.Outline), len(mustJSON(t, js.Tree)))
	}

	var same queryOut
	h.ok("query", map[string]any{"handle": handle, "format": "outline", "since": "last"}, &same)
	if same.Sent != "unchanged" || same.Outline != "" || same.Diff != nil {
		t.Fatalf("an unchanged window: sent %q, outline %d bytes, diff %+v", same.Sent, len(same.Outline), same.Diff)
	}
	h.ok("invoke", map[string]any{"handle": handle, "element": map[string]any{"name": "Count"}}, nil)
	var diff queryOut
	h.ok("query", map[string]any{"handle": handle, "format": "outline", "since": "last"}, &diff)
	if diff.Sent != "diff" || diff.Diff == nil || !strings.Contains(strings.Join(diff.Diff.Changed, "\n"), `label "count: 1"`) {
		t.Fatalf("after a label change: sent %q, diff %+v", diff.Sent, diff.Diff)
	}
	if len(diff.Diff.Changed) > 3 || len(diff.Diff.Added)+len(diff.Diff.Removed) > 0 {
		t.Errorf("the diff holds more than the change: %+v", diff.Diff)
	}
	// The JSON format's diff carries nodes; another window's memo is its own.
	h.ok("invoke", map[string]any{"handle": handle, "element": map[string]any{"name": "Count"}}, nil)
	var jdiff queryOut
	h.ok("query", map[string]any{"handle": handle, "since": "last"}, &jdiff)
	if jdiff.Sent != "diff" || jdiff.Diff == nil || len(jdiff.Diff.ChangedNodes) == 0 || jdiff.Diff.ChangedNodes[0].Name != "count: 2" {
		t.Fatalf("json diff: sent %q, %+v", jdiff.Sent, jdiff.Diff)
	}

	var found struct {
		Path []string `json:"path"`
	}
	h.ok("find", map[string]any{"handle": handle, "element": map[string]any{"name": "Count"}}, &found)
	if len(found.Path) == 0 || !strings.HasPrefix(found.Path[0], `frame "mcec effects"`) {
		t.Errorf("find's ancestor path %q does not start at the frame", found.Path)
	}

	// find and wait-for in the outline format: the element as a line; candidates as lines.
	var foundLine struct {
		Element *node  `json:"element"`
		Outline string `json:"outline"`
	}
	h.ok("find", map[string]any{"handle": handle, "element": map[string]any{"name": "Check"}, "format": "outline"}, &foundLine)
	if foundLine.Element != nil || !outlineRef.MatchString(foundLine.Outline) || !strings.Contains(foundLine.Outline, `check box "Check"`) {
		t.Errorf("find as outline: %+v", foundLine)
	}
	env := h.call("find", map[string]any{"handle": handle, "element": map[string]any{"role": "push button"}, "format": "outline"})
	if env.OK() || !strings.Contains(env.Err().Detail, "\n[0] ") || !strings.Contains(env.Err().Detail, `push button "Open"`) {
		t.Errorf("ambiguous find as outline: %+v", env.Err())
	}
	h.ok("wait-for", map[string]any{"handle": handle, "element": map[string]any{"name": "Check"}, "format": "outline", "timeout": 2000}, &foundLine)
	if foundLine.Element != nil || !strings.Contains(foundLine.Outline, `check box "Check"`) {
		t.Errorf("wait-for as outline: %+v", foundLine)
	}
	env = h.call("wait-for", map[string]any{"handle": handle, "element": map[string]any{"name": "Check"}, "condition": "focused",
		"format": "outline", "timeout": 300})
	if env.OK() || !strings.Contains(env.Err().Detail, `last seen: `) || !strings.Contains(env.Err().Detail, `check box "Check"`) {
		t.Errorf("wait-for timeout as outline: %+v", env.Err())
	}

	var box *node
	js.Tree.walk(func(n *node) {
		if box == nil && n.Role == "filler" && len(n.Children) > 3 {
			box = n
		}
	})
	if box == nil {
		t.Fatal("no box of controls in the tree")
	}
	var sub queryOut
	h.ok("query", map[string]any{"ref": box.Ref, "maxDepth": 1}, &sub)
	if sub.Tree == nil || sub.Tree.Ref != box.Ref || len(sub.Tree.Children) != len(box.Children) || sub.NodeCount != 1+len(box.Children) {
		t.Fatalf("subtree of %s: %+v (%d nodes), want its %d children", box.Ref, sub.Tree, sub.NodeCount, len(box.Children))
	}
}

// layoutRoles are platform.LayoutRole's, as the outline leaves them out.
var layoutRoles = map[string]bool{"panel": true, "filler": true, "section": true, "form": true, "grouping": true,
	"viewport": true, "scroll pane": true, "layered pane": true, "root pane": true, "glass pane": true, "split pane": true,
	"redundant object": true, "unknown": true, "html container": true}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
