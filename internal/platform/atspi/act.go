package atspi

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/godbus/dbus/v5"

	"github.com/mcec/mcec/internal/platform"
)

const (
	ifEditableText = "org.a11y.atspi.EditableText"
	ifSelection    = "org.a11y.atspi.Selection"
)

// States the plans look at besides those of states.go.
const (
	stateChecked   = 4
	stateSelected  = 23
	stateCheckable = 41
)

// toggleRoles may be toggled with their click or press action when they have no "toggle".
var toggleRoles = map[string]bool{
	"check box": true, "toggle button": true, "radio button": true, "check menu item": true,
	"radio menu item": true, "switch": true,
}

// plan is the one call that performs an action.
type plan struct {
	target objRef // usually the object; its parent or combo box for select
	method string
	args   []any
	okBool bool // the reply is a boolean; false means the application refused
	noop   bool // already in the requested state
}

// outcome is what performing a plan showed.
type outcome struct {
	reply  *dbus.Call
	states stateBits // the object's states right after, when it answered
	gone   bool      // the object or its application went away because of the action
	modal  bool      // the application stopped answering: a nested (modal) loop runs
}

// Act performs a semantic action on the object ref:
//
//   - invoke: the first action named click, press, activate, jump, open or select (in that
//     order), or the only action of an object that has exactly one.
//   - toggle: the "toggle" action; for check boxes, toggle and radio buttons, check menu
//     items, switches and checkable objects also check/uncheck (the one of the pair that
//     changes the state when both are offered: Firefox and Chromium name the one action after
//     what it does next), click, press or activate (GTK 3, Java: click; Qt: Toggle or Press).
//   - setvalue: a number for an object with Value (slider, spin button) sets CurrentValue
//     (platform.ErrBadValue when text is not a number or outside the range; refused when the value
//     does not move); otherwise EditableText.SetTextContents(text). Password fields take it
//     like any entry; the text never appears in errors or logs, and since their text cannot
//     be read back, their character count is compared with the text's instead
//     (platform.ErrActionFailed when it differs). Callers verify other text by reading it back.
//   - setfocus: Component.GrabFocus, then the object must report "focused" within
//     Options.ModalGrace (platform.ErrNotFocused otherwise).
//   - expand, collapse: the "expand"/"collapse" or "expand or contract" action (or the
//     default action of an expander), only when the "expanded" state differs: expanding an
//     expanded object succeeds without acting. Combo boxes count as expanded while their popup
//     shows. Menus that offer only click (GTK 3's menu bar titles and submenus) count as
//     expanded while one of their items shows: expand clicks them, collapse clears the
//     selection of the menu shell they sit in (Selection.ClearSelection on the parent), which
//     closes the open menu without input.
//   - select: an entry of a combo box (up to ten levels below one) only through calls that
//     choose (comboSelect); a menu item by its own select, click, press or activate action
//     (selecting a menu item means choosing it, and a menu's Selection only highlights);
//     anything else by SelectChild(its index) on the parent's Selection, else its own select or
//     click action.
//
// An object that cannot do the action fails with platform.ErrUnsupported, naming what it can
// do; a disabled one, or an application that refuses, with platform.ErrActionFailed (setfocus:
// platform.ErrNotFocused); a malformed ref with platform.ErrBadRef; a gone object with
// platform.ErrElementStale.
//
// The call that acts and a probe of the object right after it are each bounded by
// Options.ModalGrace: GTK answers DoAction before running the handler, and a handler that
// runs a modal dialog's nested loop (gtk_dialog_run) leaves the application answering no
// AT-SPI call until the dialog closes. Either deadline passing yields ModalPending with no
// error; the action then still runs, and the abandoned call's late reply is dropped.
func (c *Client) Act(ctx context.Context, ref string, action platform.ElementAction, text string) (platform.ActResult, error) {
	bus, path, err := c.parseRef(ref)
	if err != nil {
		return platform.ActResult{}, err
	}
	what := withActions
	switch action {
	case platform.ActSelect, platform.ActExpand, platform.ActCollapse:
		what |= withProps // the parent: a menu closes through its menu shell
	}
	o, err := c.inspect(ctx, objRef{bus, path}, what)
	if err != nil {
		return platform.ActResult{}, err
	}
	var p plan
	switch action {
	case platform.ActInvoke:
		p, err = invokePlan(o)
	case platform.ActToggle:
		p, err = togglePlan(o)
	case platform.ActSetValue:
		return c.setValue(ctx, o, text)
	case platform.ActSetFocus:
		return c.setFocus(ctx, o)
	case platform.ActExpand, platform.ActCollapse:
		p, err = c.expandPlan(ctx, o, action == platform.ActExpand)
	case platform.ActSelect:
		combo, row, cerr := c.comboOf(ctx, o)
		if cerr != nil {
			return platform.ActResult{}, cerr
		}
		if !combo.null() {
			return c.comboSelect(ctx, o, combo, row)
		}
		p, err = c.selectPlan(ctx, o)
	default:
		return platform.ActResult{}, fmt.Errorf("%w: unknown action %q", platform.ErrUnsupported, action)
	}
	if err != nil || p.noop {
		return platform.ActResult{}, err
	}
	if err := enabled(o, platform.ErrActionFailed); err != nil {
		return platform.ActResult{}, err
	}
	out, err := c.perform(ctx, o, p)
	return platform.ActResult{ModalPending: out.modal}, err
}

// enabled fails with sentinel for an insensitive object: GTK answers DoAction with true and
// then silently does nothing.
func enabled(o *object, sentinel error) error {
	if !o.is(stateEnabled) && !o.is(stateSensitive) {
		return fmt.Errorf("%w: %s is disabled", sentinel, o.label())
	}
	return nil
}

func (o *object) ref() string { return o.refStr }

// label names o in an error: its role, its name when it has one, and its ref. An empty name is
// left out rather than printed as "" (the object may have been read without it).
func (o *object) label() string {
	if o.n.info.name == "" {
		return fmt.Sprintf("%s (%s)", o.role(), o.ref())
	}
	return fmt.Sprintf("%s %q (%s)", o.role(), o.n.info.name, o.ref())
}

// perform makes p's call and checks its boolean reply.
func (c *Client) perform(ctx context.Context, o *object, p plan) (outcome, error) {
	out, err := c.mutate(ctx, p.target, o.n.ref, p.method, p.args...)
	if err != nil || out.modal || !p.okBool {
		return out, err
	}
	var ok bool
	if err := out.reply.Store(&ok); err == nil && !ok {
		return out, fmt.Errorf("%w: %s: the application declined %s", platform.ErrActionFailed,
			o.label(), shortMethod(p.method))
	}
	return out, nil
}

func shortMethod(m string) string { return strings.TrimPrefix(m, "org.a11y.atspi.") }

// mutate makes a call that changes the application, then probes the object with GetState
// (see Act for why both); either call still unanswered once awaitCall has told a nested loop
// from a busy application reports the action as modal.
func (c *Client) mutate(ctx context.Context, target, probe objRef, method string, args ...any) (outcome, error) {
	var out outcome
	grace := c.modalGrace()
	call, looping := c.awaitCall(ctx, grace, probe, target, method, args...)
	// The caller's own deadline passing counts like ours: the action may be under way.
	canceled := func() bool { return errors.Is(ctx.Err(), context.Canceled) }
	if looping {
		out.modal = true
		return out, nil
	}
	if err := call.Err; err != nil {
		f := classify(err)
		switch {
		case canceled():
			return out, ctx.Err()
		case f == failHung:
			out.modal = true
			return out, nil
		case f == failDead:
			return out, c.staleErr(target, "it disappeared before the action")
		case f == failNoIface:
			return out, fmt.Errorf("%w: %s refused %s: %v", platform.ErrActionFailed,
				c.refOf(target), shortMethod(method), err)
		}
		return out, c.callError(err, grace, target.Bus, target.Path, method)
	}
	out.reply = call
	pc, looping := c.awaitCall(ctx, grace, probe, probe, ifAccessible+".GetState")
	if looping {
		out.modal = true
		return out, nil
	}
	if err := pc.Err; err != nil {
		f := classify(err)
		switch {
		case canceled():
			return out, ctx.Err()
		case f == failHung:
			out.modal = true
		case f == failDead, f == failNoIface, f == failGone:
			out.gone = true // the action closed its own window, or ended the application
		default:
			return out, c.callError(err, grace, probe.Bus, probe.Path, "GetState")
		}
		return out, nil
	}
	var words []uint32
	_ = pc.Store(&words)
	out.states = bitsFrom(words)
	return out, nil
}

// tieWithin is how long a call may still take after a read sent later was answered, before
// the application is taken for looping in a nested main loop: a busy application that finally
// returns to its main loop answers both in one turn, its own socket's read maybe first.
const tieWithin = 100 * time.Millisecond

// awaitCall makes one call on the bus and waits grace for its answer. An application silent
// that long is in a nested (modal) main loop that the action started, or only busy (a loaded
// machine, a slow handler), or hung. A read of probe's state, sent then, tells which: an
// application in a nested loop answers it while the call waits (its own socket answers even
// when its bus connection waits for the loop to end, peer.go), a busy one answers the call
// first. looping is true when the read was answered and the call still was not within
// tieWithin; otherwise the call is returned as it ended, with a deadline error when neither
// was answered within a call deadline more (classify: failHung).
func (c *Client) awaitCall(ctx context.Context, grace time.Duration, probe, r objRef, method string, args ...any) (call *dbus.Call, looping bool) {
	c.calls.Add(1)
	cctx, cancel := context.WithTimeout(ctx, grace+c.callTimeout())
	defer cancel()
	call = c.conn.Object(r.Bus, r.Path).GoWithContext(cctx, method, 0, make(chan *dbus.Call, 1), args...)
	answered := func(within time.Duration) bool {
		t := time.NewTimer(within)
		defer t.Stop()
		select {
		case <-call.Done:
			return true
		case <-t.C:
			return false
		}
	}
	if answered(grace) {
		return call, false
	}
	read := make(chan error, 1)
	go func() {
		_, _, err := c.states(cctx, probe)
		read <- err
	}()
	select {
	case <-call.Done:
		return call, false
	case err := <-read:
		if err == nil {
			return call, !answered(c.stretch(tieWithin))
		}
		<-call.Done // the read failed too: wait for the call's own end (cctx bounds it)
		return call, false
	}
}

// actionIndex finds the first of names among the object's actions.
func actionIndex(actions []string, names ...string) int {
	for _, name := range names {
		if i := slices.IndexFunc(actions, func(a string) bool { return strings.EqualFold(a, name) }); i >= 0 {
			return i
		}
	}
	return -1
}

func doAction(o *object, i int) plan {
	return plan{target: o.n.ref, method: ifAction + ".DoAction", args: []any{int32(i)}, okBool: true}
}

// unsupported says what o can do instead, so the caller can pick another action.
func unsupported(o *object, action platform.ElementAction, why string) error {
	acts := "none"
	if len(o.n.actions) > 0 {
		acts = strings.Join(o.n.actions, ", ")
	}
	return fmt.Errorf("%w: %s on %s: %s; it can do: actions [%s], interfaces [%s]",
		platform.ErrUnsupported, action, o.label(), why, acts, ifaceNames(o.n.info.ifaces))
}

// ifaceNames lists the interfaces in s by their short names, sorted.
func ifaceNames(s ifaceSet) string {
	var names []string
	for full, bit := range ifaceBits {
		if s&bit != 0 {
			names = append(names, strings.TrimPrefix(full, "org.a11y.atspi."))
		}
	}
	slices.Sort(names)
	if len(names) == 0 {
		return "Accessible only"
	}
	return strings.Join(names, ", ")
}

func invokePlan(o *object) (plan, error) {
	// "select" last: Chromium's menu items offer it as their activation.
	i := actionIndex(o.n.actions, "click", "press", "activate", "jump", "open", "select")
	if i < 0 && len(o.n.actions) == 1 {
		i = 0
	}
	if i < 0 {
		return plan{}, unsupported(o, platform.ActInvoke, "no default action")
	}
	return doAction(o, i), nil
}

func togglePlan(o *object) (plan, error) {
	acts := o.n.actions
	i := actionIndex(acts, "toggle")
	if i < 0 && (toggleRoles[o.role()] || o.is(stateCheckable)) {
		// Of a check/uncheck pair, the one that changes the state; a lone check or uncheck is
		// the toggle itself (the browsers rename their one action after the state).
		check, uncheck := actionIndex(acts, "check"), actionIndex(acts, "uncheck")
		switch {
		case check >= 0 && uncheck >= 0 && o.is(stateChecked):
			i = uncheck
		case check >= 0 && uncheck >= 0:
			i = check
		default:
			i = actionIndex(acts, "click", "press", "activate", "check", "uncheck")
		}
	}
	if i < 0 {
		return plan{}, unsupported(o, platform.ActToggle, "no toggle action")
	}
	return doAction(o, i), nil
}

// expandPlan acts only when the expanded state differs from the one wanted.
func (c *Client) expandPlan(ctx context.Context, o *object, want bool) (plan, error) {
	action, dir := platform.ActCollapse, "collapse"
	if want {
		action, dir = platform.ActExpand, "expand"
	}
	acts := o.n.actions
	switch {
	case o.is(stateExpandable) || o.is(stateExpanded):
		if o.is(stateExpanded) == want {
			return plan{noop: true}, nil
		}
		// Not "toggle": a tree cell's toggle flips its check box, not its row.
		if i := actionIndex(acts, dir, "expand or contract", "activate", "click", "press"); i >= 0 {
			return doAction(o, i), nil
		}
	case o.role() == "combo box":
		open, err := c.comboOpen(ctx, o)
		if err != nil {
			return plan{}, err
		}
		if open == want {
			return plan{noop: true}, nil
		}
		// Java's combo box offers togglePopup alone: safe, as its state was just read.
		if i := actionIndex(acts, "press", "click", "activate", "togglePopup"); i >= 0 {
			return doAction(o, i), nil
		}
	case o.role() == "menu" && o.n.info.childCount != 0:
		open, err := c.menuOpen(ctx, o)
		if err != nil {
			return plan{}, err
		}
		if open == want {
			return plan{noop: true}, nil
		}
		if want {
			if i := actionIndex(acts, dir, "click", "press", "activate"); i >= 0 {
				return doAction(o, i), nil
			}
			break
		}
		// Clicking an open GTK 3 menu again leaves it open; deselecting it in its menu shell
		// (the menu bar, or the menu of a submenu) pops it down.
		if i := actionIndex(acts, dir); i >= 0 {
			return doAction(o, i), nil
		}
		if !o.parent.null() && o.parent.Path != appRoot {
			if _, pifaces, err := c.kind(ctx, o.parent); err == nil && pifaces&hasSelection != 0 {
				return plan{target: o.parent, method: ifSelection + ".ClearSelection", okBool: true}, nil
			}
		}
		return plan{}, unsupported(o, action, "its menu shell has no Selection to close it by (press Escape)")
	default:
		// A direction-specific action needs no state to be idempotent.
		if i := actionIndex(acts, dir); i >= 0 {
			return doAction(o, i), nil
		}
		return plan{}, unsupported(o, action, "not expandable")
	}
	return plan{}, unsupported(o, action, "no action expands or collapses it")
}

// maxMenuProbe bounds how many of a menu's items menuOpen reads: a separator or hidden item
// may come first, but an open menu shows most of its items.
const maxMenuProbe = 4

// menuOpen reports whether a menu's popup shows: GTK 3 menus have no expanded state, but their
// items report showing only while the menu is open.
func (c *Client) menuOpen(ctx context.Context, o *object) (bool, error) {
	return c.childShowing(ctx, o, maxMenuProbe, nil)
}

// comboOpen reports whether a combo box's popup shows: GTK's and Qt's combo boxes have no
// expanded state, but their popup (a menu, window or list child) reports showing, with a
// rectangle, while open.
func (c *Client) comboOpen(ctx context.Context, o *object) (bool, error) {
	return c.childShowing(ctx, o, -1, func(ctx context.Context, k objRef) (bool, error) {
		role, _, err := c.kind(ctx, k)
		if err != nil {
			if errors.Is(err, platform.ErrElementStale) {
				return false, nil
			}
			return false, err
		}
		name, _ := roleName(role)
		if name != "menu" && name != "window" && name != "list" && name != "list box" {
			return false, nil
		}
		// Qt's closed popup list reports showing, with an empty rectangle.
		r, ok, f, err := c.extents(ctx, k, c.knownBridge(k.Bus).coordType())
		if err != nil {
			if f.fatal() {
				return false, err
			}
			return false, nil
		}
		rect := extentsRect(r)
		return ok && rect != nil && !rect.Empty(), nil
	})
}

// childShowing reports whether one of o's first limit children (all when limit < 0) that keep
// accepts (all when keep is nil) reports showing.
func (c *Client) childShowing(ctx context.Context, o *object, limit int, keep func(context.Context, objRef) (bool, error)) (bool, error) {
	r := o.n.ref
	call, f, err := c.call(ctx, r.Bus, r.Path, ifAccessible+".GetChildren")
	if err != nil {
		if f.fatal() {
			return false, err
		}
		return false, c.staleErr(r, "its children cannot be read")
	}
	var kids []objRef
	_ = call.Store(&kids)
	if limit >= 0 {
		kids = kids[:min(len(kids), limit)]
	}
	for _, k := range kids {
		if keep != nil {
			ok, err := keep(ctx, k)
			if err != nil {
				return false, err
			}
			if !ok {
				continue
			}
		}
		words, f, err := c.states(ctx, k)
		if err != nil {
			if f.fatal() {
				return false, err
			}
			continue
		}
		if words.has(stateShowing) {
			return true, nil
		}
	}
	return false, nil
}

// kind returns an object's role and interfaces, from the meta cache when it knows them.
func (c *Client) kind(ctx context.Context, r objRef) (uint32, ifaceSet, error) {
	if m := c.meta.get(r); m.has&metaKind != 0 {
		return m.role, m.ifaces, nil
	}
	n := &node{ref: r, info: &objInfo{}, gotKind: true}
	if err := run(ctx, nil, c.kindJobs(n, orDead)); err != nil {
		return 0, 0, err
	}
	if n.dead.Load() {
		return 0, 0, c.staleErr(r, "the application no longer knows it")
	}
	c.remember(n)
	return n.info.role, n.info.ifaces, nil
}

// maxComboDepth bounds the walk from a select target up to the combo box it is an entry of
// (Swing: label, list, viewport, scroll pane, popup menu, combo box; GTK 4: seven levels).
const maxComboDepth = 10

// selectPlan chooses a menu item by its own action (a menu's Selection only highlights), and
// selects anything else through its parent's Selection, else by its own select or click action.
// Entries of combo boxes go through comboSelect instead.
func (c *Client) selectPlan(ctx context.Context, o *object) (plan, error) {
	if menuItemRoles[o.role()] {
		if i := actionIndex(o.n.actions, "select", "click", "press", "activate"); i >= 0 {
			return doAction(o, i), nil
		}
	}
	if o.index >= 0 && !o.parent.null() && o.parent.Path != appRoot {
		_, pifaces, err := c.kind(ctx, o.parent)
		if err != nil && !errors.Is(err, platform.ErrElementStale) {
			return plan{}, err
		}
		if err == nil && pifaces&hasSelection != 0 {
			return plan{target: o.parent, method: ifSelection + ".SelectChild", args: []any{o.index}, okBool: true}, nil
		}
	}
	if i := actionIndex(o.n.actions, "select", "click", "press"); i >= 0 {
		return doAction(o, i), nil
	}
	return plan{}, unsupported(o, platform.ActSelect, "its parent has no Selection and it has no select or click action")
}

// entrySelectedWithin bounds the wait for an entry's selected state after its select action.
const entrySelectedWithin = 300 * time.Millisecond

// comboSelect chooses an entry of a combo box's popup list. Only some calls choose: the
// combo box's Selection.SelectChild (GTK 3), the entry's own "select" action (Chromium's
// options; Firefox's do nothing) and the Selection of a list directly under the combo box
// (Firefox's <select>). The popup list's selection in other toolkits, and the entries' click or
// toggle actions, only move the highlight: the application's choice stays, while Java's combo box
// even reports the highlighted entry as its name and selection. Java's SelectChild on the combo
// box clears the choice instead of making it, so Java's combo boxes get none of these. They are
// tried in that order; the select action counts only when the entry then reports selected. The
// caller reads the combo box back. row is the entry's index in a list directly under the combo
// box (-1 otherwise).
func (c *Client) comboSelect(ctx context.Context, o *object, combo objRef, row int32) (platform.ActResult, error) {
	if err := enabled(o, platform.ErrActionFailed); err != nil {
		return platform.ActResult{}, err
	}
	lies := c.knownBridge(combo.Bus).comboSelectionLies
	_, cifaces, err := c.kind(ctx, combo)
	if err != nil {
		return platform.ActResult{}, err
	}
	if cifaces&hasSelection != 0 && row >= 0 && !lies {
		out, err := c.perform(ctx, o, plan{target: combo, method: ifSelection + ".SelectChild", args: []any{row}, okBool: true})
		return platform.ActResult{ModalPending: out.modal}, err
	}
	var firstErr error
	if i := actionIndex(o.n.actions, "select"); i >= 0 && !lies {
		out, err := c.perform(ctx, o, doAction(o, i))
		if err != nil || out.modal || out.gone {
			return platform.ActResult{ModalPending: out.modal}, err
		}
		if c.becomesSelected(ctx, o.n.ref) {
			return platform.ActResult{}, nil
		}
		firstErr = fmt.Errorf("%w: %s: its select action left it unselected", platform.ErrActionFailed, o.label())
	}
	if row >= 0 && !lies {
		if _, pifaces, err := c.kind(ctx, o.parent); err == nil && pifaces&hasSelection != 0 {
			out, err := c.perform(ctx, o, plan{target: o.parent, method: ifSelection + ".SelectChild", args: []any{row}, okBool: true})
			return platform.ActResult{ModalPending: out.modal}, err
		}
	}
	if firstErr != nil {
		return platform.ActResult{}, firstErr
	}
	return platform.ActResult{}, unsupported(o, platform.ActSelect, "an entry of a combo box is chosen through the combo box, "+
		"which offers no way to choose it (its list's own selection only highlights); choose it with input (invoke via auto, or click the combo box, then the entry)")
}

// becomesSelected waits, at most entrySelectedWithin, for the object to report selected.
func (c *Client) becomesSelected(ctx context.Context, r objRef) bool {
	deadline := time.Now().Add(entrySelectedWithin)
	for pause := 5 * time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		if words, _, err := c.states(ctx, r); err == nil && words.has(stateSelected) {
			return true
		}
		if time.Now().Add(pause).After(deadline) {
			return false
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
	}
}

// menuItemRoles are the items a menu holds; selecting one chooses it.
var menuItemRoles = map[string]bool{
	"menu item": true, "check menu item": true, "radio menu item": true, "tearoff menu item": true, "menu": true,
}

// comboOf finds the combo box o is an entry of: up the parents, at most maxComboDepth levels;
// the null ref when there is none. row is o's index when its parent sits directly under the
// combo box (a GTK 3 combo box's menu), -1 otherwise. Text inside a combo box (an editable
// combo box's entry) is not an entry.
func (c *Client) comboOf(ctx context.Context, o *object) (combo objRef, row int32, err error) {
	switch o.role() {
	case "combo box", "text", "entry", "password text", "push button", "toggle button":
		return objRef{}, -1, nil
	}
	r := o.parent
	for depth := range maxComboDepth {
		if r.null() || r.Path == appRoot {
			return objRef{}, -1, nil
		}
		role, _, err := c.kind(ctx, r)
		if err != nil {
			if errors.Is(err, platform.ErrElementStale) {
				return objRef{}, -1, nil
			}
			return objRef{}, -1, err
		}
		switch name, _ := roleName(role); name {
		case "combo box":
			row = -1
			if depth == 1 {
				row = o.index
			}
			return r, row, nil
		case "frame", "dialog", "application", "document web", "document frame":
			return objRef{}, -1, nil
		}
		var up objRef
		if _, err := c.property(ctx, r.Bus, r.Path, ifAccessible, "Parent", &up); err != nil {
			return objRef{}, -1, nil
		}
		r = up
	}
	return objRef{}, -1, nil
}

// setValue sets a number through Value, or text through EditableText.
func (c *Client) setValue(ctx context.Context, o *object, text string) (platform.ActResult, error) {
	ifaces := o.n.info.ifaces
	num, numErr := parseNumber(text)
	switch {
	case ifaces&hasValue != 0 && (ifaces&hasEditableText == 0 || numErr == nil):
		// A spin button has both: its Value takes effect at once, its text only when
		// activated.
		if numErr != nil {
			return platform.ActResult{}, fmt.Errorf("%w: %s takes a number; the text given is not one",
				platform.ErrBadValue, o.label())
		}
		before, lo, hi, err := c.valueRange(ctx, o.n.ref)
		if err != nil {
			return platform.ActResult{}, err
		}
		if b, err := c.bridgeOf(ctx, o.n.ref.Bus); err == nil && b.silentValue {
			return platform.ActResult{}, unsupported(o, platform.ActSetValue,
				b.Toolkit+" sets the number without the page's input events; type it instead")
		}
		if lo <= hi && (num < lo || num > hi) {
			return platform.ActResult{}, fmt.Errorf("%w: %s takes %v to %v; %v is outside",
				platform.ErrBadValue, o.label(), lo, hi, num)
		}
		if err := enabled(o, platform.ErrActionFailed); err != nil {
			return platform.ActResult{}, err
		}
		out, err := c.mutate(ctx, o.n.ref, o.n.ref, propSet, ifValue, "CurrentValue", dbus.MakeVariant(num))
		if err != nil || out.modal || out.gone {
			return platform.ActResult{ModalPending: out.modal}, err
		}
		// GTK accepts the property on read-only values (progress and level bars) and ignores
		// it: a value that did not move was refused. Rounding may change it, so only "did
		// not move at all" counts. Browsers apply it a few milliseconds later (the page's
		// input runs its own event loop): read again for a moment before saying it was refused.
		if num != before && !c.valueMoves(ctx, o.n.ref, before) {
			return platform.ActResult{}, fmt.Errorf("%w: %s kept its value %v", platform.ErrActionFailed,
				o.label(), before)
		}
		return platform.ActResult{}, nil
	case ifaces&hasEditableText != 0:
		if !o.is(stateEditable) {
			return platform.ActResult{}, unsupported(o, platform.ActSetValue, "its text is read-only")
		}
		if err := enabled(o, platform.ErrActionFailed); err != nil {
			return platform.ActResult{}, err
		}
		out, err := c.perform(ctx, o, plan{target: o.n.ref, method: ifEditableText + ".SetTextContents", args: []any{text}, okBool: true})
		if err != nil || out.modal || out.gone {
			return platform.ActResult{ModalPending: out.modal}, err
		}
		if o.n.info.role == rolePasswordText && ifaces&hasText != 0 {
			return platform.ActResult{}, c.checkLength(ctx, o, text)
		}
		return platform.ActResult{}, nil
	}
	return platform.ActResult{}, unsupported(o, platform.ActSetValue, "it has neither EditableText nor Value")
}

// valueApplyWithin bounds how long setValue waits for a Value to move away from what it was
// (Chromium and Firefox number inputs take 20-200 ms; GTK applies at once or never).
const valueApplyWithin = 400 * time.Millisecond

// valueMoves reports whether r's CurrentValue leaves before within valueApplyWithin. A value that
// cannot be read counts as moved: unverifiable, not refused.
func (c *Client) valueMoves(ctx context.Context, r objRef, before float64) bool {
	deadline := time.Now().Add(valueApplyWithin)
	for {
		var after float64
		if _, err := c.property(ctx, r.Bus, r.Path, ifValue, "CurrentValue", &after); err != nil || after != before {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		t := time.NewTimer(20 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return true
		case <-t.C:
		}
	}
}

// checkLength compares a password field's character count with the text it was given: the
// one check that reads nothing secret (GTK exposes one invisible character per character).
func (c *Client) checkLength(ctx context.Context, o *object, text string) error {
	var count int32
	if _, err := c.property(ctx, o.n.ref.Bus, o.n.ref.Path, ifText, "CharacterCount", &count); err != nil {
		return nil // unverifiable, not refused
	}
	if want := utf8.RuneCountInString(text); int(count) != want {
		return fmt.Errorf("%w: %s holds %d characters after SetTextContents of %d", platform.ErrActionFailed,
			o.label(), count, want)
	}
	return nil
}

func parseNumber(text string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
		err = strconv.ErrSyntax
	}
	return v, err
}

// valueRange reads a Value's current value and bounds in one GetAll where the bridge serves it
// safely (single reads elsewhere); bounds it does not report come back as lo > hi, meaning
// "unknown".
func (c *Client) valueRange(ctx context.Context, r objRef) (cur, lo, hi float64, err error) {
	lo, hi = 1, 0
	b, err := c.bridgeOf(ctx, r.Bus)
	if err != nil {
		return 0, 0, 0, err
	}
	props, ok, f, err := c.getAllProps(ctx, b, r, ifValue)
	switch {
	case err != nil && f.fatal():
		return 0, 0, 0, err
	case err != nil && f == failDead:
		return 0, 0, 0, c.staleErr(r, "it disappeared")
	case ok:
		_ = props["CurrentValue"].Store(&cur)
		if props["MinimumValue"].Store(&lo) != nil || props["MaximumValue"].Store(&hi) != nil {
			lo, hi = 1, 0
		}
		return cur, lo, hi, nil
	}
	if f, err := c.property(ctx, r.Bus, r.Path, ifValue, "CurrentValue", &cur); f.fatal() {
		return 0, 0, 0, err
	}
	var l, h float64
	if _, err := c.property(ctx, r.Bus, r.Path, ifValue, "MinimumValue", &l); err == nil {
		if _, err := c.property(ctx, r.Bus, r.Path, ifValue, "MaximumValue", &h); err == nil {
			lo, hi = l, h
		}
	}
	return cur, lo, hi, nil
}

// setFocus grabs focus and waits, at most ModalGrace, for the object to report it: GTK
// presents an inactive window first, and its focus state follows the window manager.
func (c *Client) setFocus(ctx context.Context, o *object) (platform.ActResult, error) {
	if o.n.info.ifaces&hasComponent == 0 {
		return platform.ActResult{}, unsupported(o, platform.ActSetFocus, "it has no Component")
	}
	if !o.is(stateFocusable) {
		return platform.ActResult{}, unsupported(o, platform.ActSetFocus, "it is not focusable")
	}
	if err := enabled(o, platform.ErrNotFocused); err != nil {
		return platform.ActResult{}, err
	}
	if o.is(stateFocused) {
		return platform.ActResult{}, nil // what setfocus is for already holds
	}
	r := o.n.ref
	out, err := c.mutate(ctx, r, r, ifComponent+".GrabFocus")
	if err != nil && errors.Is(err, platform.ErrActionFailed) {
		if b, berr := c.bridgeOf(ctx, r.Bus); berr == nil && b.declinesFocus() {
			return platform.ActResult{}, unsupported(o, platform.ActSetFocus,
				fmt.Sprintf("%s %s does not implement Component.GrabFocus; click it to focus it", b.Toolkit, b.Version))
		}
	}
	if err != nil || out.modal {
		return platform.ActResult{ModalPending: out.modal}, err
	}
	if out.gone {
		return platform.ActResult{}, c.staleErr(r, "it disappeared when given focus")
	}
	var ok bool
	if err := out.reply.Store(&ok); err == nil && !ok {
		return platform.ActResult{}, fmt.Errorf("%w: %s: the application declined GrabFocus",
			platform.ErrNotFocused, o.label())
	}
	if out.states.has(stateFocused) {
		return platform.ActResult{}, nil
	}
	// Poll with backoff: the state usually follows within a few milliseconds.
	grace := c.modalGrace()
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	pause := time.Millisecond
	wait := time.NewTimer(pause)
	defer wait.Stop()
	for {
		select {
		case <-ctx.Done():
			return platform.ActResult{}, ctx.Err()
		case <-deadline.C:
			return platform.ActResult{}, fmt.Errorf("%w: %s accepted GrabFocus but did not report focus within %v (is its window active?)",
				platform.ErrNotFocused, o.label(), grace)
		case <-wait.C:
			pause = min(2*pause, 20*time.Millisecond)
			wait.Reset(pause)
		}
		words, f, err := c.states(ctx, r)
		if err != nil {
			if f.fatal() {
				return platform.ActResult{}, err
			}
			return platform.ActResult{}, c.staleErr(r, "it disappeared when given focus")
		}
		if words.has(stateFocused) {
			return platform.ActResult{}, nil
		}
	}
}
