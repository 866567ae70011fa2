package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcec/mcec/internal/platform"
)

// The outline format (issue 16): one line per node, indented by depth,
//
//	[ref] role "name" = "value" (x,y wxh) {states} +N
//
// with only the fields that carry information: no empty name or value, no bounds for nodes
// without them, and only the states an agent acts on. Unnamed layout wrappers with a single
// child are left out (their child stands in their place); runs of more than maxRun siblings of
// one role are cut after maxRun with a line saying how many more there are and how to list
// them. A node whose children a limit cut ends with +N (N children not shown).

const (
	// maxRun is how many siblings of one role an outline shows before it summarises the rest.
	maxRun = 20
	// maxOutlineValue bounds a value in the outline; the JSON format carries it whole.
	maxOutlineValue = 200
)

// outline renders the tree under root.
func outline(root *platform.Node) string {
	var b strings.Builder
	writeOutline(&b, root, 0, true)
	return b.String()
}

// writeOutline writes n's subtree; parentShowing keeps "hidden" to the top of a hidden subtree.
func writeOutline(b *strings.Builder, n *platform.Node, depth int, parentShowing bool) {
	// A wrapper that only holds one child adds nothing but a level.
	for collapsible(n) {
		n = n.Children[0]
	}
	b.WriteString(strings.Repeat("  ", depth))
	b.WriteString(outlineLine(n, parentShowing))
	b.WriteByte('\n')
	showing := n.States["showing"]
	run, runRole := 0, ""
	for i, k := range n.Children {
		if k.Role == runRole {
			run++
		} else {
			run, runRole = 1, k.Role
		}
		if run > maxRun {
			more := 0
			for _, r := range n.Children[i:] {
				if r.Role == runRole {
					more++
				}
			}
			fmt.Fprintf(b, "%s… %d more %q (query {\"element\":{\"ref\":%q}} lists them)\n",
				strings.Repeat("  ", depth+1), more, runRole, n.Ref)
			// Siblings of other roles after the run still show.
			for _, r := range n.Children[i:] {
				if r.Role != runRole {
					writeOutline(b, r, depth+1, showing)
				}
			}
			return
		}
		writeOutline(b, k, depth+1, showing)
	}
}

// collapsible reports an unnamed layout wrapper with exactly one child and nothing of its own.
func collapsible(n *platform.Node) bool {
	return len(n.Children) == 1 && n.Name == "" && n.Value == nil && n.ChildCount == 0 && platform.LayoutRole(n.Role)
}

// outlineLine is one node's line, without indentation; parentShowing: the node's parent is on
// screen (a hidden node under a hidden parent says nothing new).
func outlineLine(n *platform.Node, parentShowing bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %s", n.Ref, n.Role)
	if n.Name != "" {
		fmt.Fprintf(&b, " %q", n.Name)
	}
	if n.Value != nil && *n.Value != "" && *n.Value != n.Name {
		v := *n.Value
		if utf8.RuneCountInString(v) > maxOutlineValue {
			v = truncateRunes(v, maxOutlineValue) + fmt.Sprintf("…(%d chars)", utf8.RuneCountInString(*n.Value))
		}
		fmt.Fprintf(&b, " = %q", v)
	}
	if r := n.Bounds; r != nil {
		fmt.Fprintf(&b, " (%d,%d %dx%d)", r.X, r.Y, r.Width, r.Height)
	}
	if st := outlineStates(n, parentShowing); st != "" {
		fmt.Fprintf(&b, " {%s}", st)
	}
	if n.ChildCount > len(n.Children) {
		fmt.Fprintf(&b, " +%d", n.ChildCount-len(n.Children))
	}
	return b.String()
}

// outlineStates lists the states that depart from what a plain, enabled, visible control
// would report.
func outlineStates(n *platform.Node, parentShowing bool) string {
	st := n.States
	var out []string
	add := func(on bool, name string) {
		if on {
			out = append(out, name)
		}
	}
	add(st["focused"], "focused")
	add(!st["enabled"] && !st["sensitive"], "disabled")
	add(!st["showing"] && parentShowing, "hidden")
	add(st["checked"] || (toggleRoles[n.Role] && st["pressed"]), "checked")
	add(st["indeterminate"], "mixed")
	add(st["selected"], "selected")
	add(st["expandable"] && st["expanded"], "expanded")
	add(st["expandable"] && !st["expanded"], "collapsed")
	add(st["editable"] && !st["read-only"] && n.Role != "text" && n.Role != "entry", "editable")
	add(st["modal"], "modal")
	add(st["invalid-entry"], "invalid")
	add(st["required"], "required")
	return strings.Join(out, ",")
}

// truncateRunes cuts s to at most n runes.
func truncateRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}
