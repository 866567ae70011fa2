package fake

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcec/mcec/internal/platform"
)

// Elem describes an accessible object to build (a window's Root, or AddChild's argument).
type Elem struct {
	Role, Name, Description, AutomationID string
	// ControlType is derived from Role when empty ("Custom" for roles the fake does not know).
	ControlType string
	// Bounds are relative to the window's client area; nil for an object without a place.
	Bounds *platform.Rect
	// Every object is "enabled", "sensitive", "visible" and "showing" unless Disabled or
	// Hidden; States adds more ("focusable", "checkable", "checked", "editable", "expandable",
	// "selectable", …).
	Hidden, Disabled bool
	States           []string
	Value            *string
	// Actions are the accessible action names; "click" when empty and OnInvoke is set or the
	// object is checkable.
	Actions []string
	// OnInvoke runs when the object is activated: ActInvoke, ActToggle on a checkable object, or
	// a left click on its bounds. It runs without the desktop's lock and may change anything.
	OnInvoke func(d *Desktop, ref string)
	Children []*Elem
}

type node struct {
	ref, parent string
	pid         int
	win         uint32
	children    []string

	role, name, desc, autoID, controlType string
	bounds                                *platform.Rect
	states                                map[string]bool
	value                                 *string
	actions                               []string
	onInvoke                              func(d *Desktop, ref string)
}

// MaskedValue replaces the text of a "password text" object, as the AT-SPI backend does.
const MaskedValue = "••••••••"

// refPrefix starts every fake ref; anything else is malformed (platform.ErrBadRef).
const refPrefix = "fake:"

// build adds e and its children under parent; d.mu held. It returns e's ref.
func (d *Desktop) build(pid int, win uint32, parent string, e *Elem) string {
	d.nextRef++
	n := &node{ref: fmt.Sprintf("%s%d/%d", refPrefix, pid, d.nextRef), parent: parent, pid: pid, win: win,
		role: e.Role, name: e.Name, desc: e.Description, autoID: e.AutomationID, controlType: e.ControlType,
		states: map[string]bool{}, actions: slices.Clone(e.Actions), onInvoke: e.OnInvoke}
	if e.Bounds != nil {
		b := *e.Bounds
		n.bounds = &b
	}
	if e.Value != nil {
		v := *e.Value
		n.value = &v
	}
	if n.controlType == "" {
		n.controlType = controlTypes[n.role]
		if n.controlType == "" {
			n.controlType = "Custom"
		}
	}
	if !e.Disabled {
		n.states["enabled"], n.states["sensitive"] = true, true
	}
	if !e.Hidden {
		n.states["visible"], n.states["showing"] = true, true
	}
	for _, s := range e.States {
		n.states[s] = true
	}
	if len(n.actions) == 0 && (n.onInvoke != nil || n.checkable()) {
		n.actions = []string{"click"}
	}
	if n.states["focused"] {
		d.setFocus(n)
	}
	d.nodes[n.ref] = n
	for _, c := range e.Children {
		n.children = append(n.children, d.build(pid, win, n.ref, c))
	}
	return n.ref
}

// drop removes n and its descendants; d.mu held.
func (d *Desktop) drop(n *node) {
	if n == nil {
		return
	}
	for _, c := range n.children {
		d.drop(d.nodes[c])
	}
	if d.focus[n.pid] == n.ref {
		delete(d.focus, n.pid)
	}
	delete(d.nodes, n.ref)
}

// controlTypes are the UIA-style control types of the roles tests use most (the AT-SPI backend
// maps every role; these agree with it).
var controlTypes = map[string]string{
	"push button": "Button", "toggle button": "Button", "check box": "CheckBox", "radio button": "RadioButton",
	"entry": "Edit", "text": "Edit", "password text": "Edit", "label": "Text", "combo box": "ComboBox",
	"list": "List", "list item": "ListItem", "menu": "Menu", "menu bar": "MenuBar", "menu item": "MenuItem",
	"page tab list": "Tab", "page tab": "TabItem", "frame": "Window", "dialog": "Window", "panel": "Pane",
	"filler": "Pane", "tool bar": "ToolBar", "status bar": "StatusBar", "slider": "Slider", "spin button": "Spinner",
	"table": "Table", "table cell": "DataItem", "tree": "Tree", "tree item": "TreeItem",
}

func (n *node) checkable() bool {
	switch n.role {
	case "check box", "toggle button", "radio button", "check menu item", "radio menu item", "switch":
		return true
	}
	return n.states["checkable"]
}

// abs is n's bounds on screen: relative bounds moved to its window; nil when it has none, does
// not show, or its window is minimized. d.mu held.
func (d *Desktop) abs(n *node) *platform.Rect {
	w := d.win(n.win)
	if n.bounds == nil || !n.states["showing"] || w == nil || w.Minimized {
		return nil
	}
	b := *n.bounds
	b.X += w.Bounds.X
	b.Y += w.Bounds.Y
	return &b
}

// render converts n without children; lean leaves out what TreeLimits.Lean does, but for the
// content values TreeLimits.Values keeps and every value TreeLimits.Texts keeps. d.mu held.
func (d *Desktop) render(n *node, lean, values, texts bool) *platform.Node {
	out := &platform.Node{Ref: n.ref, Role: n.role, ControlType: n.controlType, Name: n.name, Description: n.desc,
		States: make(platform.StateSet, len(n.states))}
	for s, on := range n.states {
		if on {
			out.States[s] = true
		}
	}
	if lean {
		if n.value != nil && (texts || values && contentRoles[n.role]) {
			v := *n.value
			if n.role == "password text" {
				v = MaskedValue
			}
			out.Value = &v
		}
		return out
	}
	out.AutomationID = n.autoID
	out.Bounds = d.abs(n)
	out.Actions = slices.Clone(n.actions)
	if n.value != nil {
		v := *n.value
		if n.role == "password text" {
			v = MaskedValue
		}
		out.Value = &v
	}
	return out
}

// lookup finds the live node of ref, failing as the platform says: ErrBadRef for a malformed
// ref, ErrWindowClosed when its process has no window left, ErrElementStale otherwise. It
// waits out a hung process's deadline. On success d.mu is held; the caller unlocks.
func (d *Desktop) lookup(ctx context.Context, ref string) (*node, error) {
	pid, err := refPID(ref)
	if err != nil {
		return nil, err
	}
	if err := d.answering(ctx, pid); err != nil {
		return nil, err
	}
	n := d.nodes[ref]
	if n == nil {
		alive := slices.ContainsFunc(d.windows, func(w *window) bool { return w.ProcessID == pid })
		d.mu.Unlock()
		if !alive {
			return nil, fmt.Errorf("%w: process %d has no window left (%s)", platform.ErrWindowClosed, pid, ref)
		}
		return nil, fmt.Errorf("%w: %s", platform.ErrElementStale, ref)
	}
	return n, nil
}

// answering locks d.mu and checks the desktop and process pid. A hung process's call waits
// until it answers again (and then proceeds), or fails after CallTimeout or when ctx ends. On
// error d.mu is released.
func (d *Desktop) answering(ctx context.Context, pid int) error {
	d.mu.Lock()
	if err := d.check(ctx); err != nil {
		d.mu.Unlock()
		return err
	}
	answered, hung := d.hung[pid]
	if !hung {
		return nil
	}
	wait := d.opts.CallTimeout
	d.stalled[pid]++
	d.mu.Unlock()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var err error
	select {
	case <-answered:
	case <-ctx.Done():
		err = fmt.Errorf("%w: process %d did not answer before the deadline", platform.ErrAppNotResponding, pid)
	case <-timer.C:
		err = fmt.Errorf("%w: process %d did not answer within %v", platform.ErrAppNotResponding, pid, wait)
	}
	d.mu.Lock()
	d.stalled[pid]--
	d.mu.Unlock()
	if err != nil {
		return err
	}
	return d.answering(ctx, pid) // it answers again (or hangs anew)
}

func refPID(ref string) (int, error) {
	rest, ok := strings.CutPrefix(ref, refPrefix)
	p, n, ok2 := strings.Cut(rest, "/")
	pid, err := strconv.Atoi(p)
	_, err2 := strconv.Atoi(n)
	if !ok || !ok2 || err != nil || err2 != nil {
		return 0, fmt.Errorf("%w: %q", platform.ErrBadRef, ref)
	}
	return pid, nil
}

// Tree walks the frame of window w.
func (d *Desktop) Tree(ctx context.Context, w platform.Window, limits platform.TreeLimits) (platform.Tree, error) {
	if err := d.answering(ctx, w.ProcessID); err != nil {
		return platform.Tree{}, err
	}
	defer d.mu.Unlock()
	x := d.win(w.Handle)
	if x == nil {
		return platform.Tree{}, fmt.Errorf("%w: handle %d", platform.ErrWindowClosed, w.Handle)
	}
	root := d.nodes[x.root]
	if root == nil { // none from the start, or the test removed the frame
		return platform.Tree{}, fmt.Errorf("%w: window %d (%s)", platform.ErrNoAccessibleTree, x.Handle, x.ProcessName)
	}
	return d.walk(root, limits), nil
}

// Subtree walks from the object ref.
func (d *Desktop) Subtree(ctx context.Context, ref string, limits platform.TreeLimits) (platform.Tree, error) {
	n, err := d.lookup(ctx, ref)
	if err != nil {
		return platform.Tree{}, err
	}
	defer d.mu.Unlock()
	return d.walk(n, limits), nil
}

// walk renders the tree under root within limits, as the platform documents them (the time
// budget aside: the fake takes no time). d.mu held.
func (d *Desktop) walk(root *node, limits platform.TreeLimits) platform.Tree {
	var (
		t   platform.Tree
		cut = map[string]bool{}
	)
	rawCap := platform.RawDepthCap(limits.MaxDepth)
	var visit func(n *node, depth, raw int) *platform.Node
	visit = func(n *node, depth, raw int) *platform.Node {
		out := d.render(n, limits.Lean, limits.Values, limits.Texts)
		t.NodeCount++
		if out.Value != nil && *out.Value == MaskedValue && n.role == "password text" {
			t.SecretsMasked++
		}
		if len(n.children) == 0 || (limits.ShowingOnly && !n.states["showing"]) {
			return out
		}
		kids := n.children
		if limits.MaxChildren > 0 && len(kids) > limits.MaxChildren {
			kids = kids[:limits.MaxChildren]
			cut[platform.LimitMaxChildren] = true
			out.ChildCount = len(n.children)
		}
		for _, ref := range kids {
			c := d.nodes[ref]
			cd := depth + 1
			if platform.LayoutRole(c.role) && c.name == "" {
				cd = depth
			}
			if cd > limits.MaxDepth || raw+1 > rawCap {
				cut[platform.LimitMaxDepth] = true
				out.ChildCount = len(n.children)
				break
			}
			if limits.MaxNodes > 0 && t.NodeCount >= limits.MaxNodes {
				cut[platform.LimitMaxNodes] = true
				out.ChildCount = len(n.children)
				break
			}
			out.Children = append(out.Children, visit(c, cd, raw+1))
		}
		return out
	}
	t.Root = visit(root, 0, 0)
	for _, l := range []string{platform.LimitMaxDepth, platform.LimitMaxNodes, platform.LimitMaxChildren, platform.LimitTime} {
		if cut[l] {
			t.TruncatedBy = append(t.TruncatedBy, l)
		}
	}
	t.Truncated = len(t.TruncatedBy) > 0
	return t
}

// Element re-reads one object.
func (d *Desktop) Element(ctx context.Context, ref string) (platform.Element, error) {
	n, err := d.lookup(ctx, ref)
	if err != nil {
		return platform.Element{}, err
	}
	defer d.mu.Unlock()
	return platform.Element{Node: *d.render(n, false, false, false), PID: n.pid, Parent: n.parent}, nil
}

// Focused returns the object with keyboard focus in process pid.
func (d *Desktop) Focused(ctx context.Context, pid int) (platform.Element, error) {
	if err := d.answering(ctx, pid); err != nil {
		return platform.Element{}, err
	}
	defer d.mu.Unlock()
	n := d.nodes[d.focus[pid]]
	if n == nil {
		return platform.Element{}, fmt.Errorf("%w: nothing has the focus in process %d", platform.ErrElementStale, pid)
	}
	return platform.Element{Node: *d.render(n, false, false, false), PID: n.pid, Parent: n.parent}, nil
}

// setFocus moves process n.pid's focus to n; d.mu held.
func (d *Desktop) setFocus(n *node) {
	if old := d.nodes[d.focus[n.pid]]; old != nil {
		old.states["focused"] = false
	}
	n.states["focused"] = true
	d.focus[n.pid] = n.ref
}

// activation flips a checkable object and returns its OnInvoke (nil when none); d.mu held.
func (n *node) activate() func(d *Desktop, ref string) {
	if n.checkable() {
		n.states["checked"] = !n.states["checked"]
	}
	return n.onInvoke
}

// Act performs a semantic action. A disabled object accepts invoke and does nothing, as
// toolkits do; what an object cannot do fails ErrUnsupported (ErrNotFocused for focus).
func (d *Desktop) Act(ctx context.Context, ref string, action platform.ElementAction, text string) (platform.ActResult, error) {
	n, err := d.lookup(ctx, ref)
	if err != nil {
		return platform.ActResult{}, err
	}
	var run func(d *Desktop, ref string)
	unsupported := func(what string) (platform.ActResult, error) {
		d.mu.Unlock()
		return platform.ActResult{}, fmt.Errorf("%w: %s (%s %q) is not %s; actions: %v", platform.ErrUnsupported, ref, n.role, n.name, what, n.actions)
	}
	enabled := n.states["enabled"]
	switch action {
	case platform.ActInvoke:
		if len(n.actions) == 0 {
			return unsupported("actionable")
		}
		if enabled {
			run = n.activate()
		}
	case platform.ActToggle:
		if !n.checkable() {
			return unsupported("checkable")
		}
		if enabled {
			run = n.activate()
		}
	case platform.ActSetValue:
		if !n.states["editable"] && n.value == nil {
			return unsupported("editable and has no value")
		}
		if !n.states["editable"] {
			if _, err := strconv.ParseFloat(strings.TrimSpace(text), 64); err != nil {
				d.mu.Unlock()
				return platform.ActResult{}, fmt.Errorf("%w: %q is not a number for %s", platform.ErrBadValue, text, ref)
			}
		}
		n.value = &text
	case platform.ActSetFocus:
		if !n.states["focusable"] || !enabled {
			d.mu.Unlock()
			return platform.ActResult{}, fmt.Errorf("%w: %s (%s %q) is not focusable", platform.ErrNotFocused, ref, n.role, n.name)
		}
		d.setFocus(n)
	case platform.ActExpand, platform.ActCollapse:
		if !n.states["expandable"] {
			return unsupported("expandable")
		}
		n.states["expanded"] = action == platform.ActExpand
	case platform.ActSelect:
		if !n.states["selectable"] {
			return unsupported("selectable")
		}
		if p := d.nodes[n.parent]; p != nil {
			for _, s := range p.children {
				d.nodes[s].states["selected"] = false
			}
		}
		n.states["selected"] = true
	default:
		return unsupported(string(action) + "-able")
	}
	pid := n.pid
	slow := d.slowActs[pid]
	d.mu.Unlock()
	if run != nil {
		run(d, ref)
	}
	d.treeChanged(pid)
	return platform.ActResult{ModalPending: slow}, nil
}

// change applies f to the live node ref and announces the change; ErrElementStale when gone.
func (d *Desktop) change(ref string, f func(n *node)) error {
	d.mu.Lock()
	n := d.nodes[ref]
	if n == nil {
		d.mu.Unlock()
		return fmt.Errorf("%w: %s", platform.ErrElementStale, ref)
	}
	f(n)
	pid := n.pid
	d.mu.Unlock()
	d.treeChanged(pid)
	return nil
}

// SetName renames an object.
func (d *Desktop) SetName(ref, name string) error {
	return d.change(ref, func(n *node) { n.name = name })
}

// SetValue sets an object's value (text or number as text).
func (d *Desktop) SetValue(ref, value string) error {
	return d.change(ref, func(n *node) { n.value = &value })
}

// SetState sets or clears one state. "focused" moves the process's focus.
func (d *Desktop) SetState(ref, state string, on bool) error {
	return d.change(ref, func(n *node) {
		if state == "focused" && on {
			d.setFocus(n)
			return
		}
		if state == "focused" && d.focus[n.pid] == n.ref {
			delete(d.focus, n.pid)
		}
		n.states[state] = on
	})
}

// SetBounds moves an object within its window (relative bounds; nil: no place).
func (d *Desktop) SetBounds(ref string, b *platform.Rect) error {
	return d.change(ref, func(n *node) { n.bounds = b })
}

// AddChild appends e (and its children) under parent and returns its ref.
func (d *Desktop) AddChild(parent string, e *Elem) (string, error) {
	var ref string
	err := d.change(parent, func(p *node) {
		ref = d.build(p.pid, p.win, p.ref, e)
		p.children = append(p.children, ref)
	})
	return ref, err
}

// Remove destroys an object and its descendants (their refs go stale).
func (d *Desktop) Remove(ref string) error {
	return d.change(ref, func(n *node) {
		if p := d.nodes[n.parent]; p != nil {
			p.children = slices.DeleteFunc(p.children, func(c string) bool { return c == ref })
		}
		d.drop(n)
	})
}

// Ref returns the ref of the first object (depth first) in window handle's tree with that
// name, "" when none: tests name the objects they build.
func (d *Desktop) Ref(handle uint32, name string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	w := d.win(handle)
	if w == nil || d.nodes[w.root] == nil {
		return ""
	}
	var find func(ref string) string
	find = func(ref string) string {
		n := d.nodes[ref]
		if n.name == name {
			return ref
		}
		for _, c := range n.children {
			if r := find(c); r != "" {
				return r
			}
		}
		return ""
	}
	return find(w.root)
}

// Node is a snapshot of the live object ref (without children), for assertions.
func (d *Desktop) Node(ref string) (platform.Node, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := d.nodes[ref]
	if n == nil {
		return platform.Node{}, false
	}
	return *d.render(n, false, false, false), true
}

// hit is the deepest showing object of window w whose bounds contain p; d.mu held.
func (d *Desktop) hit(w *window, p platform.Point) *node {
	var best *node
	var visit func(ref string)
	visit = func(ref string) {
		n := d.nodes[ref]
		if !n.states["showing"] {
			return
		}
		if b := d.abs(n); b != nil && p.X >= b.X && p.Y >= b.Y && p.X < b.X+b.Width && p.Y < b.Y+b.Height {
			best = n
		}
		for _, c := range n.children {
			visit(c)
		}
	}
	if d.nodes[w.root] != nil {
		visit(w.root)
	}
	return best
}

// contentRoles are the roles whose values a lean walk with TreeLimits.Values reads, as the
// AT-SPI backend's (its labels and paragraphs carry their text in names here).
var contentRoles = map[string]bool{"text": true, "entry": true, "document text": true, "terminal": true,
	"status bar": true, "spin button": true}
