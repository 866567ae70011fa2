package tools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/platform"
)

// Choosing an entry of a combo box, drop-down or <select> (issue 15 §5). The accessibility
// calls toolkits offer for it mostly move a highlight and leave the application's choice alone:
// Qt's entries only toggle their row's selection, Java's popup list selection changes the
// combo box's accessible name and selection but never fires its ActionListener, GTK 4 offers
// nothing, Chromium's <select> declines Selection.SelectChild. So an entry is chosen the way a
// user does: when the combo box is on screen, open it with a click (unless its list shows
// already) and click the entry, or, where the keyboard focus went into the opened list, move
// to the entry with the arrow keys and press Return (GTK 4's popovers report rectangles offset
// from where they are drawn); where the combo box has no point to click (a Wayland window whose
// place is unknown), focus and open it through the accessibility API and use those keys;
// elsewhere through the accessibility API (the backend uses only calls that choose). Either way the combo box must show the entry afterwards, read back from
// the combo box itself, else the call fails value-not-applied with what it shows.

const (
	// maxComboDepth bounds the walk from an entry up to its combo box (Swing nests the list in a
	// viewport, a scroll pane and a popup menu; GTK 4 a row's label seven levels below its drop-down).
	maxComboDepth = 10
	// comboOpenWithin bounds the wait for the opened list to show the entry.
	comboOpenWithin = 1500 * time.Millisecond
	// chosenWithin bounds the wait for the combo box to show the chosen entry.
	chosenWithin = 1500 * time.Millisecond
	// maxComboRows bounds the rows read of one list (indices for the keyboard, names for the check).
	maxComboRows = 500
)

// comboEntry is a select target inside a combo box's popup list.
type comboEntry struct {
	combo platform.Node
	// chain runs from the target up to the combo box's child that holds the list (target first).
	chain []platform.Element
	want  string // the entry's text, which the combo box shows once it is chosen
	// namesEntry: before the action the combo box's name or value was the name of one of the
	// list's entries, so it reports its choice that way (Qt, Swing, GTK 3's value).
	namesEntry bool
	before     comboShown
}

// comboShown is what a combo box shows: its name and value.
type comboShown struct {
	name  string
	value *string
}

func (s comboShown) String() string {
	if s.value != nil && *s.value != "" {
		return fmt.Sprintf("name %q, value %q", s.name, *s.value)
	}
	return fmt.Sprintf("name %q", s.name)
}

// comboStopRoles end the walk up from a select target: no combo box lies above them.
var comboStopRoles = map[string]bool{"frame": true, "dialog": true, "application": true, "document web": true,
	"document frame": true}

// notEntryRoles are parts of a combo box that are not entries (an editable combo box's text).
var notEntryRoles = map[string]bool{"combo box": true, "text": true, "entry": true, "password text": true,
	"push button": true, "toggle button": true}

// findComboEntry returns the combo box n is an entry of, nil when it is none (or has no text to
// check the choice by).
func findComboEntry(ctx context.Context, env *Env, n *platform.Node) *comboEntry {
	if notEntryRoles[n.Role] {
		return nil
	}
	want := strings.TrimSpace(n.Name)
	if want == "" && n.Value != nil {
		want = strings.TrimSpace(*n.Value)
	}
	if want == "" {
		return nil
	}
	el, err := env.Desktop.Element(ctx, n.Ref)
	if err != nil {
		return nil
	}
	chain := []platform.Element{el}
	for range maxComboDepth {
		if el.Parent == "" {
			return nil
		}
		p, err := env.Desktop.Element(ctx, el.Parent)
		if err != nil {
			return nil
		}
		if p.Node.Role == "combo box" {
			ce := &comboEntry{combo: p.Node, chain: chain, want: want, before: comboShown{p.Node.Name, p.Node.Value}}
			ce.namesEntry = ce.listHas(ctx, env, ce.before)
			return ce
		}
		if comboStopRoles[p.Node.Role] {
			return nil
		}
		chain = append(chain, p)
		el = p
	}
	return nil
}

// listHas reports whether the combo box's name or value in s is an entry of the target's list.
func (ce *comboEntry) listHas(ctx context.Context, env *Env, s comboShown) bool {
	if len(ce.chain) < 2 {
		return false
	}
	t, err := env.Desktop.Subtree(ctx, ce.chain[1].Node.Ref, platform.TreeLimits{MaxDepth: 1, MaxNodes: maxComboRows, Lean: true})
	if err != nil || t.Root == nil {
		return false
	}
	for _, c := range t.Root.Children {
		name := strings.TrimSpace(c.Name)
		if name != "" && (name == strings.TrimSpace(s.name) || s.value != nil && name == strings.TrimSpace(*s.value)) {
			return true
		}
	}
	return false
}

// deliverComboEntry chooses the entry (see the top of this file) and verifies the combo box shows
// it.
func deliverComboEntry(ctx context.Context, env *Env, l located, byRef bool, ce *comboEntry, via string) (delivery, error) {
	how, err := chooseComboEntry(ctx, env, l, byRef, ce, via)
	if err != nil {
		return delivery{}, err
	}
	if how.modalPending {
		return how, nil
	}
	shown, ok := ce.waitChosen(ctx, env)
	if !ok {
		return delivery{}, entryNotChosen(ce, how.via, shown, "")
	}
	how.verified = boolPtr(true)
	how.recheck = func(ctx context.Context) error {
		if s, ok := ce.chosen(ctx, env); !ok {
			return entryNotChosen(ce, how.via, s, "after the UI settled")
		}
		return nil
	}
	return how, nil
}

// chooseComboEntry delivers the choice by the path via asks for.
func chooseComboEntry(ctx context.Context, env *Env, l located, byRef bool, ce *comboEntry, via string) (delivery, error) {
	n := l.node
	viaA11y := func() (delivery, error) {
		out, err := env.Desktop.Act(ctx, n.Ref, platform.ActSelect, "")
		if err != nil {
			return delivery{}, actionError(err, platform.ActSelect, n)
		}
		return delivery{via: viaAccessibility, modalPending: out.ModalPending}, nil
	}
	if via == viaAccessibility {
		return viaA11y()
	}
	if _, shows := ce.entryPoint(ctx, env); !shows {
		// Open the list with a click on the combo box, as a user does.
		cl := located{window: l.window, node: &ce.combo}
		s, why := clickSpot(ctx, env, cl, byRef)
		if why != "" {
			if via == viaInput {
				return delivery{}, contract.Errorf(contract.CodePatternUnsupported,
					"via input: the combo box %s of %s cannot be clicked to open its list: %s; use via auto or accessibility",
					describeNode(&ce.combo), describeNode(n), why)
			}
			if how, ok := ce.chooseByKeys(ctx, env, l); ok {
				return how, nil
			}
			return viaA11y()
		}
		if _, err := clickElement(ctx, env, &ce.combo, s); err != nil {
			return delivery{}, err
		}
		if !ce.waitOpen(ctx, env, l.window.ProcessID) {
			if via == viaAuto {
				// The list did not show the entry (it may need scrolling): close it again and
				// let the accessibility API try.
				_ = pressKeys(ctx, env, l.window, "Escape")
				return viaA11y()
			}
			return delivery{}, contract.Errorf(contract.CodePatternUnsupported,
				"via input: clicked the combo box %s, but its list did not show %s within %v", describeNode(&ce.combo), describeNode(n), comboOpenWithin)
		}
	}
	if keys := ce.keysTo(ctx, env, l.window.ProcessID); keys != nil {
		if err := pressKeys(ctx, env, l.window, keys...); err != nil {
			return delivery{}, err
		}
		return delivery{via: viaInput}, nil
	}
	at, shows := ce.entryPoint(ctx, env)
	if !shows {
		return delivery{}, contract.Errorf(contract.CodePatternUnsupported, "%s in the open list of %s has no point to click and the keyboard focus is not in the list",
			describeNode(n), describeNode(&ce.combo))
	}
	if !enabledNode(n) {
		return delivery{}, contract.Errorf(contract.CodeInvokeFaulted, "choosing %s would do nothing: it is disabled", describeNode(n))
	}
	w := freshWindow(ctx, env, l.window)
	if err := gesture(ctx, env, w, func(ctx context.Context, in platform.Input) error {
		return in.Click(ctx, at, platform.ButtonLeft, 1)
	}); err != nil {
		return delivery{}, err
	}
	return delivery{via: viaInput}, nil
}

// chooseByKeys chooses the entry with the keyboard where the combo box has no point to click
// (a window whose place the compositor does not tell; Swing under Xwayland): the combo box is
// focused and opened through the accessibility API, and the arrow keys move the list's focus to
// the entry, Return chooses it. ok is false, with the list closed again, where the combo box
// cannot be opened so or the focus does not go into its list: the caller then tries the
// accessibility API's choice.
func (ce *comboEntry) chooseByKeys(ctx context.Context, env *Env, l located) (delivery, bool) {
	pid := l.window.ProcessID
	if pid <= 0 {
		return delivery{}, false
	}
	if _, err := env.Desktop.Act(ctx, ce.combo.Ref, platform.ActSetFocus, ""); err != nil {
		return delivery{}, false
	}
	if _, err := env.Desktop.Act(ctx, ce.combo.Ref, platform.ActExpand, ""); err != nil {
		return delivery{}, false
	}
	if !ce.waitListShown(ctx, env) {
		_ = pressKeys(ctx, env, l.window, "Escape")
		return delivery{}, false
	}
	keys := ce.keysTo(ctx, env, pid)
	if keys == nil {
		// Swing keeps the keyboard focus on the combo box while its list is open; the arrows
		// move the list's selection, which stands for the highlight.
		keys = ce.keysFromSelected(ctx, env)
	}
	if keys == nil {
		_ = pressKeys(ctx, env, l.window, "Escape")
		return delivery{}, false
	}
	if err := pressKeys(ctx, env, l.window, keys...); err != nil {
		return delivery{}, false
	}
	return delivery{via: viaInput}, true
}

// freshWindow re-reads w (whether it is focused now decides whether it is activated again: an
// activation could close an open popup).
func freshWindow(ctx context.Context, env *Env, w platform.Window) platform.Window {
	if w.Handle == 0 {
		return w
	}
	if f, err := env.Desktop.Window(ctx, w.Handle); err == nil {
		return f
	}
	return w
}

// pressKeys presses each key (a keysym name) in turn through the input gate.
func pressKeys(ctx context.Context, env *Env, w platform.Window, keys ...string) error {
	return gesture(ctx, env, freshWindow(ctx, env, w), func(ctx context.Context, in platform.Input) error {
		for _, k := range keys {
			if err := in.Chord(ctx, k); err != nil {
				return err
			}
		}
		return nil
	})
}

// entryPoint re-reads the target and its parent and returns where a click reaches the entry:
// the centre of the part of it inside its parent (Qt's rows are wider than their list), or its
// own centre where the parent's rectangle lies elsewhere (Chromium's <select> list keeps the
// select's). shows is false while the list is closed: the entry or its parent not showing or
// without a rectangle (Qt keeps its rows' last rectangles in a closed list of zero size).
func (ce *comboEntry) entryPoint(ctx context.Context, env *Env) (platform.Point, bool) {
	if len(ce.chain) < 2 {
		return platform.Point{}, false
	}
	t, err := env.Desktop.Element(ctx, ce.chain[0].Node.Ref)
	if err != nil {
		return platform.Point{}, false
	}
	p, err := env.Desktop.Element(ctx, ce.chain[1].Node.Ref)
	if err != nil {
		return platform.Point{}, false
	}
	tb, pb := t.Node.Bounds, p.Node.Bounds
	if !t.Node.States["showing"] || !p.Node.States["showing"] || tb == nil || pb == nil || tb.Empty() || pb.Empty() {
		return platform.Point{}, false
	}
	in := tb.Intersect(*pb)
	if in.Empty() {
		in = *tb
	}
	c := platform.Point{X: in.X + in.Width/2, Y: in.Y + in.Height/2}
	if d, err := env.Desktop.Displays(ctx); err == nil && !d.VirtualBounds.Empty() && !inside(d.VirtualBounds, c) {
		return platform.Point{}, false
	}
	return c, true
}

// waitOpen waits for the opened list to show the entry or to take the keyboard focus.
func (ce *comboEntry) waitOpen(ctx context.Context, env *Env, pid int) bool {
	deadline := time.Now().Add(comboOpenWithin)
	for pause := 20 * time.Millisecond; ; pause = min(2*pause, 100*time.Millisecond) {
		if _, ok := ce.entryPoint(ctx, env); ok {
			return true
		}
		if ce.focusRow(ctx, env, pid) != nil {
			return true
		}
		if time.Now().Add(pause).After(deadline) || sleep(ctx, pause) != nil {
			return false
		}
	}
}

// rowFocus is a keyboard focus on a row of the entry's list.
type rowFocus struct {
	container string // the list
	focused   string // the focused row
	row       string // the entry's row
}

// focusRow returns the focus when it is on a row of the list that holds the entry: a sibling of
// the target or of one of its ancestors below the combo box.
func (ce *comboEntry) focusRow(ctx context.Context, env *Env, pid int) *rowFocus {
	if pid <= 0 {
		return nil
	}
	f, err := env.Desktop.Focused(ctx, pid)
	if err != nil || f.Parent == "" {
		return nil
	}
	for _, a := range ce.chain {
		if a.Parent == f.Parent {
			return &rowFocus{container: f.Parent, focused: f.Node.Ref, row: a.Node.Ref}
		}
	}
	return nil
}

// keysTo returns the keys that move the keyboard focus from the focused row to the entry's row
// and choose it (arrows, then Return); nil when the focus is not in the entry's list.
func (ce *comboEntry) keysTo(ctx context.Context, env *Env, pid int) []string {
	rf := ce.focusRow(ctx, env, pid)
	if rf == nil {
		return nil
	}
	t, err := env.Desktop.Subtree(ctx, rf.container, platform.TreeLimits{MaxDepth: 1, MaxNodes: maxComboRows, Lean: true})
	if err != nil || t.Root == nil {
		return nil
	}
	from, to := -1, -1
	for i, c := range t.Root.Children {
		switch c.Ref {
		case rf.focused:
			from = i
		case rf.row:
			to = i
		}
	}
	if rf.focused == rf.row {
		from = to
	}
	if from < 0 || to < 0 {
		return nil
	}
	return arrowsThenReturn(from, to)
}

// waitListShown waits for the entry's list to show (the entry's parent: showing, whether it has
// a place or not).
func (ce *comboEntry) waitListShown(ctx context.Context, env *Env) bool {
	if len(ce.chain) < 2 {
		return false
	}
	deadline := time.Now().Add(comboOpenWithin)
	for pause := 20 * time.Millisecond; ; pause = min(2*pause, 100*time.Millisecond) {
		if p, err := env.Desktop.Element(ctx, ce.chain[1].Node.Ref); err == nil && p.Node.States["showing"] {
			return true
		}
		if time.Now().Add(pause).After(deadline) || sleep(ctx, pause) != nil {
			return false
		}
	}
}

// keysFromSelected returns the keys that move an open list's selection (its highlight) from the
// selected row to the entry's row (the one row of its text) and choose it; nil when the list
// has no one selected row.
func (ce *comboEntry) keysFromSelected(ctx context.Context, env *Env) []string {
	if len(ce.chain) < 2 {
		return nil
	}
	t, err := env.Desktop.Subtree(ctx, ce.chain[1].Node.Ref, platform.TreeLimits{MaxDepth: 1, MaxNodes: maxComboRows, Lean: true})
	if err != nil || t.Root == nil {
		return nil
	}
	from, to := -1, -1
	for i, c := range t.Root.Children {
		if c.States["selected"] {
			if from >= 0 {
				return nil
			}
			from = i
		}
		// By its text: Java's rows are new objects at every read.
		if strings.TrimSpace(c.Name) == ce.want {
			if to >= 0 {
				return nil
			}
			to = i
		}
	}
	if from < 0 || to < 0 {
		return nil
	}
	return arrowsThenReturn(from, to)
}

// arrowsThenReturn are the keys that move a list's focus or highlight from row from to row to,
// then choose it.
func arrowsThenReturn(from, to int) []string {
	key := "Down"
	if to < from {
		key = "Up"
	}
	keys := make([]string, 0, abs(to-from)+1)
	for range abs(to - from) {
		keys = append(keys, key)
	}
	return append(keys, "Return")
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// waitChosen waits for the combo box to show the entry: its name or value is the entry's text;
// or a part of it outside the entry's list (GTK 4's button label) shows the text; or, where the
// combo box does not name its choice (Chromium's <select> keeps its label), the entry reports
// selected.
func (ce *comboEntry) waitChosen(ctx context.Context, env *Env) (comboShown, bool) {
	shown := ce.before
	deadline := time.Now().Add(chosenWithin)
	for pause := 10 * time.Millisecond; ; pause = min(2*pause, 100*time.Millisecond) {
		if s, ok := ce.chosen(ctx, env); ok {
			return s, true
		} else if s.name != "" || s.value != nil {
			shown = s
		}
		if time.Now().Add(pause).After(deadline) || sleep(ctx, pause) != nil {
			return shown, false
		}
	}
}

// chosen reads the combo box once.
func (ce *comboEntry) chosen(ctx context.Context, env *Env) (comboShown, bool) {
	c, err := env.Desktop.Element(ctx, ce.combo.Ref)
	if err != nil {
		return comboShown{}, false
	}
	s := comboShown{c.Node.Name, c.Node.Value}
	if strings.TrimSpace(s.name) == ce.want || s.value != nil && strings.TrimSpace(*s.value) == ce.want {
		return s, true
	}
	// WebKitGTK names a <select> after its label and its choice ("Plan Basic" → "Plan Pro").
	if suffix := " " + ce.want; strings.HasSuffix(strings.TrimSpace(s.name), suffix) && !strings.HasSuffix(strings.TrimSpace(ce.before.name), suffix) {
		return s, true
	}
	// A part of the combo box outside the list (the entry's own chain is skipped).
	if t, err := env.Desktop.Subtree(ctx, ce.combo.Ref, platform.TreeLimits{MaxDepth: 8, MaxNodes: 200, MaxChildren: 50, Lean: true}); err == nil && t.Root != nil {
		list := ce.chain[len(ce.chain)-1].Node.Ref
		for _, k := range t.Root.Children {
			if k.Ref != list && subtreeNames(k, ce.want) {
				return s, true
			}
		}
	}
	if ce.namesEntry || strings.TrimSpace(s.name) != strings.TrimSpace(ce.before.name) {
		return s, false
	}
	// The combo box does not name its choice: the entry's own selected state tells.
	for _, a := range ce.chain[:min(2, len(ce.chain))] {
		if e, err := env.Desktop.Element(ctx, a.Node.Ref); err == nil && e.Node.States["selected"] && e.Node.Name == ce.chain[0].Node.Name {
			return s, true
		}
	}
	return s, false
}

// subtreeNames reports whether a node under n (n included) is named want.
func subtreeNames(n *platform.Node, want string) bool {
	if strings.TrimSpace(n.Name) == want {
		return true
	}
	for _, c := range n.Children {
		if subtreeNames(c, want) {
			return true
		}
	}
	return false
}

// entryNotChosen is the error of a choice the combo box does not show.
func entryNotChosen(ce *comboEntry, via string, shown comboShown, when string) error {
	how := "the accessibility API accepted it"
	if via == viaInput {
		how = "it was chosen with real input"
	}
	if when != "" {
		how += ", " + when
	}
	e := contract.Errorf(contract.CodeValueNotApplied, "select of %q in combo box %s: %s, but the combo box shows %s",
		ce.want, describeNode(&ce.combo), how, shown)
	var value *string
	switch {
	case shown.value != nil && *shown.value != "":
		value = shown.value
	default:
		v := shown.name
		value = &v
	}
	e.PartialResult = map[string]any{"value": value, "via": via, "element": element(&ce.combo)}
	return e
}
