package atspi

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mcec/mcec/internal/platform"
)

// appRoot is the path of an application's own root object (the same path as the
// registry's root, on the application's connection); its children are the top-level windows.
const appRoot = registryRoot

// inspection says what to read about an object besides role, interfaces and states.
type inspection uint8

const (
	withProps   inspection = 1 << iota // name, description, parent, child count, id, index in parent
	withActions                        // action names
	withPID                            // the owning process
)

// object is one object re-read by ref.
type object struct {
	n           *node
	refStr      string // n's ref as refOf gives it
	parent      objRef
	parentKnown bool  // the application reported parent (null when detached)
	index       int32 // in the parent; noIndex when the application did not say
	pid         int
}

const noIndex = -2

func (o *object) is(state int) bool { return o.n.info.states.has(state) }

func (o *object) role() string { return o.n.role() }

// inspect re-reads r with a few pipelined calls, using the client's meta cache for what
// never changes. A dead, defunct or detached object fails with platform.ErrElementStale.
func (c *Client) inspect(ctx context.Context, r objRef, what inspection) (*object, error) {
	// The bridge first: its profile decides which calls are safe and how states read.
	if _, err := c.bridgeOf(ctx, r.Bus); err != nil {
		return nil, err
	}
	n := &node{ref: r, info: &objInfo{childCount: -1}}
	o := &object{n: n, index: noIndex, refStr: c.refOf(r)}
	info := n.info
	m := c.meta.get(r)
	var jobs []job
	if m.has&metaKind != 0 {
		// The role is read to confirm the cached interfaces: applications reuse object paths.
		info.ifaces = m.ifaces
		jobs = c.kindJobs(n, orDead)[:1]
	} else {
		n.gotKind = true
		jobs = c.kindJobs(n, orDead)
	}
	jobs = append(jobs, func(ctx context.Context) error {
		words, f, err := c.states(ctx, r)
		if err != nil {
			return nodeFailure(n, orDead(f), err)
		}
		info.states = words
		return nil
	})
	if what&withProps != 0 {
		jobs = append(jobs, func(ctx context.Context) error {
			return c.readProps(ctx, o)
		}, func(ctx context.Context) error {
			call, f, err := c.call(ctx, r.Bus, r.Path, ifAccessible+".GetIndexInParent")
			if err != nil {
				return nodeFailure(n, f, err)
			}
			_ = call.Store(&o.index)
			return nil
		})
	}
	if what&withPID != 0 {
		jobs = append(jobs, func(ctx context.Context) error {
			p, err := c.windowPID(ctx, r.Bus)
			o.pid = p
			return err
		})
	}
	if err := run(ctx, nil, jobs); err != nil {
		return nil, err
	}
	if m.has&metaKind != 0 && !n.dead.Load() && info.role != m.role {
		n.gotKind = true // another object now lives at that path
		if err := run(ctx, nil, c.kindJobs(n, orDead)[1:]); err != nil {
			return nil, err
		}
	}
	if err := stale(o, c.knownBridge(r.Bus)); err != nil {
		return nil, err
	}
	if what&withActions != 0 && info.ifaces&hasAction != 0 {
		if m.has&metaActions != 0 && m.has&metaKind != 0 && m.role == info.role {
			n.actions = m.actions
		} else {
			w := &walker{c: c}
			if err := run(ctx, nil, []job{w.actionsJob(n)}); err != nil {
				return nil, err
			}
			if n.dead.Load() {
				return nil, c.staleErr(r, "it disappeared")
			}
		}
	}
	c.remember(n)
	return o, nil
}

// kindJobs read n's role and interfaces into n.info. roleFailure decides what a failed
// GetRole means for n before nodeFailure records it.
func (c *Client) kindJobs(n *node, roleFailure func(failure) failure) []job {
	r, info := n.ref, n.info
	return []job{func(ctx context.Context) error {
		role, f, err := c.role(ctx, r)
		if err != nil {
			return nodeFailure(n, roleFailure(f), err)
		}
		info.role = role
		return nil
	}, func(ctx context.Context) error {
		names, f, err := c.interfaces(ctx, r)
		if err != nil {
			return nodeFailure(n, f, err)
		}
		info.ifaces = ifacesFrom(names)
		return nil
	}}
}

// orDead treats a refused Accessible method as a dead object: every object implements
// Accessible, so only a gone one declines.
func orDead(f failure) failure {
	if f == failNoIface {
		return failDead
	}
	return f
}

// deadUnlessFatal treats any failure that does not end the operation as a dead object.
func deadUnlessFatal(f failure) failure {
	if f.fatal() {
		return f
	}
	return failDead
}

// stale reports an object that no longer exists as an element.
func stale(o *object, b bridge) error {
	r := o.n.ref
	switch {
	case o.n.dead.Load():
		return staleAt(o.ref(), "the application no longer knows it")
	case o.is(stateDefunct):
		return staleAt(o.ref(), "it is defunct")
	case r.Path == appRoot:
		return nil // an application's root has no parent in it
	case o.index == -1 && !b.looseParents:
		return staleAt(o.ref(), "it has no place in a parent any more")
	case o.parentKnown && o.parent.null():
		return staleAt(o.ref(), "it has no parent any more")
	}
	return nil
}

func (c *Client) staleErr(r objRef, why string) error { return staleAt(c.refOf(r), why) }

func staleAt(ref, why string) error {
	return fmt.Errorf("%w: %s: %s", platform.ErrElementStale, ref, why)
}

// readProps reads name, description, child count, accessible id and parent in one GetAll where
// the bridge serves it safely, one property at a time elsewhere.
func (c *Client) readProps(ctx context.Context, o *object) error {
	n, r := o.n, o.n.ref
	info := n.info
	b, err := c.bridgeOf(ctx, r.Bus)
	if err != nil {
		return err
	}
	props, ok, f, err := c.getAllProps(ctx, b, r, ifAccessible)
	switch {
	case err != nil && (f.fatal() || f == failDead):
		return nodeFailure(n, f, err)
	case ok:
		_ = props["Name"].Store(&info.name)
		_ = props["Description"].Store(&info.desc)
		_ = props["ChildCount"].Store(&info.childCount)
		if v, ok := props["Parent"]; ok {
			o.parentKnown = v.Store(&o.parent) == nil
		}
		if v, ok := props["AccessibleId"]; ok {
			_ = v.Store(&info.id)
			info.idKnown = true
		}
		return nil
	}
	for _, p := range []struct {
		name string
		v    any
	}{{"Name", &info.name}, {"Description", &info.desc}, {"ChildCount", &info.childCount}, {"Parent", &o.parent}} {
		if f, err := c.property(ctx, r.Bus, r.Path, ifAccessible, p.name, p.v); err != nil {
			return nodeFailure(n, f, err)
		}
	}
	o.parentKnown = true
	return nil
}

// remember hands what inspecting n fetched to the meta cache.
func (c *Client) remember(n *node) {
	w := &walker{c: c, nodes: []*node{n}}
	w.remember()
}

// Element re-reads the object ref without searching: role, name, description, states,
// bounds (only while showing, from its Component), value (password text masked), actions and
// accessible id, with the owning process and the parent's ref ("" when the parent is the
// application). A malformed ref fails with platform.ErrBadRef; an object that is gone (unknown
// to its application, defunct, or detached from any parent) with platform.ErrElementStale; a
// gone application with platform.ErrWindowClosed; a hung one with
// platform.ErrAppNotResponding.
func (c *Client) Element(ctx context.Context, ref string) (platform.Element, error) {
	bus, path, err := c.parseRef(ref)
	if err != nil {
		return platform.Element{}, err
	}
	o, err := c.inspect(ctx, objRef{bus, path}, withProps|withPID)
	if err != nil {
		return platform.Element{}, err
	}
	o.n.top = o.parentKnown && o.parent.Path == appRoot
	w := &walker{c: c, bridge: c.knownBridge(bus), nodes: []*node{o.n}}
	if err := c.runBatch(ctx, nil, w.enrichJobs(w.nodes)); err != nil {
		return platform.Element{}, err
	}
	if w.bridge.relative && o.n.extents != nil {
		if w.origin, _, err = c.originOf(ctx, o.n.ref); err != nil {
			return platform.Element{}, err
		}
	}
	if o.n.dead.Load() {
		return platform.Element{}, c.staleErr(o.n.ref, "it disappeared while being read")
	}
	w.remember()
	out, _ := w.convert(o.n)
	if w.bridge.lateLabels && lateLabelled(out) && o.parentKnown && o.index >= 0 {
		out.Name = c.lateLabel(ctx, o.parent, o.index+1)
	}
	if w.bridge.mnemonicNames && mnemonicSuspect(out.Role, out.Name) {
		out.Name = unmnemonic(out.Name, c.childLabel(ctx, o.n.ref))
	}
	if out.Bounds == nil && c.opts.WindowLocal && c.opts.PopupSurface != nil && out.States["showing"] {
		// A Wayland popup's object: placed where the compositor shows the surface (surfaces.go).
		if top, ok := c.popupTop(ctx, o.n.ref); ok {
			out.Bounds = c.surfaceRect(ctx, o.n.ref, top, o.pid)
		}
	}
	if w.bridge.vclShift && out.Bounds != nil && !nativeMenuRoles[out.Role] {
		s, err := c.vclShiftOf(ctx, o.n.ref)
		if err != nil {
			return platform.Element{}, err
		}
		b := *out.Bounds
		b.Y += s.of(out.Role)
		out.Bounds = &b
	}
	el := platform.Element{Node: *out, PID: o.pid, Parent: c.parentRef(o)}
	if labelRoles[out.Role] {
		if el.LabelFor, err = c.labelFor(ctx, o.n.ref); err != nil {
			return platform.Element{}, err
		}
	}
	return el, nil
}

// labelRoles are the roles whose label-for relation Element reads.
var labelRoles = map[string]bool{"label": true, "static": true, "caption": true}

// relationLabelFor is ATSPI_RELATION_LABEL_FOR.
const relationLabelFor = 1

// labelFor reads the refs of the objects the label r labels. A bridge that refuses relations
// (or an object that went meanwhile) labels nothing; only a hung application fails.
func (c *Client) labelFor(ctx context.Context, r objRef) ([]string, error) {
	call, f, err := c.call(ctx, r.Bus, r.Path, ifAccessible+".GetRelationSet")
	if err != nil {
		if f.fatal() {
			return nil, err
		}
		return nil, nil
	}
	var set []struct {
		Type    uint32
		Targets []objRef
	}
	if call.Store(&set) != nil {
		return nil, nil
	}
	var out []string
	for _, rel := range set {
		if rel.Type != relationLabelFor {
			continue
		}
		for _, t := range rel.Targets {
			if !t.null() {
				out = append(out, c.refOf(t))
			}
		}
	}
	return out, nil
}

// Subtree walks the tree under the object ref within limits, the object at depth 0. Errors as
// Element's.
func (c *Client) Subtree(ctx context.Context, ref string, limits platform.TreeLimits) (platform.Tree, error) {
	limits.MaxNodes = max(limits.MaxNodes, 1)
	limits.MaxDepth = max(limits.MaxDepth, 0)
	bus, path, err := c.parseRef(ref)
	if err != nil {
		return platform.Tree{}, err
	}
	o, err := c.inspect(ctx, objRef{bus, path}, withProps)
	if err != nil {
		return platform.Tree{}, err
	}
	b := c.knownBridge(bus)
	o.n.top = o.parentKnown && o.parent.Path == appRoot
	w := &walker{c: c, sem: make(chan struct{}, maxInFlight), app: objRef{Bus: bus, Path: appRoot}, bridge: b, limits: limits}
	if snap, err := c.snapshot(ctx, w.app); err == nil && snap != nil {
		w.snap = snap
		if b.noShowing {
			for _, info := range snap {
				info.states = b.normalize(info.states)
			}
		}
	}
	var handle uint32
	if b.relative {
		if w.origin, handle, err = c.originOf(ctx, o.n.ref); err != nil {
			return platform.Tree{}, err
		}
	}
	t, err := w.tree(ctx, o.n)
	if err == nil && w.origin != nil && c.opts.Popups != nil && !limits.Lean {
		// A popover below the element (a menu button's): placed where its surface is.
		if popups, perr := c.opts.Popups(ctx, handle); perr == nil {
			placePopups(t.Root, popups)
		}
	}
	if err == nil && b.vclShift && !limits.Lean {
		s, inRoot, err := c.treeShift(ctx, o.n.ref)
		if err != nil {
			return platform.Tree{}, err
		}
		shiftTree(t.Root, s, inRoot)
	}
	return t, err
}

// parentRef is the parent's ref, "" for the application (or the registry, for an
// application's root).
func (c *Client) parentRef(o *object) string {
	p := o.parent
	if p.null() || p.Path == appRoot || p.Bus == registryName {
		return ""
	}
	return c.refOf(p)
}

// Focused returns the object of process pid's applications that reports the focused state,
// read from the applications' caches (one GetItems each). When several do (focus states are
// per window in some toolkits), a showing one wins. Nothing focused fails with
// platform.ErrElementStale; no registered application with platform.ErrNoAccessibleTree.
func (c *Client) Focused(ctx context.Context, pid int) (platform.Element, error) {
	apps, err := c.appsOf(ctx, pid)
	if err != nil {
		return platform.Element{}, err
	}
	if len(apps) == 0 {
		return platform.Element{}, fmt.Errorf("%w: no application of pid %d is registered on the AT-SPI bus",
			platform.ErrNoAccessibleTree, pid)
	}
	var (
		found    []objRef
		showing  = map[objRef]bool{}
		firstErr error
	)
	for _, app := range apps {
		refs, shown, err := c.focusedIn(ctx, app)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		found = append(found, refs...)
		for _, r := range shown {
			showing[r] = true
		}
	}
	if len(found) == 0 {
		if firstErr != nil {
			return platform.Element{}, firstErr
		}
		return platform.Element{}, fmt.Errorf("%w: nothing has keyboard focus in pid %d", platform.ErrElementStale, pid)
	}
	// Deterministic: showing first, then by ref.
	slices.SortFunc(found, func(a, b objRef) int {
		switch {
		case showing[a] && !showing[b]:
			return -1
		case showing[b] && !showing[a]:
			return 1
		}
		return cmp.Or(strings.Compare(a.Bus, b.Bus), strings.Compare(string(a.Path), string(b.Path)))
	})
	return c.Element(ctx, c.refOf(found[0]))
}

// focusedIn lists the focused objects of one application and which of them are showing:
// from its cache, or by walking its windows when it has none.
func (c *Client) focusedIn(ctx context.Context, app objRef) (focused, showing []objRef, err error) {
	snap, err := c.snapshot(ctx, app)
	if err != nil {
		return nil, nil, err
	}
	if snap != nil {
		for r, info := range snap {
			if info.states.has(stateFocused) && !info.states.has(stateDefunct) {
				focused = append(focused, r)
				if info.states.has(stateShowing) {
					showing = append(showing, r)
				}
			}
		}
		return focused, showing, nil
	}
	all := platform.TreeLimits{MaxDepth: 1000, MaxNodes: 100_000}
	b, err := c.bridgeOf(ctx, app.Bus)
	if err != nil {
		return nil, nil, err
	}
	w := &walker{c: c, sem: make(chan struct{}, maxInFlight), app: app, bridge: b, limits: all}
	tops, err := w.topLevels(ctx)
	if err != nil {
		return nil, nil, err
	}
	for _, top := range tops {
		tw := &walker{c: c, sem: w.sem, app: app, bridge: b, limits: all}
		t, err := tw.tree(ctx, top)
		if err != nil {
			return nil, nil, err
		}
		var visit func(*platform.Node)
		visit = func(n *platform.Node) {
			if n.States["focused"] {
				bus, path, _ := c.parseRef(n.Ref)
				focused = append(focused, objRef{bus, path})
				if n.States["showing"] {
					showing = append(showing, objRef{bus, path})
				}
			}
			for _, k := range n.Children {
				visit(k)
			}
		}
		visit(t.Root)
	}
	return focused, showing, nil
}
