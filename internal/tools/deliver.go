package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/sysload"
)

// How invoke delivers an action (issue 15). The accessibility API is the default, except where
// it strands the agent or lies:
//
//   - An activation (invoke of a button, check box, menu item …; select of a menu item) of an
//     element that is on screen is a real click at its centre. GTK 3 runs an action's handler
//     inside the bridge's D-Bus dispatch: a handler that runs a modal dialog's nested loop
//     (gtk_dialog_run, About dialogs from menu items) leaves the application answering no
//     accessibility call until someone closes the dialog with physical input. The same click
//     delivered as input runs the dialog from the application's own event loop, and its tree
//     stays live, the dialog's Close button included. An item of a closed menu gets its menus
//     opened first (their accessible expand), then the click.
//   - An element with no usable action (web buttons and check boxes in Firefox, GTK 4.8 check
//     buttons) is clicked at its centre when it is on screen.
//   - select of a combo box's entry opens the combo box and picks the entry with input, and
//     reads the combo box back (deliver_combo.go).
//   - setvalue is read back; a value the toolkit did not take (Firefox's SetTextContents
//     answers success and changes nothing; Chromium's inputs have no EditableText) is typed:
//     click, select all, delete, type, and read back again.
//
// "On screen" means showing, with bounds whose centre lies on the screen and in a window of
// its process (or in a popup menu, which the toolkit draws in a window of its own), and not
// under a window that stays above it after raising (a dialog transient for it). Everything
// else goes through the accessibility API, which needs no geometry. The via argument forces
// either path.

// Delivery paths, as the via argument and result name them.
const (
	viaAuto          = "auto"
	viaInput         = "input"
	viaAccessibility = "accessibility"
)

// activationRoles are elements whose activation is delivered as a click when they are on
// screen: the ones whose handlers open dialogs.
var activationRoles = map[string]bool{
	"push button": true, "button": true, "toggle button": true, "push button menu": true,
	"check box": true, "radio button": true, "switch": true,
	"menu item": true, "check menu item": true, "radio menu item": true, "menu": true,
}

// menuItemRoles are items of menus: selecting one chooses it, an activation like invoke.
var menuItemRoles = map[string]bool{"menu item": true, "check menu item": true, "radio menu item": true, "menu": true}

// popupRoles live in popup windows the window manager does not list (GTK 3 menus are
// override-redirect windows), so their bounds may lie outside every listed window.
var popupRoles = map[string]bool{"menu item": true, "check menu item": true, "radio menu item": true, "tearoff menu item": true}

// selectableRoles may be selected by a click when no Selection or action selects them.
var selectableRoles = map[string]bool{"list item": true, "page tab": true, "tree item": true, "table row": true,
	"table cell": true, "radio button": true, "option": true}

// numericRoles hold a number: their read-back is compared as one.
var numericRoles = map[string]bool{"slider": true, "spin button": true, "scroll bar": true, "dial": true}

const (
	// readBackWithin bounds the wait for an accessibility write to show in the element's value
	// (GTK 3 shows it at once; browsers update their trees a little later).
	readBackWithin = 250 * time.Millisecond
	// slowAnswerWithin bounds the read-back after an action the application did not answer
	// within the backend's grace: one in a modal loop stays silent, a slow one answers.
	slowAnswerWithin = 3 * time.Second
	// typedWithin bounds the wait for typed text to show in the element's value while it does
	// not change; each change starts it again, up to typedCap in all (both stretched with the
	// machine's load). Beside a second make test, Firefox's field still read its old text 1.5 s
	// after the keys were sent.
	typedWithin = 1500 * time.Millisecond
	typedCap    = 6 * time.Second
	// focusWithin bounds the wait for a clicked field to report focus before keys go to it.
	focusWithin = 500 * time.Millisecond
)

// delivery is how an action went.
type delivery struct {
	via          string
	modalPending bool  // the application stopped answering right after (accessibility path)
	verified     *bool // setvalue: the value read back equals the text (false: could not be read)
	// recheck, when set, reads the outcome again once the UI settled: a choice the application
	// took back meanwhile (a validating handler) fails then.
	recheck func(ctx context.Context) error
}

// inputSpot is where a click reaches an element, and the window to raise first.
type inputSpot struct {
	at     platform.Point
	window platform.Window
}

func enabledNode(n *platform.Node) bool { return n.States["enabled"] || n.States["sensitive"] }

func describeNode(n *platform.Node) string { return fmt.Sprintf("%s (%s %q)", n.Ref, n.Role, n.Name) }

// deliver performs action on the located element by the path via asks for (viaAuto: the rules
// above) and reports how. The caller has started the observer.
func deliver(ctx context.Context, env *Env, l located, byRef bool, action platform.ElementAction, text, via string) (delivery, error) {
	n := l.node
	if action == platform.ActSetValue {
		return deliverValue(ctx, env, l, byRef, text, via)
	}
	if action == platform.ActSelect {
		if ce := findComboEntry(ctx, env, n); ce != nil {
			return deliverComboEntry(ctx, env, l, byRef, ce, via)
		}
	}
	clickable := action == platform.ActInvoke || action == platform.ActToggle || action == platform.ActSelect || action == platform.ActSetFocus
	switch via {
	case viaInput:
		if !clickable {
			return delivery{}, contract.Errorf(contract.CodeBadArguments,
				"via input clicks the element, which neither expands nor collapses it reliably; use via auto or accessibility for %s", action)
		}
		s, err := needSpot(ctx, env, l, byRef)
		if err != nil {
			return delivery{}, err
		}
		return clickElement(ctx, env, n, s)
	case viaAuto:
		activation := action == platform.ActInvoke || (action == platform.ActSelect && menuItemRoles[n.Role])
		if activation && activationRoles[n.Role] && enabledNode(n) {
			if !n.States["showing"] && menuItemRoles[n.Role] {
				// A closed menu's item: open the menus above it, so the item can be clicked
				// rather than activated inside the bridge (About dialogs sit behind menus).
				if shown := openMenusOf(ctx, env, n); shown != nil {
					l.node, n = shown, shown
				}
			}
			if s, why := clickSpot(ctx, env, l, byRef); why == "" {
				return clickElement(ctx, env, n, s)
			}
		}
	}
	out, err := env.Desktop.Act(ctx, n.Ref, action, text)
	if err == nil && !out.ModalPending && action == platform.ActSelect && via == viaAuto && n.States["selectable"] &&
		!becameSelected(ctx, env, n.Ref) {
		// Accepted and not selected: Firefox takes a web page's ARIA tab into its selection
		// without the click the page listens for. A click is what the page understands.
		if s, why := clickSpot(ctx, env, l, byRef); why == "" {
			return clickElement(ctx, env, n, s)
		}
	}
	if err == nil {
		d := delivery{via: viaAccessibility, modalPending: out.ModalPending}
		if action == platform.ActSetFocus && !out.ModalPending {
			d.verified = boolPtr(true) // the backend returns once the element reports the focus
		}
		return d, nil
	}
	declined := action == platform.ActSelect && errors.Is(err, platform.ErrActionFailed)
	if via == viaAuto && (errors.Is(err, platform.ErrUnsupported) || declined) && clickFallback(action, n) {
		// Nothing in the accessibility API does it (or the application declined the selection, as
		// Chromium does for a web page's ARIA tabs, leaving it unchanged): a click does, when the
		// element is on screen.
		s, why := clickSpot(ctx, env, l, byRef)
		if why != "" {
			return delivery{}, contract.Errorf(contract.CodePatternUnsupported, "%s on %s: %v; it has no point to click either: %s",
				action, describeNode(n), err, why)
		}
		return clickElement(ctx, env, n, s)
	}
	return delivery{}, actionError(err, action, n)
}

// selectedWithin bounds the wait for an element to report selected after a select the
// application accepted.
const selectedWithin = 300 * time.Millisecond

// becameSelected reports whether ref reports the selected state within selectedWithin; an element
// that cannot be read counts as selected (unverifiable, not refused: the effect says more).
func becameSelected(ctx context.Context, env *Env, ref string) bool {
	deadline := time.Now().Add(selectedWithin)
	for pause := 10 * time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		el, err := env.Desktop.Element(ctx, ref)
		if err != nil || el.Node.States["selected"] {
			return true
		}
		if time.Now().Add(pause).After(deadline) || sleep(ctx, pause) != nil {
			return false
		}
	}
}

const (
	// maxMenuDepth bounds the menus opened above one item.
	maxMenuDepth = 8
	// menuOpenWithin bounds the wait for an item to show once its menus were opened.
	menuOpenWithin = time.Second
)

// openMenusOf opens the closed menus above a menu item (GTK 3 menu bar titles and submenus, by
// their accessible expand, which opens menus without running their items) and returns the item
// re-read once it shows with bounds; nil when it is not in such menus (a combo box's entries are
// chosen through the combo box) or does not show in time.
func openMenusOf(ctx context.Context, env *Env, n *platform.Node) *platform.Node {
	var menus []string // innermost first
	ref := n.Ref
	for range maxMenuDepth {
		el, err := env.Desktop.Element(ctx, ref)
		if err != nil || el.Parent == "" {
			break
		}
		p, err := env.Desktop.Element(ctx, el.Parent)
		if err != nil {
			return nil
		}
		if p.Node.Role == "combo box" {
			return nil
		}
		if p.Node.Role != "menu" {
			break
		}
		menus = append(menus, p.Node.Ref)
		ref = p.Node.Ref
	}
	if len(menus) == 0 {
		return nil
	}
	for i := len(menus) - 1; i >= 0; i-- {
		if _, err := env.Desktop.Act(ctx, menus[i], platform.ActExpand, ""); err != nil {
			return nil
		}
	}
	deadline := time.Now().Add(menuOpenWithin)
	for pause := 10 * time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		if el, err := env.Desktop.Element(ctx, n.Ref); err == nil && el.Node.States["showing"] && el.Node.Bounds != nil && !el.Node.Bounds.Empty() {
			return &el.Node
		}
		if time.Now().Add(pause).After(deadline) || sleep(ctx, pause) != nil {
			return nil
		}
	}
}

// clickFallback says whether a click does what action means on n when its accessibility does
// not offer it: invoke always; toggle on things with a checked state; select on items.
func clickFallback(action platform.ElementAction, n *platform.Node) bool {
	switch action {
	case platform.ActInvoke:
		return true
	case platform.ActToggle:
		return toggleRoles[n.Role] || n.States["checkable"]
	case platform.ActSelect:
		// A label is how some toolkits expose a list entry (GTK 4's drop-down rows): choosing it is
		// clicking it.
		return selectableRoles[n.Role] || menuItemRoles[n.Role] || labelRoles[n.Role] || n.States["selectable"]
	case platform.ActExpand, platform.ActCollapse:
		// A drop-down or popup button without an action (GTK 4.8's drop-downs): a click opens
		// it, and closes it when open. Where the element says whether it is expanded, a click is
		// sent only when that is not already the state asked for.
		if n.States["expandable"] && n.States["expanded"] == (action == platform.ActExpand) {
			return false
		}
		return openerRoles[n.Role] || n.States["expandable"] || n.States["has-popup"]
	}
	return false
}

// openerRoles open a list or menu when clicked.
var openerRoles = map[string]bool{"combo box": true, "menu": true, "push button menu": true}

// clickElement clicks the element's centre through the input gate, after raising its window.
func clickElement(ctx context.Context, env *Env, n *platform.Node, s inputSpot) (delivery, error) {
	if !enabledNode(n) {
		return delivery{}, contract.Errorf(contract.CodeInvokeFaulted, "clicking %s would do nothing: it is disabled", describeNode(n))
	}
	err := gesture(ctx, env, s.window, func(ctx context.Context, in platform.Input) error {
		return in.Click(ctx, s.at, platform.ButtonLeft, 1)
	})
	if err != nil {
		return delivery{}, err
	}
	return delivery{via: viaInput}, nil
}

// needSpot is clickSpot for a caller that asked for input: no spot is an error.
func needSpot(ctx context.Context, env *Env, l located, byRef bool) (inputSpot, error) {
	s, why := clickSpot(ctx, env, l, byRef)
	if why != "" {
		return s, contract.Errorf(contract.CodePatternUnsupported, "via input: %s cannot be clicked: %s; use via auto or accessibility",
			describeNode(l.node), why)
	}
	return s, nil
}

// clickSpot finds where a click reaches the element: the centre of its bounds, in the window of
// its process that holds it. why is non-empty when there is none (not showing, off screen,
// covered by a window that stays above its own).
func clickSpot(ctx context.Context, env *Env, l located, byRef bool) (inputSpot, string) {
	n := l.node
	b := n.Bounds
	if b == nil || b.Empty() || !n.States["showing"] {
		return inputSpot{}, "it is not showing on screen"
	}
	c := platform.Point{X: b.X + b.Width/2, Y: b.Y + b.Height/2}
	if d, err := env.Desktop.Displays(ctx); err == nil && !d.VirtualBounds.Empty() && !inside(d.VirtualBounds, c) {
		return inputSpot{}, fmt.Sprintf("its centre %d,%d is off the screen", c.X, c.Y)
	}
	ws, err := env.Desktop.Windows(ctx)
	if err != nil {
		return inputSpot{}, "the windows cannot be listed"
	}
	pid := l.window.ProcessID
	var holders []platform.Window
	for _, w := range ws {
		if w.ProcessID == pid && pid != 0 && !w.Minimized && inside(w.Bounds, c) {
			holders = append(holders, w)
		}
	}
	var w platform.Window
	own := slices.IndexFunc(holders, func(w platform.Window) bool { return w.Handle == l.window.Handle })
	switch {
	case !byRef && own >= 0:
		w = holders[own] // found in this window's tree
	case byRef && len(holders) == 1:
		w = holders[0]
	case byRef && len(holders) > 1:
		w = frameWindow(ctx, env, n.Ref, holders)
	case popupRoles[n.Role] && l.window.Handle != 0 && !l.window.Minimized:
		w = l.window // an open popup menu sits above every window
	default:
		return inputSpot{}, fmt.Sprintf("its centre %d,%d lies outside its window", c.X, c.Y)
	}
	for _, x := range ws {
		above := x.TransientFor == w.Handle || x.Modal && x.ProcessID == w.ProcessID
		if x.Handle != w.Handle && !x.Minimized && above && inside(x.Bounds, c) {
			return inputSpot{}, fmt.Sprintf("window %d %q covers it", x.Handle, x.Title)
		}
	}
	return inputSpot{at: c, window: w}, ""
}

func inside(r platform.Rect, p platform.Point) bool {
	return p.X >= r.X && p.Y >= r.Y && p.X < r.X+r.Width && p.Y < r.Y+r.Height
}

// maxFrameWalk bounds the walk from an element up to its frame.
const maxFrameWalk = 64

// frameWindow picks, of several windows of the process that contain the element's centre, the
// one its frame matches best (a dialog over its main window): up the parents to the frame, then
// the largest overlap with its bounds. The newest window when that tells nothing.
func frameWindow(ctx context.Context, env *Env, ref string, candidates []platform.Window) platform.Window {
	best := candidates[len(candidates)-1]
	var frame *platform.Rect
	for range maxFrameWalk {
		el, err := env.Desktop.Element(ctx, ref)
		if err != nil {
			return best
		}
		if el.Parent == "" {
			frame = el.Node.Bounds
			break
		}
		ref = el.Parent
	}
	if frame == nil {
		return best
	}
	score := -1.0
	for _, w := range candidates {
		// Intersection over union: a dialog lies wholly inside its main window too.
		in := w.Bounds.Intersect(*frame)
		inter := float64(in.Width * in.Height)
		union := float64(w.Bounds.Width*w.Bounds.Height+frame.Width*frame.Height) - inter
		if union > 0 && inter/union > score {
			best, score = w, inter/union
		}
	}
	return best
}

// deliverValue sets text on the element and reads it back; a value the accessibility API did
// not apply is typed (auto), and a value that still differs fails value-not-applied.
func deliverValue(ctx context.Context, env *Env, l located, byRef bool, text, via string) (delivery, error) {
	n := l.node
	secret := n.Role == "password text"
	if via == viaInput {
		s, err := needSpot(ctx, env, l, byRef)
		if err != nil {
			return delivery{}, err
		}
		return typeValue(ctx, env, l, s, text)
	}
	out, err := env.Desktop.Act(ctx, n.Ref, platform.ActSetValue, text)
	// applied checks the value the application shows after the call: typed where the
	// accessibility API did not apply it (auto), else value-not-applied.
	applied := func(got *string, ok bool) (delivery, error) {
		if ok {
			return delivery{via: viaAccessibility, verified: boolPtr(true)}, nil
		}
		if numericRoles[n.Role] {
			// The toolkit rounded to its step; the backend refused values that did not move.
			return delivery{via: viaAccessibility, verified: boolPtr(false)}, nil
		}
		if via == viaAuto && n.States["editable"] {
			ready := laidOut(ctx, env, l)
			if s, why := clickSpot(ctx, env, ready, byRef); why == "" {
				return typeValue(ctx, env, ready, s, text)
			}
		}
		return delivery{}, notApplied(n, viaAccessibility, got, "")
	}
	switch {
	case err == nil && out.ModalPending && !secret:
		// No answer within the grace: a modal loop that the call started, or only a slow
		// application (beside a second make test Firefox took longer, and an unverified success
		// was reported for a value it never applied). A slow one answers the read-back.
		rctx, cancel := context.WithTimeout(ctx, slowAnswerWithin)
		got, ok, rerr := readBack(rctx, env, n, text, readBackWithin)
		cancel()
		if rerr != nil {
			return delivery{via: viaAccessibility, modalPending: true}, nil
		}
		return applied(got, ok)
	case err == nil && out.ModalPending:
		return delivery{via: viaAccessibility, modalPending: true}, nil
	case err == nil && secret:
		// Its text never leaves the application; the backend compared lengths where it could.
		return delivery{via: viaAccessibility, verified: boolPtr(false)}, nil
	case err == nil:
		got, ok, rerr := readBack(ctx, env, n, text, readBackWithin)
		if rerr != nil {
			return delivery{}, platformError(rerr)
		}
		return applied(got, ok)
	case via == viaAuto && n.States["editable"] && (errors.Is(err, platform.ErrUnsupported) || (secret && errors.Is(err, platform.ErrActionFailed))):
		// No EditableText (Chromium), or a password field that did not take it: type it.
		s, why := clickSpot(ctx, env, l, byRef)
		if why != "" {
			return delivery{}, contract.Errorf(contract.CodePatternUnsupported, "setvalue on %s: %v; typing is not possible either: %s",
				describeNode(n), err, why)
		}
		return typeValue(ctx, env, l, s, text)
	case numericRoles[n.Role] && errors.Is(err, platform.ErrActionFailed):
		// The number did not move (a read-only value, or a web page's number input whose
		// Value the browser ignored): type it where it can be typed, else say what it holds.
		if via == viaAuto && n.States["editable"] {
			if s, why := clickSpot(ctx, env, l, byRef); why == "" {
				return typeValue(ctx, env, l, s, text)
			}
		}
		got, _, rerr := readBack(ctx, env, n, text, 0)
		if rerr != nil {
			return delivery{}, platformError(rerr)
		}
		return delivery{}, notApplied(n, viaAccessibility, got, "")
	}
	return delivery{}, actionError(err, platform.ActSetValue, n)
}

// laidOut re-reads an element that has no point on screen yet, on its application's events for
// up to actionableWait: a page that has just loaded (Firefox) takes text through the
// accessibility API before its editor is attached and before its fields have bounds, and the
// value is then typed once they have.
func laidOut(ctx context.Context, env *Env, l located) located {
	if onScreen(l.node) {
		return l
	}
	_, _, _ = waitFor(ctx, env.Desktop, actionableWait, "", func(ctx context.Context) (bool, int, error) {
		el, err := env.Desktop.Element(ctx, l.node.Ref)
		if err != nil {
			return true, 0, nil // gone or not answering: the caller says what it holds
		}
		if onScreen(&el.Node) {
			n := el.Node
			l.node = &n
			return true, 0, nil
		}
		return false, el.PID, nil
	})
	return l
}

// typeValue focuses the field with a click, selects and deletes what it holds, types text, and
// reads it back.
func typeValue(ctx context.Context, env *Env, l located, s inputSpot, text string) (delivery, error) {
	n := l.node
	if !enabledNode(n) {
		return delivery{}, contract.Errorf(contract.CodeInvokeFaulted, "setvalue on %s failed: it is disabled", describeNode(n))
	}
	err := gesture(ctx, env, s.window, func(ctx context.Context, in platform.Input) error {
		if err := in.Click(ctx, s.at, platform.ButtonLeft, 1); err != nil {
			return err
		}
		if !waitFocused(ctx, env, n.Ref, l.window.ProcessID) {
			// The click may have been lost or the toolkit does not say: ask for focus too.
			_, _ = env.Desktop.Act(ctx, n.Ref, platform.ActSetFocus, "")
		}
		if err := in.Chord(ctx, "Control_L", "a"); err != nil {
			return err
		}
		if err := in.Chord(ctx, "BackSpace"); err != nil {
			return err
		}
		if text == "" {
			return nil
		}
		return in.Type(ctx, text)
	})
	if err != nil {
		return delivery{}, err
	}
	if n.Role == "password text" {
		return delivery{via: viaInput, verified: boolPtr(false)}, nil
	}
	within := sysload.Scale(typedWithin)
	got, ok, err := readBack(ctx, env, n, text, within)
	if err == nil && !ok && (sameValue(got, n.Value) || got == nil || *got == "") {
		// Not even the deletion shows yet, or only the deletion: a loaded application may still
		// have the typed keys queued (Firefox on a loaded KWin showed the emptied field 1.5 s on).
		got, ok, err = readBack(ctx, env, n, text, within)
	}
	if err != nil {
		return delivery{}, platformError(err)
	}
	if !ok {
		return delivery{}, notApplied(n, viaInput, got, "after typing it")
	}
	return delivery{via: viaInput, verified: boolPtr(true)}, nil
}

// waitFocused waits, at most focusWithin, for the element (or the process's focus) to be it.
func waitFocused(ctx context.Context, env *Env, ref string, pid int) bool {
	deadline := time.Now().Add(focusWithin)
	for pause := 5 * time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		if el, err := env.Desktop.Element(ctx, ref); err == nil && el.Node.States["focused"] {
			return true
		}
		if pid > 0 {
			if f, err := env.Desktop.Focused(ctx, pid); err == nil && f.Node.Ref == ref {
				return true
			}
		}
		if time.Now().Add(pause).After(deadline) || sleep(ctx, pause) != nil {
			return false
		}
	}
}

// readBack re-reads the element's value until it equals want or within passes without the
// value changing (each change, the application still at work, gives it within again, up to
// typedCap in all); it returns the last value read.
func readBack(ctx context.Context, env *Env, n *platform.Node, want string, within time.Duration) (*string, bool, error) {
	start := time.Now()
	deadline := start.Add(within)
	var last *string
	for pause := 5 * time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		el, err := env.Desktop.Element(ctx, n.Ref)
		if err != nil {
			return nil, false, err
		}
		got := el.Node.Value
		if valueMatches(n.Role, got, want) {
			return got, true, nil
		}
		if last != nil && got != nil && *got != *last {
			deadline = time.Now().Add(within)
			if limit := start.Add(max(within, sysload.Scale(typedCap))); deadline.After(limit) {
				deadline = limit
			}
		}
		last = got
		if time.Now().Add(pause).After(deadline) || sleep(ctx, pause) != nil {
			return got, false, nil
		}
	}
}

// valueMatches compares a value read back with the text set: numbers as numbers, text exactly
// (a value cut at the backend's read limit matches the text's start).
func valueMatches(role string, got *string, want string) bool {
	if got == nil {
		return want == ""
	}
	if *got == want {
		return true
	}
	if numericRoles[role] {
		g, gerr := strconv.ParseFloat(strings.TrimSpace(*got), 64)
		w, werr := strconv.ParseFloat(strings.TrimSpace(want), 64)
		return gerr == nil && werr == nil && g == w
	}
	return utf8.RuneCountInString(*got) >= maxReadBackChars && strings.HasPrefix(want, *got)
}

// maxReadBackChars is the longest value a backend reads of one element (atspi: 4096).
const maxReadBackChars = 4096

// notApplied is the error of a value the element did not take; the value it holds travels in the
// detail and the partial result.
func notApplied(n *platform.Node, via string, got *string, after string) error {
	holds := "no value"
	if got != nil {
		holds = strconv.Quote(*got)
	}
	how := "the accessibility API accepted it"
	if via == viaInput {
		how = "it was typed"
	}
	if after != "" {
		how += " (" + after + ")"
	}
	e := contract.Errorf(contract.CodeValueNotApplied, "setvalue on %s: %s, but the element reads back %s", describeNode(n), how, holds)
	e.PartialResult = map[string]any{"value": got, "via": via, "element": element(n)}
	return e
}

func boolPtr(v bool) *bool { return &v }

// sleep pauses for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
