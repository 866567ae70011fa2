package tools

import (
	"strings"
	"testing"

	"github.com/mcec/mcec/internal/platform"
)

func on(states ...string) platform.StateSet {
	s := platform.StateSet{"enabled": true, "showing": true}
	for _, st := range states {
		s[st] = true
	}
	return s
}

func hidden() platform.StateSet { return platform.StateSet{"enabled": true} }

// The outline's rules on a made-up tree: wrappers and separators left out, a hidden subtree one
// line naming what it holds, hidden leaves named on their parent's line.
func TestOutlineRules(t *testing.T) {
	val := "42"
	tree := &platform.Node{Ref: "1.2:1", Role: "frame", Name: "App", States: on(), Bounds: &platform.Rect{Width: 100, Height: 50},
		Children: []*platform.Node{
			{Ref: "1.2:2", Role: "filler", States: on(), Children: []*platform.Node{
				{Ref: "1.2:3", Role: "push button", Name: "OK", States: on("focused"), Bounds: &platform.Rect{X: 1, Y: 2, Width: 3, Height: 4}},
				{Ref: "1.2:4", Role: "separator", States: on()},
				{Ref: "1.2:5", Role: "spin button", States: on(), Value: &val},
				{Ref: "1.2:13", Role: "push button", Description: "Primary menu", States: on()},
				{Ref: "1.2:14", Role: "push button", Name: "Go", Description: "Goes on", States: on()},
			}},
			{Ref: "1.2:6", Role: "combo box", Name: "Pick", States: on(), Children: []*platform.Node{
				{Ref: "1.2:7", Role: "menu", States: hidden(), Children: []*platform.Node{
					{Ref: "1.2:8", Role: "menu item", Name: "Red", States: hidden()},
					{Ref: "1.2:9", Role: "menu item", Name: "Blue", States: hidden()},
				}},
			}},
			{Ref: "1.2:10", Role: "menu", Name: "File", States: on(), Children: []*platform.Node{
				{Ref: "1.2:11", Role: "menu item", Name: "Open", States: hidden()},
				{Ref: "1.2:12", Role: "menu item", Name: "Save", States: hidden()},
			}},
			// Hidden buttons in an unnamed panel (KCalc's): named on the line they stand under.
			{Ref: "1.2:15", Role: "panel", States: on(), Children: []*platform.Node{
				{Ref: "1.2:16", Role: "push button", Name: "sin", States: hidden()},
				{Ref: "1.2:17", Role: "push button", Name: "7", States: on()},
			}},
		}}
	want := `1.2:1 frame "App" (0,0 100x50) hidden: "sin"
  1.2:3 push button "OK" (1,2 3x4) {focused}
  1.2:5 spin button = "42"
  1.2:13 push button desc "Primary menu"
  1.2:14 push button "Go"
  1.2:6 combo box "Pick"
    1.2:7 menu {hidden}: "Red" "Blue"
  1.2:10 menu "File" hidden: "Open" "Save"
  1.2:17 push button "7"
`
	if got := outline(tree); got != want {
		t.Errorf("outline:\n%s\nwant:\n%s", got, want)
	}
	lines := treeLines(tree)
	for _, ref := range []string{"1.2:2", "1.2:4", "1.2:8", "1.2:11", "1.2:15", "1.2:16"} {
		if _, ok := lines[ref]; ok {
			t.Errorf("%s has a diff line of its own but no outline line", ref)
		}
	}

	// One value changed: the diff names the node and sends only the value.
	val2 := "43"
	tree.Children[0].Children[2].Value = &val2
	tree.Children[2].Children[1].Name = "Save As"
	d, sent := diffTrees(lines, treeLines(tree), tree, "outline")
	if sent != "diff" || d == nil {
		t.Fatalf("sent %q", sent)
	}
	got := strings.Join(d.Changed, "\n")
	if got != `1.2:5 spin button = "43"`+"\n"+`1.2:10 menu "File" hidden: "Open" "Save As"` {
		t.Errorf("changed:\n%s", got)
	}
	if _, sent := diffTrees(treeLines(tree), treeLines(tree), tree, "outline"); sent != "unchanged" {
		t.Errorf("the same tree twice: sent %q", sent)
	}
}

// A part that went is written empty, so the diff says it is gone.
func TestChangedSinceEmptyParts(t *testing.T) {
	old := lineFields{head: "1.2:3 check box", name: ` "Agree"`, states: " {checked}"}
	now := lineFields{head: "1.2:3 check box", name: ` "Agree"`}
	if got := now.changedSince(old); got != `1.2:3 check box "Agree" {}` {
		t.Errorf("got %q", got)
	}
}

// A run of more than maxRun rows is summarised with a pointer to query {"ref": parent}; that
// query lists every row, so following the pointer never loops.
func TestOutlineRunPointerLists(t *testing.T) {
	list := &platform.Node{Ref: "1.2:50", Role: "list", Name: "Rows", States: on()}
	for i := range 30 {
		list.Children = append(list.Children, &platform.Node{Ref: "1.2:" + string(rune('a'+i%26)) + strings.Repeat("x", i/26),
			Role: "list item", Name: "row", States: on()})
	}
	frame := &platform.Node{Ref: "1.2:1", Role: "frame", Name: "App", States: on(), Children: []*platform.Node{list}}
	full := outline(frame)
	if !strings.Contains(full, `… 10 more "list item" (query {"ref":"1.2:50"} lists them)`) {
		t.Fatalf("the window's outline does not point at the list:\n%s", full)
	}
	listed := outlineListed(list)
	if got := strings.Count(listed, "list item"); got != 30 || strings.Contains(listed, "more") {
		t.Errorf("query by the list's ref lists %d rows, want all 30:\n%s", got, listed)
	}
}
