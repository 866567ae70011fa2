package tools

import (
	"slices"

	"github.com/mcec/mcec/internal/platform"
)

// Diffs between two queries of the same window (query since:"last", issue 16): nodes are
// compared by ref on their outline line (role, name, value, bounds, states, cut children), so a
// diff says exactly what an outline would show differently.

// treeDiff is what changed since the session's previous query: nodes that appeared (with their
// whole line or node), nodes that changed (likewise, as they are now), and refs that went.
type treeDiff struct {
	Added        []string   `json:"added,omitempty"`        // outline lines
	Changed      []string   `json:"changed,omitempty"`      // ref, role, name and the parts that changed, as they are now
	Removed      []string   `json:"removed,omitempty"`      // refs
	AddedNodes   []*Element `json:"addedNodes,omitempty"`   // json format: the nodes, without children
	ChangedNodes []*Element `json:"changedNodes,omitempty"` // json format: as they are now
}

// diffFull is the share of changed nodes beyond which the whole tree is cheaper to read than a
// diff of it.
const diffFull = 0.5

// treeLines maps the ref of every node an outline shows to its line, runs of siblings an
// outline summarises included: a wrapper the outline leaves out has no line (its children are
// compared), and what is hidden is in the line that names it.
func treeLines(root *platform.Node) map[string]lineFields {
	out := make(map[string]lineFields)
	var visit func(n *platform.Node, parentShowing, top, namedHidden bool)
	visit = func(n *platform.Node, parentShowing, top, namedHidden bool) {
		if !top && omitted(n) {
			for _, k := range n.Children {
				visit(k, parentShowing, false, namedHidden)
			}
			return
		}
		if namedHidden && parentShowing && hiddenLeaf(n) {
			return // its parent's line names it
		}
		f, descend := shownFields(n, parentShowing)
		out[n.Ref] = f
		if descend {
			for _, k := range n.Children {
				visit(k, n.States["showing"], false, true)
			}
		}
	}
	if root != nil {
		visit(root, true, true, false)
	}
	return out
}

// diffTrees compares the previous query's lines with the tree now; sent is "diff", "unchanged",
// or "tree" (most of it changed: the caller sends the whole tree).
func diffTrees(prev, now map[string]lineFields, root *platform.Node, format string) (*treeDiff, string) {
	d := &treeDiff{}
	changes := 0
	var visit func(n *platform.Node)
	visit = func(n *platform.Node) {
		line, shown := now[n.Ref]
		if !shown {
			// Left out of the outline (a wrapper) or inside a hidden subtree, whose top's line
			// says what changed in it.
			for _, k := range n.Children {
				visit(k)
			}
			return
		}
		old, had := prev[n.Ref]
		switch {
		case !had:
			changes++
			if format == "outline" {
				d.Added = append(d.Added, line.line())
			} else {
				d.AddedNodes = append(d.AddedNodes, element(shallow(n)))
			}
		case old != line:
			changes++
			if format == "outline" {
				d.Changed = append(d.Changed, line.changedSince(old))
			} else {
				d.ChangedNodes = append(d.ChangedNodes, element(shallow(n)))
			}
		}
		for _, k := range n.Children {
			visit(k)
		}
	}
	visit(root)
	for ref := range prev {
		if _, ok := now[ref]; !ok {
			changes++
			d.Removed = append(d.Removed, ref)
		}
	}
	slices.Sort(d.Removed)
	switch {
	case changes == 0:
		return nil, "unchanged"
	case float64(changes) > diffFull*float64(max(len(now), 1)):
		return nil, "tree"
	}
	return d, "diff"
}
