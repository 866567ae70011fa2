package tools

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcec/mcec/internal/platform"
)

// The outline format (issue 16): one line per node, indented by depth,
//
//	ref role "name" = "value" (x,y wxh) {states} +N
//
// The ref leads the line bare: brackets around it cost about 4 % of an outline's tokens.
// with only the fields that carry information: no empty name or value, no bounds for nodes
// without them, and only the states an agent acts on. Measured on gtk3-widget-factory, a Writer
// document, a Chromium page and a long list (make bench), these rules take it from a third of
// the JSON's tokens to under a quarter:
//
//   - Unnamed layout containers (fillers, panels, sections …) without a value are left out and
//     their children take their place, one level up: they are most of a GTK or web tree, and
//     the children's bounds say where things are. The JSON format keeps them.
//   - Separators are left out.
//   - A hidden subtree (a closed menu, a combo box's list) is one line: the hidden node, then
//     the names of what it holds, since nothing in it can be acted on until it shows. Hidden
//     children without children of their own (the items of a closed LibreOffice menu) are named
//     on their parent's line (` hidden: "Open..." "Save"`) instead of a line each.
//   - Runs of more than maxRun siblings of one role are cut after maxRun with a line saying how
//     many more there are and how to list them.
//
// A node whose children a limit cut ends with +N (N children not shown).

const (
	// maxRun is how many siblings of one role an outline shows before it summarises the rest.
	maxRun = 20
	// maxOutlineValue bounds a value in the outline; the JSON format carries it whole.
	maxOutlineValue = 200
	// maxHiddenNames is how many names a line lists of what is hidden in or under it.
	maxHiddenNames = 40
)

// outline renders the tree under root.
func outline(root *platform.Node) string {
	var b strings.Builder
	writeOutline(&b, root, 0, true, true, false)
	return b.String()
}

// outlineListed renders the tree under root with every child of root itself listed: what
// query {"ref": …} answers, which the line summarising a run points to. Runs further down are
// summarised as usual.
func outlineListed(root *platform.Node) string {
	var b strings.Builder
	f, descend := shownFields(root, true)
	b.WriteString(f.line())
	b.WriteByte('\n')
	if descend {
		for _, k := range root.Children {
			if !(root.States["showing"] && hiddenLeaf(k)) {
				writeOutline(&b, k, 1, root.States["showing"], false, true)
			}
		}
	}
	return b.String()
}

// writeOutline writes n's subtree; parentShowing keeps "hidden" to the top of a hidden subtree;
// namedHidden: the line n's children would stand under named its hidden leaves.
func writeOutline(b *strings.Builder, n *platform.Node, depth int, parentShowing, root, namedHidden bool) {
	if !root && omitted(n) {
		// Its children stand in its place, and its hidden leaves were named on that line.
		writeChildren(b, n, depth, parentShowing, namedHidden)
		return
	}
	f, descend := shownFields(n, parentShowing)
	b.WriteString(strings.Repeat("  ", depth))
	b.WriteString(f.line())
	b.WriteByte('\n')
	if descend {
		writeChildren(b, n, depth+1, n.States["showing"], true)
	}
}

// shownFields is n's line as the outline shows it, and whether its children get lines: the top
// of a hidden subtree names what it holds instead, and a node on screen names its hidden
// children without children of their own (a closed menu's items) instead of a line for each.
func shownFields(n *platform.Node, parentShowing bool) (lineFields, bool) {
	f := fieldsOf(n, parentShowing)
	if hiddenTop(n, parentShowing) {
		f.hidden = hiddenNames(n)
		return f, false
	}
	if n.States["showing"] {
		names := hiddenLeafNames(n, nil)
		f.hidden = nameList(" hidden:", names, len(names))
	}
	return f, true
}

// hiddenLeafNames appends the names of n's hidden leaves, also of those that left-out wrappers
// lift to n's level (KCalc's 40 hidden buttons sit in an unnamed panel: a line each before).
func hiddenLeafNames(n *platform.Node, names []string) []string {
	for _, k := range n.Children {
		switch {
		case omitted(k):
			names = hiddenLeafNames(k, names)
		case hiddenLeaf(k):
			names = append(names, k.Name)
		}
	}
	return names
}

// hiddenLeaf reports a hidden node without children that its parent's line names (when the
// parent is on screen and has a line).
func hiddenLeaf(k *platform.Node) bool {
	return !k.States["showing"] && len(k.Children) == 0 && !omitted(k)
}

// writeChildren writes n's children at depth, summarising long runs of one role; namedHidden:
// n's line named its hidden leaves.
func writeChildren(b *strings.Builder, n *platform.Node, depth int, showing, namedHidden bool) {
	run, runRole := 0, ""
	for i, k := range n.Children {
		if namedHidden && showing && hiddenLeaf(k) {
			continue
		}
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
			fmt.Fprintf(b, "%s… %d more %q (query {\"ref\":%q} lists them)\n",
				strings.Repeat("  ", depth), more, runRole, n.Ref)
			// Siblings of other roles after the run still show.
			for _, r := range n.Children[i:] {
				if r.Role != runRole && !(namedHidden && showing && hiddenLeaf(r)) {
					writeOutline(b, r, depth, showing, false, namedHidden)
				}
			}
			return
		}
		writeOutline(b, k, depth, showing, false, namedHidden)
	}
}

// omitted reports a node the outline leaves out: an unnamed layout container with nothing of
// its own (its children take its place), or a separator.
func omitted(n *platform.Node) bool {
	if n.Role == "separator" {
		return true
	}
	return n.Name == "" && (n.Value == nil || *n.Value == "") && n.ChildCount == 0 && platform.LayoutRole(n.Role)
}

// hiddenTop reports the top of a hidden subtree that has something inside.
func hiddenTop(n *platform.Node, parentShowing bool) bool {
	return parentShowing && !n.States["showing"] && len(n.Children) > 0
}

// hiddenNames lists the names inside a hidden subtree, depth first: ": "a" "b" …".
func hiddenNames(n *platform.Node) string {
	var names []string
	total := 0
	var visit func(*platform.Node)
	visit = func(k *platform.Node) {
		for _, c := range k.Children {
			if c.Name != "" {
				total++
				if len(names) < maxHiddenNames {
					names = append(names, c.Name)
				}
			}
			visit(c)
		}
	}
	visit(n)
	return nameList(":", names, total)
}

// nameList writes names after label, quoted, with how many more there are beyond them; "" for
// none. Unnamed ones are counted as "N unnamed".
func nameList(label string, names []string, total int) string {
	var b strings.Builder
	unnamed := 0
	shown := 0
	for _, nm := range names {
		if nm == "" {
			unnamed++
			continue
		}
		if shown == maxHiddenNames {
			continue
		}
		if b.Len() == 0 {
			b.WriteString(label)
		}
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(nm))
		shown++
	}
	if more := total - shown - unnamed; more > 0 {
		if b.Len() == 0 {
			b.WriteString(label)
		}
		fmt.Fprintf(&b, " …%d more", more)
	}
	if unnamed > 0 {
		if b.Len() == 0 {
			b.WriteString(label)
		}
		fmt.Fprintf(&b, " %d unnamed", unnamed)
	}
	return b.String()
}

// outlineLine is one node's line, without indentation; parentShowing: the node's parent is on
// screen (a hidden node under a hidden parent says nothing new).
func outlineLine(n *platform.Node, parentShowing bool) string {
	return fieldsOf(n, parentShowing).line()
}

// lineFields are the parts of a node's outline line, each with its leading space, so that a
// diff can send only the parts that changed.
type lineFields struct {
	head   string // ref role
	name   string // "name", or desc "description" for an unnamed node that has one
	value  string // = "value"
	bounds string // (x,y wxh)
	states string // {states}
	more   string // +N
	hidden string // : "names" of a hidden subtree
}

func fieldsOf(n *platform.Node, parentShowing bool) lineFields {
	f := lineFields{head: n.Ref + " " + n.Role}
	switch {
	case n.Name != "":
		f.name = " " + strconv.Quote(n.Name)
	case n.Description != "":
		// GTK 4's icon-only buttons (a window's menu, back, search) have no name and a
		// description from their tooltip ("Primary menu"): without it the line says nothing
		// an agent can choose by.
		f.name = " desc " + strconv.Quote(truncateRunes(n.Description, maxOutlineValue))
	}
	if n.Value != nil && *n.Value != "" && *n.Value != n.Name {
		v := *n.Value
		if utf8.RuneCountInString(v) > maxOutlineValue {
			v = truncateRunes(v, maxOutlineValue) + fmt.Sprintf("…(%d chars)", utf8.RuneCountInString(*n.Value))
		}
		f.value = " = " + strconv.Quote(v)
	}
	if r := n.Bounds; r != nil {
		f.bounds = fmt.Sprintf(" (%d,%d %dx%d)", r.X, r.Y, r.Width, r.Height)
	}
	if st := outlineStates(n, parentShowing); st != "" {
		f.states = " {" + st + "}"
	}
	if n.ChildCount > len(n.Children) {
		f.more = fmt.Sprintf(" +%d", n.ChildCount-len(n.Children))
	}
	return f
}

func (f lineFields) line() string {
	return f.head + f.name + f.value + f.bounds + f.states + f.more + f.hidden
}

// changedSince is the line of a node that changed since old: its ref, role and name (to say which
// it is), then only the parts that changed; a part that went is written empty (= "", {}, +0).
func (f lineFields) changedSince(old lineFields) string {
	s := f.head + f.name
	part := func(now, was, empty string) {
		switch {
		case now == was:
		case now == "":
			s += empty
		default:
			s += now
		}
	}
	if f.name == "" && old.name != "" {
		s += ` ""`
	}
	part(f.value, old.value, ` = ""`)
	part(f.bounds, old.bounds, " ()")
	part(f.states, old.states, " {}")
	part(f.more, old.more, " +0")
	part(f.hidden, old.hidden, ": ")
	return s
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
