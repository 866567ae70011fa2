package atspi

import (
	"context"
	"math"
	"strconv"
	"strings"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/atspi/dbuswire"
)

// objectReplacement (U+FFFC) marks where an embedded object sits in a text.
const objectReplacement = '\uFFFC'

// MaskedValue replaces the text of password fields: it is never read from the application.
const MaskedValue = "••••••••"

// maxValueChars bounds the text read from one node, so a document or terminal costs one
// small reply, not megabytes.
const maxValueChars = 4096

// enrichJobs returns the calls that fetch, for nodes, what the cache lacks: extents (only for
// showing objects with a Component: hidden ones report INT_MIN garbage, and asking an object
// without Component makes GTK print a CRITICAL), the accessible id and action names (unless
// the meta cache knows the object), and the value. Lean walks fetch only what TreeLimits.Lean,
// Values and Texts ask for.
func (w *walker) enrichJobs(nodes []*node) batch {
	var (
		jobs  []job
		calls []callJob
	)
	fast := w.useCalls()
	jobs = w.rowsInViewJobs(nodes) // first: it takes the cells whose extents it settles
	for _, n := range nodes {
		if n.dead.Load() {
			continue
		}
		info := n.info
		if w.limits.Lean {
			if _, ok := roleName(info.role); !ok {
				jobs = append(jobs, w.roleNameJob(n))
			}
			if w.limits.Texts {
				jobs, calls = w.valueFetch(n, fast, jobs, calls)
				continue
			}
			name, _ := roleName(info.role)
			textual := info.ifaces&hasText != 0 && info.states.has(stateShowing) && info.role != rolePasswordText
			switch {
			case textual && w.bridgeAt(n).textNotNamed && textElementRoles[name] && info.name == "":
				jobs = append(jobs, w.textJob(n))
			case textual && w.limits.Values && (contentRoles[name] || textElementRoles[name] && info.name == ""):
				jobs = append(jobs, w.textJob(n))
			}
			continue
		}
		if info.ifaces&hasComponent != 0 && info.states.has(stateShowing) && !n.extDone {
			if fast {
				calls = append(calls, w.extentsCall(n))
			} else {
				jobs = append(jobs, w.extentsJob(n))
			}
		}
		m := w.c.meta.get(n.ref)
		known := m.has&metaKind != 0 && m.role == info.role
		if !info.idKnown {
			if known && m.has&metaID != 0 {
				n.id = m.id
			} else {
				jobs = append(jobs, w.idJob(n))
			}
		}
		if info.ifaces&hasAction != 0 {
			if known && m.has&metaActions != 0 {
				n.actions = m.actions
			} else {
				jobs = append(jobs, w.actionsJob(n))
			}
		}
		jobs, calls = w.valueFetch(n, fast, jobs, calls)
		if _, ok := roleName(info.role); !ok {
			jobs = append(jobs, w.roleNameJob(n))
		}
	}
	return batch{jobs: jobs, calls: calls}
}

// valueFetch adds to jobs and calls what reads n's value (its text, its numeric value or a
// combo box's choice); a password field's value is masked without reading it.
func (w *walker) valueFetch(n *node, fast bool, jobs []job, calls []callJob) ([]job, []callJob) {
	info := n.info
	switch {
	case info.role == rolePasswordText:
		v := MaskedValue
		n.value = &v
	case info.role == roleComboBox && info.ifaces&hasSelection != 0 && info.ifaces&hasText == 0:
		jobs = append(jobs, w.chosenJob(n))
	case info.ifaces&hasText != 0 && w.bridgeAt(n).cellTextIsName && !w.c.readCellText && info.role == roleTableCell && info.name != "":
		setText(n, info.name)
	case info.ifaces&hasText != 0 && fast && w.bridgeAt(n).wholeText && shortText(info):
		calls = append(calls, w.shortTextCall(n))
	case info.ifaces&hasText != 0:
		jobs = append(jobs, w.textJob(n))
	case info.ifaces&hasValue != 0 && fast:
		calls = append(calls, w.valueCall(n))
	case info.ifaces&hasValue != 0:
		jobs = append(jobs, w.valueJob(n))
	}
	return jobs, calls
}

// contentRoles hold text that is their content, not a caption: what TreeLimits.Values reads.
var contentRoles = map[string]bool{"text": true, "entry": true, "document text": true, "terminal": true,
	"status bar": true, "spin button": true}

// textElementRoles hold a piece of a page's text (lean walks read their text where names do not
// carry it: bridge.textNotNamed).
var textElementRoles = map[string]bool{"paragraph": true, "heading": true, "static": true, "label": true,
	"block quote": true, "list item": true, "caption": true}

// remember hands what this walk fetched to the client's meta cache.
func (w *walker) remember() {
	updates := make(map[objRef]objMeta)
	for _, n := range w.nodes {
		if !(n.gotKind || n.gotID || n.gotActions) || n.dead.Load() {
			continue
		}
		m := objMeta{role: n.info.role, ifaces: n.info.ifaces, id: n.id, actions: n.actions, has: metaKind}
		if n.gotID {
			m.has |= metaID
		}
		if n.gotActions {
			m.has |= metaActions
		}
		updates[n.ref] = m
	}
	w.c.meta.merge(updates)
}

// nodeFailure records a non-fatal failure on n and passes fatal ones up.
func nodeFailure(n *node, f failure, err error) error {
	if f.fatal() {
		return err
	}
	if f == failDead {
		n.dead.Store(true)
	}
	return nil
}

func (w *walker) extentsJob(n *node) job {
	return func(ctx context.Context) error {
		n.extDone = true
		r, ok, f, err := w.c.extents(ctx, n.ref, w.bridgeAt(n).coordType())
		if err != nil {
			return nodeFailure(n, f, err)
		}
		if ok {
			n.setExtents(r)
		}
		return nil
	}
}

// setExtents keeps a GetExtents reply. An object that says it is showing but answers the
// not-on-screen marker (GTK 3 does both for a tree view's rows scrolled out of view) is
// offscreen: its bounds are omitted and it is not reported showing, as for hidden objects.
func (n *node) setExtents(r [4]int32) {
	n.extents = extentsRect(r)
	n.offscreen = r[0] == math.MinInt32 || r[1] == math.MinInt32
}

// extentsRect is the rectangle of a GetExtents reply (x, y, width, height), or nil for the
// INT_MIN garbage of objects that are not on screen.
func extentsRect(r [4]int32) *platform.Rect {
	x, y, wd, ht := r[0], r[1], r[2], r[3]
	if x == math.MinInt32 || y == math.MinInt32 || wd < 0 || ht < 0 {
		return nil
	}
	return &platform.Rect{X: int(x), Y: int(y), Width: int(wd), Height: int(ht)}
}

func (w *walker) idJob(n *node) job {
	return func(ctx context.Context) error {
		f, err := w.c.property(ctx, n.ref.Bus, n.ref.Path, ifAccessible, "AccessibleId", &n.id)
		if err == nil || f == failNoIface {
			n.gotID = true // a bridge without the property has no ids to offer either
		}
		return nodeFailure(n, f, err)
	}
}

// actionsJob reads the action names. GetActions answers in one call but with localized names
// (and GTK's cells put descriptions there); the stable names that DoAction callers match come
// from GetName per action. The meta cache makes that a first-sight cost only.
func (w *walker) actionsJob(n *node) job {
	return func(ctx context.Context) error {
		bus, path := n.ref.Bus, n.ref.Path
		if w.bridgeAt(n).actionsByCount {
			return w.actionsByCount(ctx, n)
		}
		call, f, err := w.c.call(ctx, bus, path, ifAction+".GetActions")
		if err != nil {
			return nodeFailure(n, f, err)
		}
		var acts []struct{ Name, Description, KeyBinding string }
		if call.Store(&acts) != nil {
			return nil
		}
		names := make([]string, len(acts))
		for i, a := range acts {
			names[i] = a.Name
			name, err := w.actionName(ctx, n, int32(i))
			if err != nil {
				return err
			}
			if name != "" {
				names[i] = name
			}
		}
		n.actions = names
		n.gotActions = true
		return nil
	}
}

// actionsByCount reads n's action names one by one, for bridges that do not answer GetActions.
func (w *walker) actionsByCount(ctx context.Context, n *node) error {
	bus, path := n.ref.Bus, n.ref.Path
	call, f, err := w.c.call(ctx, bus, path, ifAction+".GetNActions")
	if err != nil {
		return nodeFailure(n, f, err)
	}
	var count int32
	if call.Store(&count) != nil || count < 0 {
		return nil
	}
	var names []string
	for i := range min(count, maxActions) {
		name, err := w.actionName(ctx, n, i)
		if err != nil {
			return err
		}
		if name != "" {
			names = append(names, name)
		}
	}
	n.actions = names
	n.gotActions = true
	return nil
}

// actionName reads the non-localized name of n's action i ("" when it has none or the call was
// refused; an error only when the walk must stop).
func (w *walker) actionName(ctx context.Context, n *node, i int32) (string, error) {
	call, f, err := w.c.call(ctx, n.ref.Bus, n.ref.Path, ifAction+".GetName", i)
	if err != nil {
		return "", nodeFailure(n, f, err)
	}
	var name string
	_ = call.Store(&name)
	return name, nil
}

// maxActions bounds the action names read from one object.
const maxActions = 16

func (w *walker) textJob(n *node) job {
	return func(ctx context.Context) error {
		bus, path := n.ref.Bus, n.ref.Path
		end := int32(-1)
		if !w.bridgeAt(n).wholeText || !shortText(n.info) {
			// Not GetText(0, -1) on a document or terminal: that transfers all of it. Not
			// GetText(0, limit) blindly either: implementations need not clamp an end past the
			// text, so read the length first.
			f, err := w.c.property(ctx, bus, path, ifText, "CharacterCount", &end)
			if err != nil {
				return nodeFailure(n, f, err)
			}
			end = max(0, min(end, maxValueChars))
		}
		s := ""
		if end != 0 {
			got, ok, f, err := w.c.callString(ctx, n.ref, ifText, "GetText", int32(0), end)
			if err != nil {
				return nodeFailure(n, f, err)
			}
			if !ok {
				return nil
			}
			s = got
		}
		setText(n, s)
		return nil
	}
}

// shortTextCall is textJob's one call for a short text on a bridge whose GetText(0, -1)
// returns the whole text.
func (w *walker) shortTextCall(n *node) callJob {
	return callJob{ref: n.ref, iface: ifText, member: "GetText", args: []any{int32(0), int32(-1)},
		handle: func(rep *dbuswire.Reply, f failure, err error) error {
			if err != nil {
				return nodeFailure(n, f, err)
			}
			if s, derr := rep.String(); derr == nil {
				setText(n, s)
			}
			return nil
		}}
}

// setText makes s the node's value. Object replacement characters stand for embedded children
// (Chromium's and Firefox's containers hold nothing else); they are not text anyone reads.
func setText(n *node, s string) {
	if strings.ContainsRune(s, objectReplacement) {
		if s = strings.ReplaceAll(s, string(objectReplacement), ""); s == "" {
			return
		}
	}
	s = truncateRunes(s, maxValueChars)
	n.value = &s
}

// shortText reports widgets whose whole text fits one reply comfortably, read with a single
// GetText(0, -1) instead of two calls.
func shortText(info *objInfo) bool {
	if info.states.has(stateSingleLine) {
		return true
	}
	name, _ := roleName(info.role)
	switch name {
	case "label", "static", "caption", "accelerator label", "heading", "push button",
		"toggle button", "check box", "radio button", "menu item", "check menu item",
		"radio menu item", "list item", "table cell", "tree item", "page tab", "link",
		"spin button", "combo box", "entry", "tool tip", "status bar", "column header",
		"table column header", "table row header", "row header":
		return true
	}
	return false
}

func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

func (w *walker) valueJob(n *node) job {
	return func(ctx context.Context) error {
		var v float64
		f, err := w.c.property(ctx, n.ref.Bus, n.ref.Path, ifValue, "CurrentValue", &v)
		if err != nil {
			return nodeFailure(n, f, err)
		}
		s := strconv.FormatFloat(v, 'f', -1, 64)
		n.value = &s
		return nil
	}
}

// valueCall is valueJob's call on the fast path.
func (w *walker) valueCall(n *node) callJob {
	return callJob{ref: n.ref, iface: "org.freedesktop.DBus.Properties", member: "Get", args: []any{ifValue, "CurrentValue"},
		handle: func(rep *dbuswire.Reply, f failure, err error) error {
			if err != nil {
				return nodeFailure(n, f, err)
			}
			if got, derr := rep.Variant(); derr == nil {
				if v, ok := got.(float64); ok {
					s := strconv.FormatFloat(v, 'f', -1, 64)
					n.value = &s
				}
			}
			return nil
		}}
}

// chosenJob reads the entry a combo box without text shows as its value: the name of the child
// its Selection reports (GTK 3's combo boxes keep their label as their name, and the chosen
// entry is nowhere else in the tree).
func (w *walker) chosenJob(n *node) job {
	return func(ctx context.Context) error {
		call, f, err := w.c.call(ctx, n.ref.Bus, n.ref.Path, ifSelection+".GetSelectedChild", int32(0))
		if err != nil {
			if f.fatal() {
				return err
			}
			return nil // nothing chosen: some bridges answer an error
		}
		var child objRef
		if call.Store(&child) != nil || child.null() {
			return nil
		}
		var name string
		if f, err := w.c.property(ctx, child.Bus, child.Path, ifAccessible, "Name", &name); err != nil {
			if f.fatal() {
				return err
			}
			return nil
		}
		n.value = &name
		return nil
	}
}

// roleNameJob asks for the name of a role number newer than our table.
func (w *walker) roleNameJob(n *node) job {
	return func(ctx context.Context) error {
		call, f, err := w.c.call(ctx, n.ref.Bus, n.ref.Path, ifAccessible+".GetRoleName")
		if err != nil {
			return nodeFailure(n, f, err)
		}
		_ = call.Store(&n.roleName)
		return nil
	}
}

// secretsMasked counts the password fields in a tree whose value was withheld, so the caller
// can warn `secret-masked`.
func secretsMasked(root *platform.Node) int {
	if root == nil {
		return 0
	}
	n := 0
	if root.Role == roleNames[rolePasswordText] && root.Value != nil && *root.Value == MaskedValue {
		n++
	}
	for _, k := range root.Children {
		n += secretsMasked(k)
	}
	return n
}
