package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/sysload"
)

// Every acting tool reports what it observably changed (issue 15): an action reported as done
// that changed nothing is the failure agents suffer most from. An observer reads the state an
// action may change just before it — the windows, the focus, the target element, and the
// names and states of the target window's tree — and, after the action, waits for the UI to
// settle (the application's accessibility events and the window events go quiet, bounded by
// the call's settle time), reads it again and reports the difference as the result's effect.
// When nothing changed, the result warns no-observed-effect: the action may have been lost.

// settleArg is the acting tools' settle argument.
type settleArg struct {
	Settle *int `json:"settle,omitempty" jsonschema:"Milliseconds to wait at most for the UI to settle and show the action's effect (default 1000, longer on a loaded machine; 0: only what is seen at once)."`
}

const (
	// defaultSettle bounds the wait for an effect that does not show: one that shows ends it at
	// once. A GTK file chooser (zenity --file-selection --save) closes about 620 ms after Enter,
	// once it has looked at the file, and 500 ms reported that as no-observed-effect. It stretches
	// with the machine's load (sysload) like the other deadlines: beside a second make test
	// Firefox showed a click's effect (a paragraph's new text) after the second had run out.
	defaultSettle = time.Second
	maxSettle     = 10 * time.Second
	// quietGap is how long events must pause before the UI counts as settled: toolkits answer
	// an action within a few milliseconds and emit its events in one burst.
	quietGap = 40 * time.Millisecond
	// settleTick is how often the settle loop looks at the clock between events, and
	// unannouncedCheck how often it re-reads the state when no event announced anything.
	settleTick       = 20 * time.Millisecond
	unannouncedCheck = 100 * time.Millisecond
	// effectTreeLimits bound the before/after walks of the target window: names and states only.
	effectNodes  = 2000
	effectBudget = 300 * time.Millisecond
	// maxChanged is how many changed elements an effect lists; the rest are counted.
	maxChanged = 8
	// focusGrace is how long after the action an effect that is only a focus move keeps the
	// settle wait going, for the change the focused control's handler makes (galculator's
	// display changed after its button took the focus, and the first quiet moment ended the wait).
	// An application slow to answer gets more (focusGraceFactor times its first answer's delay):
	// beside a second make test a dialog mapped 300 ms after its button took the focus. It
	// stretches with the load too (sysload): at load 8 a window opened after the first 250 ms,
	// which had already ended the wait.
	focusGrace       = 250 * time.Millisecond
	focusGraceFactor = 4
)

func (a settleArg) duration() (time.Duration, error) {
	if a.Settle == nil {
		return sysload.Scale(defaultSettle), nil
	}
	d := time.Duration(*a.Settle) * time.Millisecond
	if *a.Settle < 0 || d > maxSettle {
		return 0, contract.Errorf(contract.CodeBadArguments, "settle must be 0 to %d ms, got %d", maxSettle.Milliseconds(), *a.Settle)
	}
	return d, nil
}

// Effect is what an action changed, observed after it settled.
type Effect struct {
	// SettledMs is how long the observer waited after the action; Settled is false when the
	// settle time ran out while events were still coming.
	SettledMs int64 `json:"settledMs"`
	Settled   bool  `json:"settled"`
	// Focus moved from one element to another.
	Focus *FocusMove `json:"focus,omitempty"`
	// Target is the acted-on element's own change (value, name, states).
	Target *NodeChange `json:"target,omitempty"`
	// Changed lists other elements of the window whose name or states changed (the first
	// maxChanged; ChangedMore counts the rest); Added and Removed count elements that appeared
	// and went.
	Changed     []NodeChange `json:"changed,omitempty"`
	ChangedMore int          `json:"changedMore,omitempty"`
	Added       int          `json:"added,omitempty"`
	Removed     int          `json:"removed,omitempty"`
	// WindowsOpened and WindowsClosed are top-level windows that appeared and went.
	WindowsOpened []WindowBrief `json:"windowsOpened,omitempty"`
	WindowsClosed []WindowBrief `json:"windowsClosed,omitempty"`
	// Foreground: the active window changed.
	Foreground *WindowMove `json:"foreground,omitempty"`
	// Window: the target window's bounds or state changed.
	Window *WindowDelta `json:"window,omitempty"`
	// AppEvents counts bursts of accessibility events the application emitted after the action.
	AppEvents int `json:"appEvents,omitempty"`
	// Clipboard is what the clipboard reads back after clipboard set.
	Clipboard *ClipboardReadBack `json:"clipboard,omitempty"`
	// Pixels: where no tree could be compared, the part of the target window's rectangle whose
	// pixels changed (effectpixels.go).
	Pixels *PixelChange `json:"pixels,omitempty"`

	// unobservable: neither the window's tree nor its pixels nor the target could be compared, so
	// an empty effect says nothing (effect-unobservable, not no-observed-effect).
	unobservable bool

	// focusAway: the focus went to an element outside the target window while no window opened
	// yet; a window is on its way (GTK 4 focuses the About dialog before X lists it).
	focusAway bool

	// cut: the walk after the action was cut by its time budget, so a change in the part it did
	// not reach is not seen yet (a loaded machine: Firefox's title changed and the status
	// paragraph's new text was past the cut). The settle wait then goes on for a whole walk.
	cut bool
}

// ClipboardReadBack is the clipboard read back after it was set.
type ClipboardReadBack struct {
	Length int  `json:"length"`
	Same   bool `json:"same"` // it reads back exactly the text that was set
}

// FocusMove is a change of the keyboard focus.
type FocusMove struct {
	From *NodeBrief `json:"from,omitempty"`
	To   *NodeBrief `json:"to,omitempty"`
}

// NodeBrief names an element compactly.
type NodeBrief struct {
	Ref  string `json:"ref"`
	Role string `json:"role"`
	Name string `json:"name,omitempty"`
}

// NodeChange is one element's change: its present name and value, what they were, and the
// states it gained (+) and lost (-).
type NodeChange struct {
	NodeBrief
	Value  *string `json:"value,omitempty"`
	Was    *Was    `json:"was,omitempty"`
	States string  `json:"states,omitempty"`
}

// Was holds the values before the action of the fields that changed.
type Was struct {
	Name  *string `json:"name,omitempty"`
	Value *string `json:"value,omitempty"`
}

// WindowBrief names a window compactly.
type WindowBrief struct {
	Handle uint32 `json:"handle"`
	Title  string `json:"title"`
	Type   string `json:"type,omitempty"`
	Modal  bool   `json:"modal,omitempty"` // a dialog that blocks its parent: answer it first
}

// ModalOpened reports whether the action opened a modal dialog (Swing's and GTK's dialogs say so
// through _NET_WM_STATE_MODAL), which the agent must answer before the window that opened it
// takes input again.
func (e *Effect) ModalOpened() bool {
	return slices.ContainsFunc(e.WindowsOpened, func(w WindowBrief) bool { return w.Modal })
}

// WindowMove is a change of the active window.
type WindowMove struct {
	From *WindowBrief `json:"from,omitempty"`
	To   *WindowBrief `json:"to,omitempty"`
}

// WindowDelta is the target window's change.
type WindowDelta struct {
	From WindowGeometry `json:"from"`
	To   WindowGeometry `json:"to"`
}

// WindowGeometry is a window's bounds and state, and its title when that changed.
type WindowGeometry struct {
	X      int      `json:"x"`
	Y      int      `json:"y"`
	Width  int      `json:"width"`
	Height int      `json:"height"`
	State  []string `json:"state"`
	Title  *string  `json:"title,omitempty"`
}

// conclusive reports an effect that may end the settle wait: any change but a target that is
// only pressed or released, which toolkits show while an activation is still under way (Qt
// animates a press for 100 ms before the click handler runs); but a focus that went to nothing,
// which a closing window shows before it goes (a GTK file chooser after Enter); and but a focus
// that went outside the window before a window opened or came to the front (GTK 4 focuses its
// About dialog before X lists the window).
func (e *Effect) conclusive() bool {
	if !e.observed() {
		return false
	}
	if e.Focus != nil && e.Focus.To == nil && e.Target == nil && len(e.Changed) == 0 && e.Added == 0 && e.Removed == 0 &&
		len(e.WindowsOpened) == 0 && len(e.WindowsClosed) == 0 && e.Foreground == nil && e.Window == nil {
		return false
	}
	if e.focusAway && len(e.WindowsOpened) == 0 && e.Foreground == nil {
		return false
	}
	onlyPress := e.Target != nil && e.Target.Was == nil && (e.Target.States == "+pressed" || e.Target.States == "-pressed")
	return !onlyPress || e.Focus != nil || len(e.Changed) > 0 || e.Added > 0 || e.Removed > 0 ||
		len(e.WindowsOpened) > 0 || len(e.WindowsClosed) > 0 || e.Foreground != nil || e.Window != nil
}

// observed reports whether the effect holds any change.
func (e *Effect) observed() bool {
	return e.Focus != nil || e.Target != nil || len(e.Changed) > 0 || e.Added > 0 || e.Removed > 0 ||
		len(e.WindowsOpened) > 0 || len(e.WindowsClosed) > 0 || e.Foreground != nil || e.Window != nil ||
		e.Clipboard != nil && e.Clipboard.Same || e.Pixels.significant()
}

// menuRoles are the parts of a menu, which close when one of their items is activated.
var menuRoles = map[string]bool{"menu": true, "menu item": true, "check menu item": true, "radio menu item": true,
	"menu bar": true, "popup menu": true, "separator": true, "tearoff menu item": true}

// menuOnly reports an effect that is only menus closing: menu elements whose states changed
// (and whatever left with the menu's popup), the focus perhaps moving back.
func (e *Effect) menuOnly() bool {
	if len(e.Changed) == 0 || e.Added > 0 || len(e.WindowsOpened) > 0 || len(e.WindowsClosed) > 0 || e.Foreground != nil ||
		e.Window != nil || e.Pixels != nil || e.Target != nil && (e.Target.Was != nil || !menuRoles[e.Target.Role]) {
		return false
	}
	for _, c := range e.Changed {
		if !menuRoles[c.Role] || c.Was != nil {
			return false
		}
	}
	return e.ChangedMore == 0
}

// forerunner reports an effect that only announces the change still to come: the focus moved
// (the target perhaps pressed or released) and/or the target window's title changed, nothing
// else. A click focuses a button before its handler runs, and what the handler changes (a
// calculator's display) shows a moment later; a web page's script sets the title and the text
// together, and the browser's title reaches the window before its accessibility tree is updated
// (beside a second make test, Firefox's title said "go=1" and its status paragraph's new text
// came after the first quiet moment had ended the wait).
func (e *Effect) forerunner() bool {
	titleOnly := e.Window != nil && e.Window.To.Title != nil && sameGeometry(e.Window.From, e.Window.To)
	return (e.Focus != nil || titleOnly) && (e.Window == nil || titleOnly) &&
		(e.Target == nil || e.Target.Was == nil && strings.Trim(e.Target.States, "+-") == "pressed") &&
		len(e.Changed) == 0 && e.Added == 0 && e.Removed == 0 && len(e.WindowsOpened) == 0 && len(e.WindowsClosed) == 0 &&
		e.Foreground == nil && e.Pixels == nil
}

// sameGeometry reports two window geometries with the same bounds and state.
func sameGeometry(a, b WindowGeometry) bool {
	return a.X == b.X && a.Y == b.Y && a.Width == b.Width && a.Height == b.Height && slices.Equal(a.State, b.State)
}

// observer holds the state before an action.
type observer struct {
	d       desktopReader
	pid     int    // the process acted on (0: none known)
	window  uint32 // the target window (0: none)
	target  string // the acted-on element's ref ("" for none)
	windows []platform.Window
	focus   *platform.Element
	node    *platform.Node
	tree    map[string]*platform.Node // by ref: the target window's elements, names and states
	whole   bool                      // the tree walk before the action was not cut by its budget
	// pixels holds the window's rectangle before the action where no tree could be read
	// (effectpixels.go); nil otherwise.
	pixels *pixelShot
	// events and windowEvents wake the settle loop; cancel ends both watches.
	events       <-chan struct{}
	windowEvents <-chan struct{}
	cancel       context.CancelFunc
	start        time.Time
}

// targetFocus, as watchAction's target, means the element that has keyboard focus before the
// action (typing and key presses act on it).
const targetFocus = "\x00focus"

// windowAt is the topmost visible window containing p (windows come bottom to top).
func windowAt(ws []platform.Window, p platform.Point) platform.Window {
	for i := len(ws) - 1; i >= 0; i-- {
		w := ws[i]
		if !w.Minimized && p.X >= w.Bounds.X && p.Y >= w.Bounds.Y && p.X < w.Bounds.X+w.Bounds.Width && p.Y < w.Bounds.Y+w.Bounds.Height {
			return w
		}
	}
	return platform.Window{}
}

// foregroundWindow is the active window (zero when none).
func foregroundWindow(ws []platform.Window) platform.Window {
	for _, w := range ws {
		if w.Focused {
			return w
		}
	}
	return platform.Window{}
}

// watchAction reads the state an action on element target (a ref, targetFocus, or "") in window
// w of process pid may change and starts watching for its events. It never fails: what cannot be read is
// left out of the comparison. Call settle after the action, or stop when it failed.
func watchAction(ctx context.Context, d desktopReader, w platform.Window, target string) *observer {
	o := &observer{d: d, pid: w.ProcessID, window: w.Handle, target: target}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	o.cancel = cancel
	if ch, err := d.WatchWindows(wctx); err == nil {
		o.windowEvents = ch
	}
	if o.pid > 0 {
		if ch, err := d.WatchTree(wctx, o.pid); err == nil {
			o.events = ch
		}
	}
	o.windows, _ = d.Windows(ctx)
	o.whole = o.readApp(ctx, &o.focus, &o.node, &o.tree, w)
	// Pixels where the tree cannot show the action's effect: there is no tree, or nothing in it
	// has the focus or is the target (EFL's terminal is a window with no content in its tree).
	if w.Handle != 0 && (o.tree == nil || o.focus == nil && o.node == nil) {
		o.pixels = shootWindow(ctx, d, w, o.windows)
	}
	o.start = time.Now()
	return o
}

// readBudget bounds one reading of the application's state: an application that is slow or
// still registering costs the comparison, not the action.
const readBudget = time.Second

// readApp reads the focus, the target element and the window's tree of the process, and
// reports whether the tree was read whole (a walk cut by its time budget still counts for the
// elements it read).
func (o *observer) readApp(ctx context.Context, focus **platform.Element, node **platform.Node, tree *map[string]*platform.Node, w platform.Window) (whole bool) {
	if o.pid <= 0 {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, readBudget)
	defer cancel()
	if f, err := o.d.Focused(ctx, o.pid); err == nil {
		*focus = &f
	}
	if o.target == targetFocus {
		o.target = focusRef(*focus)
	}
	if o.target != "" {
		if el, err := o.d.Element(ctx, o.target); err == nil {
			*node = &el.Node
		}
	}
	if w.Handle != 0 {
		t, err := o.d.Tree(ctx, w, platform.TreeLimits{MaxDepth: 64, MaxNodes: effectNodes, MaxChildren: 500, Budget: effectBudget,
			Lean: true, Values: true})
		if err == nil {
			*tree = flatten(t.Root)
			return !slices.Contains(t.TruncatedBy, platform.LimitTime)
		}
	}
	return false
}

func flatten(root *platform.Node) map[string]*platform.Node {
	out := make(map[string]*platform.Node)
	var visit func(*platform.Node)
	visit = func(n *platform.Node) {
		out[n.Ref] = n
		for _, k := range n.Children {
			visit(k)
		}
	}
	visit(root)
	return out
}

// stop ends the watches without reading anything (the action failed).
func (o *observer) stop() { o.cancel() }

// settle waits, at most limit, for the UI to settle after the action and returns what changed.
// appBlocked says the application is stuck in a modal loop: only windows are compared then,
// since every call into it would cost a deadline.
func (o *observer) settle(ctx context.Context, limit time.Duration, appBlocked bool) Effect {
	defer o.cancel()
	deadline := o.start.Add(limit)
	tick := time.NewTicker(settleTick)
	defer tick.Stop()
	var (
		eff       Effect
		events    int
		lastEvent time.Time
		grace     = sysload.Scale(focusGrace) // grows with the application's first answer's delay
		lastCheck = o.start
		pending   bool // events came since the last comparison
	)
	check := func(settled bool) bool {
		eff = o.diff(ctx, appBlocked)
		eff.AppEvents, eff.Settled = events, settled
		lastCheck, pending = time.Now(), false
		// A menu that closed is the way to an item's effect, not the effect: wait the settle
		// time for more (a loaded machine opened an About dialog 300 ms after its menu closed).
		return eff.conclusive() && (!eff.forerunner() || time.Since(o.start) >= grace) && !eff.menuOnly() && !eff.cut
	}
	for {
		now := time.Now()
		switch {
		case !now.Before(deadline):
			check(!pending)
			eff.SettledMs = time.Since(o.start).Milliseconds()
			return eff
		case pending && now.Sub(lastEvent) >= quietGap:
			if check(true) {
				eff.SettledMs = time.Since(o.start).Milliseconds()
				return eff
			}
		case !pending && now.Sub(lastCheck) >= unannouncedCheck:
			if check(true) {
				eff.SettledMs = time.Since(o.start).Milliseconds()
				return eff
			}
		}
		select {
		case <-ctx.Done():
			eff.SettledMs = time.Since(o.start).Milliseconds()
			return eff
		case _, open := <-o.events:
			if !open {
				o.events = nil
				continue
			}
			if events == 0 {
				grace = max(grace, focusGraceFactor*time.Since(o.start))
			}
			events++
			lastEvent, pending = time.Now(), true
		case _, open := <-o.windowEvents:
			if !open {
				o.windowEvents = nil
				continue
			}
			lastEvent, pending = time.Now(), true
		case <-tick.C:
		}
	}
}

// diff reads the state again and compares it with the state before the action.
func (o *observer) diff(ctx context.Context, appBlocked bool) Effect {
	var eff Effect
	after, err := o.d.Windows(ctx)
	if err == nil && o.windows != nil {
		o.diffWindows(&eff, after)
	}
	if appBlocked {
		return eff
	}
	var (
		focus *platform.Element
		node  *platform.Node
		tree  map[string]*platform.Node
	)
	w := platform.Window{Handle: o.window, ProcessID: o.pid}
	for _, x := range after {
		if x.Handle == o.window {
			w = x
		}
	}
	if !slices.ContainsFunc(after, func(x platform.Window) bool { return x.Handle == o.window }) {
		w.Handle = 0 // the window closed: nothing to walk
	}
	wholeAfter := o.readApp(ctx, &focus, &node, &tree, w)
	eff.cut = tree != nil && !wholeAfter && len(tree) < effectNodes
	// Only whole walks tell what appeared and went (a walk cut by time misses the rest; Calc's
	// are cut by size).
	whole := o.whole && wholeAfter && o.tree != nil && tree != nil && len(o.tree) < effectNodes && len(tree) < effectNodes
	if focusRef(o.focus) != focusRef(focus) && (o.focus != nil || focus != nil) {
		eff.Focus = &FocusMove{From: briefOf(o.focus), To: briefOf(focus)}
		if to := focusRef(focus); to != "" && whole && o.tree[to] == nil && tree[to] == nil {
			eff.focusAway = true
		}
	}
	if o.node != nil && node != nil {
		if c, changed := nodeChange(o.node, node, true); changed {
			eff.Target = &c
		}
	}
	if o.tree != nil && tree != nil {
		for ref, n := range tree {
			old, ok := o.tree[ref]
			switch {
			case !ok:
				if whole {
					eff.Added++
				}
			case ref == o.target:
			default:
				// Lean walks carry values only where names do not carry the text (a web
				// page's paragraphs in Firefox), so comparing values costs nothing elsewhere.
				if c, changed := nodeChange(old, n, true); changed {
					if len(eff.Changed) < maxChanged {
						eff.Changed = append(eff.Changed, c)
					} else {
						eff.ChangedMore++
					}
				}
			}
		}
		for ref := range o.tree {
			if _, ok := tree[ref]; !ok && whole {
				eff.Removed++
			}
		}
		slices.SortFunc(eff.Changed, func(a, b NodeChange) int { return strings.Compare(a.Ref, b.Ref) })
	}
	focusValueChange(&eff, o.focus, focus, o.target)
	pixelsCompared := false
	if o.pixels != nil {
		eff.Pixels, pixelsCompared = o.pixels.compare(ctx, o.d)
	}
	eff.unobservable = (o.tree == nil || tree == nil) && !pixelsCompared && (o.node == nil || node == nil)
	return eff
}

// focusValueChange adds the value change of the element that kept the focus: the lean walk reads
// no values, and the focused field is where typing and many buttons write (a calculator's display
// is a text field in GNOME Calculator). The target's own change is reported as the target's.
func focusValueChange(eff *Effect, before, after *platform.Element, target string) {
	if before == nil || after == nil || before.Node.Ref != after.Node.Ref || after.Node.Ref == target ||
		after.Node.Role == "password text" || sameValue(before.Node.Value, after.Node.Value) {
		return
	}
	for i := range eff.Changed {
		if c := &eff.Changed[i]; c.Ref == after.Node.Ref {
			if c.Was == nil {
				c.Was = &Was{}
			}
			c.Was.Value, c.Value = changedValues(before.Node.Value, after.Node.Value)
			return
		}
	}
	was, now := changedValues(before.Node.Value, after.Node.Value)
	c := NodeChange{NodeBrief: NodeBrief{Ref: after.Node.Ref, Role: after.Node.Role, Name: after.Node.Name},
		Was: &Was{Value: was}, Value: now}
	eff.Changed = append([]NodeChange{c}, eff.Changed...)
}

func (o *observer) diffWindows(eff *Effect, after []platform.Window) {
	had := make(map[uint32]platform.Window, len(o.windows))
	for _, w := range o.windows {
		had[w.Handle] = w
	}
	has := make(map[uint32]bool, len(after))
	var fgBefore, fgAfter *WindowBrief
	for _, w := range o.windows {
		if w.Focused {
			fgBefore = windowBrief(w)
		}
	}
	for _, w := range after {
		has[w.Handle] = true
		if w.Focused {
			fgAfter = windowBrief(w)
		}
		old, ok := had[w.Handle]
		if !ok {
			eff.WindowsOpened = append(eff.WindowsOpened, *windowBrief(w))
			continue
		}
		if w.Handle == o.window {
			from, to := geometry(old), geometry(w)
			if old.Title != w.Title {
				// A document's name in the title (an editor's New File, a page's) is often the
				// one change a window shows outside its tree.
				from.Title, to.Title = &old.Title, &w.Title
			}
			if !slices.Equal(from.State, to.State) || from.X != to.X || from.Y != to.Y || from.Width != to.Width || from.Height != to.Height ||
				from.Title != nil {
				eff.Window = &WindowDelta{From: from, To: to}
			}
		}
	}
	for _, w := range o.windows {
		if !has[w.Handle] {
			eff.WindowsClosed = append(eff.WindowsClosed, *windowBrief(w))
		}
	}
	if handleOf(fgBefore) != handleOf(fgAfter) {
		eff.Foreground = &WindowMove{From: fgBefore, To: fgAfter}
	}
}

func windowBrief(w platform.Window) *WindowBrief {
	return &WindowBrief{Handle: w.Handle, Title: w.Title, Type: w.Type, Modal: w.Modal}
}

func handleOf(b *WindowBrief) uint32 {
	if b == nil {
		return 0
	}
	return b.Handle
}

func geometry(w platform.Window) WindowGeometry {
	info := windowInfo(w)
	return WindowGeometry{X: info.X, Y: info.Y, Width: info.Width, Height: info.Height, State: info.State}
}

func focusRef(e *platform.Element) string {
	if e == nil {
		return ""
	}
	return e.Node.Ref
}

func briefOf(e *platform.Element) *NodeBrief {
	if e == nil {
		return nil
	}
	return &NodeBrief{Ref: e.Node.Ref, Role: e.Node.Role, Name: e.Node.Name}
}

// effectStates are the states whose change an effect reports: the ones agents act on. Focus is
// reported as a move; transient ones (armed, pressed while held) and layout ones are left out.
var effectStates = []string{"checked", "indeterminate", "selected", "expanded", "enabled", "sensitive",
	"showing", "visible", "editable", "pressed", "busy", "modal", "invalid-entry"}

// nodeChange compares one element before and after; withValue compares values too (only the
// full re-read of the target has them).
func nodeChange(old, cur *platform.Node, withValue bool) (NodeChange, bool) {
	c := NodeChange{NodeBrief: NodeBrief{Ref: cur.Ref, Role: cur.Role, Name: cur.Name}}
	changed := false
	if old.Name != cur.Name {
		name := old.Name
		c.Was = &Was{Name: &name}
		changed = true
	}
	if withValue && !sameValue(old.Value, cur.Value) {
		if c.Was == nil {
			c.Was = &Was{}
		}
		c.Was.Value, c.Value = changedValues(old.Value, cur.Value)
		changed = true
	}
	var flips []string
	for _, s := range effectStates {
		switch {
		case cur.States[s] && !old.States[s]:
			flips = append(flips, "+"+s)
		case old.States[s] && !cur.States[s]:
			flips = append(flips, "-"+s)
		}
	}
	if len(flips) > 0 {
		c.States = strings.Join(flips, " ")
		changed = true
	}
	return c, changed
}

func sameValue(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// maxEffectValue bounds a value an effect reports: a document's text is up to 4 KiB, and an
// agent needs to see what changed, not the whole text twice.
const maxEffectValue = 200

// effectContext is how much unchanged text a clipped value keeps around the change.
const effectContext = 40

// changedValues are the values an effect reports for a change from old to cur: whole when both
// are short, else the part that differs with a little context, the cut ends marked "…".
func changedValues(old, cur *string) (*string, *string) {
	o, c := valueOrEmpty(old), valueOrEmpty(cur)
	or, cr := []rune(*o), []rune(*c)
	if len(or) <= maxEffectValue && len(cr) <= maxEffectValue {
		return o, c
	}
	pre := 0
	for pre < len(or) && pre < len(cr) && or[pre] == cr[pre] {
		pre++
	}
	suf := 0
	for suf < len(or)-pre && suf < len(cr)-pre && or[len(or)-1-suf] == cr[len(cr)-1-suf] {
		suf++
	}
	cut := func(r []rune) *string {
		from, to := max(pre-effectContext, 0), min(len(r)-suf+effectContext, len(r))
		mid := r[from:to]
		if len(mid) > maxEffectValue {
			mid = append(mid[:maxEffectValue:maxEffectValue], '…')
		}
		s := string(mid)
		if from > 0 {
			s = "…" + s
		}
		if to < len(r) && len(mid) <= maxEffectValue {
			s += "…"
		}
		return &s
	}
	return cut(or), cut(cr)
}

func valueOrEmpty(v *string) *string {
	if v == nil {
		s := ""
		return &s
	}
	return v
}

// noEffectWarning is the warning of an action whose effect nobody saw: effect-unobservable when
// nothing could be compared, else no-observed-effect.
func noEffectWarning(what string, eff Effect) contract.Warning {
	if eff.unobservable {
		return contract.Warn(contract.WarnEffectUnobservable, "%s: its effect could not be observed (no accessibility tree "+
			"and no pixels of the window to compare; windows were compared and none opened or closed): whether it worked is "+
			"unknown, not that it failed; look (capture) before acting again", what)
	}
	detail := fmt.Sprintf("%s: no change of focus, windows, or the window's elements was seen within %d ms", what, eff.SettledMs)
	if p := eff.Pixels; p != nil {
		detail += fmt.Sprintf(" (the window's pixels changed only where a cursor blinks, at %d,%d %dx%d)",
			p.X, p.Y, p.Width, p.Height)
	}
	if eff.AppEvents > 0 {
		detail += fmt.Sprintf(" (the application emitted %d bursts of accessibility events)", eff.AppEvents)
	}
	return contract.Warn(contract.WarnNoObservedEffect, "%s; the action may have been lost or may act elsewhere: look before going on", detail)
}
