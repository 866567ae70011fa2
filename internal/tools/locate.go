package tools

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/sysload"
)

// searchLimits bound the walk behind a selector search: deep and wide enough for real
// applications, bounded so a huge list cannot stall the server.
var searchLimits = platform.TreeLimits{MaxDepth: 64, MaxNodes: 20000, MaxChildren: 1000, Budget: 3 * time.Second}

// maxSearchBudget caps the time budget a search walk grows to after walks cut by time.
const maxSearchBudget = 24 * time.Second

// budgetWithin shortens a walk's time budget to three quarters of what is left before ctx's
// deadline: a walk cut by its budget still reports what it saw (and may hold the match), while a
// walk cut by the deadline reports nothing. The rest is for re-reading the pick and answering.
func budgetWithin(ctx context.Context, budget time.Duration) time.Duration {
	deadline, ok := ctx.Deadline()
	if !ok {
		return budget
	}
	// A minimum keeps a nearly spent wait from cutting every walk at its root.
	left := max(time.Until(deadline)*3/4, 50*time.Millisecond)
	return min(budget, left)
}

// located is the outcome of one attempt to find an element.
type located struct {
	window platform.Window
	node   *platform.Node // nil when nothing matched
	// searched is how many nodes the attempt looked at (0 for a ref).
	// path names the element's ancestors from the window's frame down (role and name), so an
	// agent knows where it is; unnamed layout containers are left out.
	path     []string
	searched int
	// truncatedBy names the limits that cut the search walk (empty: it saw the whole tree);
	// budget is the time the walk had.
	truncatedBy []string
	budget      time.Duration
	// miss, when set, is what an OCR search (screenText, an ocr: ref) saw instead.
	miss string
	// near lists elements whose names hold the exact name asked for, when nothing matched.
	near []string
}

// desktopReader is the part of the desktop that finding, waiting and observing read: windows,
// trees and (for text read by OCR) pixels. It holds nothing that changes the desktop, so a
// helper that takes it cannot act.
type desktopReader interface {
	platform.WindowReader
	platform.TreeReader
	platform.Capturer
}

// locate finds the element sel names, in the window target names (a ref needs no window). It
// returns located.node == nil for a miss, and contract errors for ambiguity, bad arguments,
// stale refs and closed windows.
func locate(ctx context.Context, d desktopReader, target WindowTarget, sel *ElementSelector) (located, error) {
	switch {
	case sel.ScreenText != "":
		return locateText(ctx, d, target, sel) // ocrtarget.go
	case isOCRRef(sel.Ref):
		return locateOCRRef(ctx, d, target, sel)
	case sel.Ref != "":
		return locateRef(ctx, d, target, sel)
	}
	ctx = primeTrees(ctx, d)
	w, err := resolveWindow(ctx, d, target)
	if err != nil {
		return located{}, err
	}
	limits := searchLimits
	// Names, roles and states (and values, for a text selector) are all most selectors match
	// on: a lean walk skips the bounds, actions and ids of every node, and the pick is re-read in
	// full below.
	limits.Lean = sel.AutomationID == "" && sel.By != "automationId"
	limits.Texts = sel.Text != ""
	limits.Cells = sel.cells()
	// A cell address means a cell on screen, in a sheet: closed menus and hidden pages, which
	// hold most of an office application's objects, need not be walked.
	limits.ShowingOnly = len(limits.Cells) > 0
	budget := sysload.Scale(searchLimits.Budget) // as query's default budget does
	if sel.budget > 0 {
		budget = sel.budget
	}
	limits.Budget = budgetWithin(ctx, budget)
	tree, err := d.Tree(ctx, w, limits)
	if err != nil {
		return located{window: w}, platformError(err)
	}
	if slices.Contains(tree.TruncatedBy, platform.LimitTime) {
		sel.budget = min(2*budget, maxSearchBudget)
	}
	matches := sel.search(tree.Root)
	if len(matches) > 1 {
		matches = dropLabelsOf(ctx, d, matches)
	}
	if len(matches) > 1 {
		matches = rankShown(ctx, d, matches, limits.Lean, sel.confirmCount())
	}
	n, err := sel.pick(matches)
	if err != nil || n == nil {
		return located{window: w, searched: tree.NodeCount, truncatedBy: tree.TruncatedBy, budget: limits.Budget, near: sel.near(tree.Root)}, err
	}
	picked := shallow(n)
	if limits.Lean {
		el, err := d.Element(ctx, n.Ref)
		if err != nil {
			return located{window: w}, platformError(err)
		}
		picked = &el.Node
		if !sel.matches(picked) {
			return located{window: w, searched: tree.NodeCount, truncatedBy: tree.TruncatedBy, budget: limits.Budget}, nil // it changed meanwhile
		}
	}
	return located{window: w, node: picked, path: ancestry(tree.Root, n), searched: tree.NodeCount, truncatedBy: tree.TruncatedBy, budget: limits.Budget}, nil
}

// locateRef re-reads a ref directly. A target window, when given, must own the element.
func locateRef(ctx context.Context, d desktopReader, target WindowTarget, sel *ElementSelector) (located, error) {
	el, err := d.Element(ctx, sel.Ref)
	if err != nil {
		if errors.Is(err, platform.ErrBadRef) {
			return located{}, contract.Errorf(contract.CodeBadArguments, "element.ref %q is not a ref from query or find", sel.Ref)
		}
		return located{}, platformError(err)
	}
	var w platform.Window
	if target.empty() {
		ws, err := d.Windows(ctx)
		if err != nil {
			return located{}, platformError(err)
		}
		for _, x := range ws {
			if x.ProcessID == el.PID {
				w = x
				break
			}
		}
	} else {
		if w, err = resolveWindow(ctx, d, target); err != nil {
			return located{}, err
		}
		if w.ProcessID != el.PID {
			return located{window: w}, contract.Errorf(contract.CodeElementNotFound,
				"element.ref %q belongs to process %d, not to the target window's process %d", sel.Ref, el.PID, w.ProcessID)
		}
	}
	n := el.Node
	if !sel.matches(&n) {
		return located{window: w}, nil // the ref lives but no longer satisfies the other fields
	}
	return located{window: w, node: &n}, nil
}

// shallow copies a node without its children: find and wait-for report one element.
func shallow(n *platform.Node) *platform.Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Children = nil
	return &c
}

// describeMiss says what an attempt saw, for details.
func (l located) describeMiss(sel *ElementSelector) string {
	if l.miss != "" {
		return l.miss
	}
	if sel.Ref != "" {
		return fmt.Sprintf("%s does not match any more", sel)
	}
	s := fmt.Sprintf("no element matched %s among %d nodes of window %d %q", sel, l.searched, l.window.Handle, l.window.Title)
	if len(l.truncatedBy) > 0 {
		s += " (" + l.searchCut() + ")"
	}
	if len(l.near) > 0 {
		s += "; names that hold it: " + strings.Join(l.near, ", ")
	}
	return s
}

// maxNear bounds the near misses a detail lists.
const maxNear = 5

// near lists, for a selector by exact name that matched nothing, the elements whose names hold
// that name case-insensitively as whole words, with their roles and refs: GTK 4.8 names a
// calculator's button "4 4" (its label twice), and the agent that asked for "4" learns the name
// to use instead of walking the tree; an element of that very name but another role shows too.
// Elements of the asked role come first.
func (s *ElementSelector) near(root *platform.Node) []string {
	want := s.Name
	if s.By == "name" {
		want = s.Value
	}
	words := nameWords(want)
	holds := func(name string) bool { return holdsWords(nameWords(name), words) }
	if len(words) == 0 {
		// A name of symbols only ("+", "=" on a calculator): whole blank-separated tokens.
		token := strings.ToLower(strings.TrimSpace(want))
		holds = func(name string) bool { return slices.Contains(strings.Fields(strings.ToLower(name)), token) }
		if token == "" {
			return nil
		}
	}
	if root == nil {
		return nil
	}
	var same, other []string
	queue := []*platform.Node{root}
	for len(queue) > 0 && len(same) < maxNear {
		n := queue[0]
		queue = queue[1:]
		queue = append(queue, n.Children...)
		if !holds(n.Name) {
			continue
		}
		line := fmt.Sprintf("%q (%s, ref %s)", n.Name, n.Role, n.Ref)
		if s.Role == "" || strings.EqualFold(n.Role, s.Role) || strings.EqualFold(n.ControlType, s.Role) {
			same = append(same, line)
		} else if len(other) < maxNear {
			other = append(other, line)
		}
	}
	return append(same, other...)[:min(maxNear, len(same)+len(other))]
}

// nameWords splits a name into lower-case words of letters and digits.
func nameWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// holdsWords reports whether words appear in have, in order and next to each other.
func holdsWords(have, words []string) bool {
	for i := 0; i+len(words) <= len(have); i++ {
		if slices.Equal(have[i:i+len(words)], words) {
			return true
		}
	}
	return false
}

// searchCut says which of the search's limits cut it.
func (l located) searchCut() string {
	budget := l.budget
	if budget == 0 {
		budget = searchLimits.Budget
	}
	return "the search was cut by " + strings.Join(l.truncatedBy, ", ") + fmt.Sprintf(" (limits: depth %d, %d nodes, %d children a node, %v)",
		searchLimits.MaxDepth, searchLimits.MaxNodes, searchLimits.MaxChildren, budget.Round(time.Millisecond))
}

// cellAddress is a spreadsheet cell's A1-style address: column letters, then a 1-based row.
var cellAddress = regexp.MustCompile(`^([A-Z]{1,3})([1-9][0-9]{0,6})$`)

// cells are the table positions a selector's name means when it is a cell address ("B2" is row 1,
// column 1): spreadsheets name cells so, and their sheets have far more cells than any walk
// lists, so the search asks the table for that cell directly.
func (s *ElementSelector) cells() []platform.Cell {
	name := s.Name
	if s.By == "name" {
		name = s.Value
	}
	m := cellAddress.FindStringSubmatch(name)
	if m == nil {
		return nil
	}
	col := 0
	for _, r := range m[1] {
		col = col*26 + int(r-'A'+1)
	}
	row, _ := strconv.Atoi(m[2])
	return []platform.Cell{{Row: row - 1, Col: col - 1}}
}

// ancestry names the ancestors of target under root, outermost first, leaving out unnamed layout
// containers; nil when target is root or not under it.
func ancestry(root, target *platform.Node) []string {
	var path []*platform.Node
	var walk func(n *platform.Node) bool
	walk = func(n *platform.Node) bool {
		if n == target {
			return true
		}
		path = append(path, n)
		for _, k := range n.Children {
			if walk(k) {
				return true
			}
		}
		path = path[:len(path)-1]
		return false
	}
	if root == nil || !walk(root) {
		return nil
	}
	var out []string
	for _, n := range path {
		switch {
		case n.Name != "":
			out = append(out, fmt.Sprintf("%s %q", n.Role, n.Name))
		case !platform.LayoutRole(n.Role):
			out = append(out, n.Role)
		}
	}
	return out
}

// actionableWait is how long an action (invoke, click or drag at an element) waits for its
// element to be there and as the action needs it (locateActionable): a page or dialog may still
// be laid out, or checking what was typed, when the action arrives. Chromium fills a page's
// tree in bursts after load and Gecko clears showing while it reflows; both made the first
// click after a page appeared miss now and then. Longer absences are the agent's to wait for
// (wait-for), so a real miss costs at most this.
const actionableWait = time.Second

// actionNeeds says what an action waits for besides its element being there.
type actionNeeds struct {
	showing bool // on screen, with a point to click (input)
	enabled bool // a control that takes actions (semantic actions)
}

// locateActionable locates sel like locate and, while the element is missing or not yet as the
// action needs it (on screen; a control enabled: a dialog's button is insensitive until the
// dialog has checked what was typed), looks again on the application's events for up to
// actionableWait. The first attempt has the call's whole deadline; failures other than a miss
// end it at once, and an element still not as needed is returned for the caller to refuse.
func locateActionable(ctx context.Context, d desktopReader, target WindowTarget, sel *ElementSelector, need actionNeeds) (located, error) {
	ready := func(l located) bool {
		n := l.node
		return n != nil && (!need.showing || onScreen(n)) && (!need.enabled || !controlRoles[n.Role] || enabledNode(n))
	}
	l, err := locate(ctx, d, target, sel)
	if err != nil || ready(l) || sel.Ref != "" && l.node == nil {
		return l, err // a ref that no longer matches will not match again
	}
	var failed error
	_, _, _ = waitFor(ctx, d, actionableWait, "", func(ctx context.Context) (bool, int, error) {
		next, err := locate(ctx, d, target, sel)
		if err != nil {
			if ctx.Err() == nil && !nearDeadline(ctx) {
				failed = err // a real failure, not the wait's own end: report it
			}
			return true, 0, nil
		}
		l = next
		return ready(l), l.window.ProcessID, nil
	})
	if failed != nil {
		return l, failed
	}
	return l, nil
}

// controlRoles are the roles whose elements say whether they are enabled (sensitive) in every
// toolkit; an action waits for those to be enabled, and only those.
var controlRoles = map[string]bool{
	"push button": true, "toggle button": true, "check box": true, "radio button": true, "menu item": true,
	"check menu item": true, "radio menu item": true, "combo box": true, "spin button": true, "slider": true,
	"text": true, "entry": true, "password text": true, "page tab": true, "link": true,
}

// dropLabelsOf leaves out the labels among matches that label another match (AT-SPI's label-for
// relation, the label's own or its parent label's): a web form's <label for> and its field share
// a name, and the field is what a selector by that name means. A label whose relations cannot be
// read stays.
func dropLabelsOf(ctx context.Context, d desktopReader, matches []*platform.Node) []*platform.Node {
	refs := make(map[string]bool, len(matches))
	labels := 0
	for _, n := range matches {
		refs[n.Ref] = true
		if labelRoles[n.Role] {
			labels++
		}
	}
	if labels == 0 || labels == len(matches) {
		return matches
	}
	out := matches[:0:0]
	for _, n := range matches {
		if labelRoles[n.Role] && slices.ContainsFunc(labelTargets(ctx, d, n.Ref), func(r string) bool { return refs[r] }) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// labelTargets lists what the label ref labels: its own label-for relation, or its parent's when
// the parent is a label (Chromium names the text inside a <label for>, a static, like the label).
func labelTargets(ctx context.Context, d desktopReader, ref string) []string {
	el, err := d.Element(ctx, ref)
	if err != nil {
		return nil
	}
	if len(el.LabelFor) > 0 || el.Parent == "" {
		return el.LabelFor
	}
	if p, err := d.Element(ctx, el.Parent); err == nil {
		return p.LabelFor
	}
	return nil
}

// shown reports whether a person sees n: it is showing and, where its extents are known, they are
// not empty.
func shown(n *platform.Node) bool {
	return n.States["showing"] && (n.Bounds == nil || !n.Bounds.Empty())
}

// maxConfirmed bounds the candidates rankShown re-reads for one selector.
const maxConfirmed = 32

// confirmCount is how many of a selector's shown candidates rankShown re-reads: those an
// ambiguity error lists, and every one up to the index asked for.
func (s *ElementSelector) confirmCount() int {
	n := maxCandidates
	if s.Index != nil {
		n = max(n, *s.Index+1)
	}
	return min(n, maxConfirmed)
}

// rankShown orders several matches for index and for the ambiguity error's list: the shown ones
// first, in tree order, then the hidden ones. A lean walk knows states but not extents, and GTK 4
// reports the widgets of hidden pages as visible with 0×0 extents, so the first confirm
// candidates that look shown are re-read in full (concurrently) and their states and bounds
// replace the walk's. A candidate that cannot be re-read keeps what the walk saw.
func rankShown(ctx context.Context, d desktopReader, matches []*platform.Node, lean bool, confirm int) []*platform.Node {
	if lean {
		var wg sync.WaitGroup
		sem := make(chan struct{}, 8)
		checked := 0
		for _, n := range matches {
			if checked == confirm {
				break
			}
			if !shown(n) {
				continue
			}
			checked++
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				if el, err := d.Element(ctx, n.Ref); err == nil {
					n.States, n.Bounds = el.Node.States, el.Node.Bounds
				}
			})
		}
		wg.Wait()
	}
	out := make([]*platform.Node, 0, len(matches))
	for _, n := range matches {
		if shown(n) {
			out = append(out, n)
		}
	}
	for _, n := range matches {
		if !shown(n) {
			out = append(out, n)
		}
	}
	return out
}

// onScreen reports whether a node has a point to click.
func onScreen(n *platform.Node) bool {
	return n.Bounds != nil && !n.Bounds.Empty() && n.States["showing"]
}
