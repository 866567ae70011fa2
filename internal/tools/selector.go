package tools

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/platform"
)

// ElementSelector names a control inside a target window. Two forms, which may be combined (all
// given fields must match): the reference's {by, value} pair, and the richer field set.
type ElementSelector struct {
	By           string `json:"by,omitempty" jsonschema:"With value: name, automationId, className or role, matched exactly."`
	Value        string `json:"value,omitempty" jsonschema:"With by: the exact (case-sensitive) value."`
	Name         string `json:"name,omitempty" jsonschema:"Exact name (case-sensitive)."`
	NameContains string `json:"nameContains,omitempty" jsonschema:"Substring of the accessible name, case-insensitive."`
	Role         string `json:"role,omitempty" jsonschema:"AT-SPI role ('push button') or controlType ('Button'), case-insensitive; an exact spelling wins."`
	AutomationID string `json:"automationId,omitempty" jsonschema:"Exact AT-SPI AccessibleId (GTK 3 apps rarely set it)."`
	Text         string `json:"text,omitempty" jsonschema:"Exact text or value of the element."`
	Ref          string `json:"ref,omitempty" jsonschema:"A ref from query or find: that live object, without searching."`
	Index        *int   `json:"index,omitempty" jsonschema:"0-based pick among matches: shown elements first, each group in tree order (breadth-first); reading order for screenText."`
	ScreenText   string `json:"screenText,omitempty" jsonschema:"Words read by OCR (whole words on one line, case-insensitive) in the window, else the screen: for apps without a usable tree; about 1 s. Gives an ocr: ref to click, not invoke. Combines with index only."`

	// outline: list candidates as outline lines (find's and wait-for's format "outline").
	outline bool
	// budget is the time the next search walk may take (0: searchLimits.Budget). A walk cut by
	// time doubles it, so the repeated searches of one call (find with a timeout, wait-for, an
	// action waiting for its target) reach the whole tree of an application that answers slowly.
	budget time.Duration
}

// selectorBys are the values by accepts.
var selectorBys = []string{"name", "automationId", "className", "role"}

// check validates the selector's shape: bad-arguments naming the field at fault.
func (s *ElementSelector) check() error {
	switch {
	case s == nil:
		return contract.Errorf(contract.CodeBadArguments, "an element selector is required: give element {name | nameContains | role | automationId | text | ref | by+value | screenText}")
	case s.By != "" && s.Value == "":
		return contract.Errorf(contract.CodeBadArguments, "element.by %q needs element.value", s.By)
	case s.By == "" && s.Value != "":
		return contract.Errorf(contract.CodeBadArguments, "element.value needs element.by (one of %s)", strings.Join(selectorBys, ", "))
	case s.Index != nil && *s.Index < 0:
		return contract.Errorf(contract.CodeBadArguments, "element.index must be 0 or more, got %d", *s.Index)
	}
	if s.By != "" && !slices.Contains(selectorBys, s.By) {
		return contract.Errorf(contract.CodeBadArguments, "element.by %q is not one of %s", s.By, strings.Join(selectorBys, ", "))
	}
	treeFields := s.By != "" || s.Name != "" || s.NameContains != "" || s.Role != "" || s.AutomationID != "" || s.Text != "" || s.Ref != ""
	if s.ScreenText != "" && treeFields {
		// OCR reads pixels, which have no names, roles or refs to match as well.
		return contract.Errorf(contract.CodeBadArguments, "element.screenText is read by OCR and combines with index only, not with tree fields (%s)", s)
	}
	if s.ScreenText != "" && strings.IndexFunc(s.ScreenText, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		// OCR's words are the fields with a letter or digit; punctuation alone is never one.
		return contract.Errorf(contract.CodeBadArguments, "element.screenText %q has no letter or digit to look for", s.ScreenText)
	}
	if s.ScreenText == "" && !treeFields {
		return contract.Errorf(contract.CodeBadArguments, "element selector is empty: give name, nameContains, role, automationId, text, ref, by+value or screenText")
	}
	return nil
}

// matches reports whether n satisfies every field (ref and index aside, which the caller applies).
func (s *ElementSelector) matches(n *platform.Node) bool {
	switch s.By {
	case "name":
		if n.Name != s.Value {
			return false
		}
	case "automationId":
		if n.AutomationID != s.Value {
			return false
		}
	case "className":
		return false // AT-SPI exposes no widget class names; see docs/tools.md
	case "role":
		if n.Role != s.Value && n.ControlType != s.Value {
			return false
		}
	}
	if s.Name != "" && n.Name != s.Name {
		return false
	}
	if s.NameContains != "" && !strings.Contains(strings.ToLower(n.Name), strings.ToLower(s.NameContains)) {
		return false
	}
	if s.Role != "" && !strings.EqualFold(n.Role, s.Role) && !strings.EqualFold(n.ControlType, s.Role) {
		return false
	}
	if s.AutomationID != "" && n.AutomationID != s.AutomationID {
		return false
	}
	if s.Text != "" && (n.Value == nil || *n.Value != s.Text) {
		return false
	}
	return true
}

// String describes the selector for details.
func (s *ElementSelector) String() string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, fmt.Sprintf("%s=%q", k, v))
		}
	}
	add("by", s.By)
	add("value", s.Value)
	add("name", s.Name)
	add("nameContains", s.NameContains)
	add("role", s.Role)
	add("automationId", s.AutomationID)
	add("text", s.Text)
	add("ref", s.Ref)
	add("screenText", s.ScreenText)
	if s.Index != nil {
		parts = append(parts, fmt.Sprintf("index=%d", *s.Index))
	}
	return "element{" + strings.Join(parts, " ") + "}"
}

// search returns the nodes under root that match, breadth-first (the order index counts in).
// Three kinds of match are dropped as the same control seen twice: a label that only repeats the
// name of a matching ancestor up to two levels above it (GTK 4 buttons and check boxes hold a
// label child named as they are), a label that wraps a matching control up to two levels below
// it (web pages' <label>Name <input></label>), and, when some match has the role or control type spelt
// exactly as asked, the matches that differ in case ({role: "text"} means text fields,
// {role: "Text"} Text-typed labels).
func (s *ElementSelector) search(root *platform.Node) []*platform.Node {
	var out []*platform.Node
	parent := map[*platform.Node]*platform.Node{}
	matched := map[*platform.Node]bool{}
	queue := []*platform.Node{root}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if s.matches(n) {
			out = append(out, n)
			matched[n] = true
		}
		for _, k := range n.Children {
			parent[k] = n
		}
		queue = append(queue, n.Children...)
	}
	if len(out) < 2 {
		return out
	}
	// Raw roles are lower case ("text"), control types capitalised ("Text"): when some match is
	// spelt exactly as asked, the spelling says which was meant.
	spelt := func(n *platform.Node) bool { return n.Role == s.Role || n.ControlType == s.Role }
	exactRole := s.Role != "" && slices.ContainsFunc(out, spelt)
	kept := out[:0]
	for _, n := range out {
		if exactRole && !spelt(n) {
			continue
		}
		if labelRoles[n.Role] && (repeatsAncestor(n, parent, matched) || inWrappingLabel(n, parent, matched)) {
			continue
		}
		kept = append(kept, n)
	}
	return kept
}

// labelRoles are roles of nodes that only show text.
var labelRoles = map[string]bool{"label": true, "static": true, "caption": true}

// repeatsAncestor reports a node whose parent or grandparent matched too, under the same name.
func repeatsAncestor(n *platform.Node, parent map[*platform.Node]*platform.Node, matched map[*platform.Node]bool) bool {
	p := parent[n]
	for range 2 {
		if p == nil {
			return false
		}
		if matched[p] && p.Name == n.Name {
			return true
		}
		p = parent[p]
	}
	return false
}

// inWrappingLabel reports a label that wraps a matching control, or a text piece of such a label
// (Chromium exposes "City " as a static child beside the entry).
func inWrappingLabel(n *platform.Node, parent map[*platform.Node]*platform.Node, matched map[*platform.Node]bool) bool {
	for p, up := n, 0; p != nil && up <= 2; p, up = parent[p], up+1 {
		if labelRoles[p.Role] && wrapsMatch(p, matched, 2) {
			return true
		}
	}
	return false
}

// wrapsMatch reports a label whose children (down to depth levels) hold a matching control: a
// web page's <label>City <input></label> is one label and one entry named alike (Firefox names
// both "City"), and the agent means the entry.
func wrapsMatch(n *platform.Node, matched map[*platform.Node]bool, depth int) bool {
	if depth == 0 {
		return false
	}
	for _, k := range n.Children {
		if matched[k] && !labelRoles[k.Role] || wrapsMatch(k, matched, depth-1) {
			return true
		}
	}
	return false
}

// pick applies index to the matches (ranked by rankShown: shown ones first): exactly one, or
// none, or ambiguous-selector listing the first candidates with their refs, bounds and whether
// they are hidden, so the agent can narrow.
func (s *ElementSelector) pick(matches []*platform.Node) (*platform.Node, error) {
	if s.Index != nil {
		if *s.Index < len(matches) {
			return matches[*s.Index], nil
		}
		return nil, nil
	}
	switch len(matches) {
	case 0:
		return nil, nil
	case 1:
		return matches[0], nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s matched %d elements; add index (0-%d) or narrow with role, ref or text:", s, len(matches), len(matches)-1)
	for i, n := range matches {
		if i == maxCandidates {
			fmt.Fprintf(&b, " …and %d more", len(matches)-maxCandidates)
			break
		}
		if s.outline {
			// One outline line per candidate (issue 16): its name, value and states tell them apart.
			fmt.Fprintf(&b, "\n[%d] %s", i, outlineLine(n, true))
			continue
		}
		fmt.Fprintf(&b, " [%d ref=%s role=%q", i, n.Ref, n.Role)
		if n.Name != "" {
			fmt.Fprintf(&b, " name=%q", truncateRunes(n.Name, candidateNameMax))
		}
		if n.Bounds != nil {
			fmt.Fprintf(&b, " at %d,%d %dx%d", n.Bounds.X, n.Bounds.Y, n.Bounds.Width, n.Bounds.Height)
		}
		if !shown(n) {
			b.WriteString(" hidden")
		}
		b.WriteString("]")
	}
	return nil, contract.Errorf(contract.SelectorMatched(len(matches)), "%s", b.String())
}
