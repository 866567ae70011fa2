package atspi

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/godbus/dbus/v5"

	"github.com/mcec/mcec/internal/platform"
)

// The warm tree mirror (issue 16, point 4). A repeated Tree of a window whose application has
// sent no event since the last walk is answered from that walk, not re-read.
//
// Invalidation is deliberately coarse: any signal from an application (events of children,
// states, names, values, text, bounds, a window created or destroyed; its cache announcing
// objects added or removed; anything else it emits) invalidates every tree mirrored of it.
// Toolkits report a change on the object they think changed, which is not always the one whose
// facts a walk reads differently (a scrolled GTK 3 viewport moves its children without a
// bounds-changed on any of them, but its scroll bar sends value-changed), so an event anywhere
// in the application counts for all of it.
//
// Nothing stale is served: before answering from the mirror, Tree makes one call to the
// application on the connection its events arrive on (a barrier). D-Bus delivers an
// application's messages to one client in the order it sent them, and godbus hands signals to
// the hub on its reading goroutine before it hands over the reply, so every event the
// application emitted before it answered has been counted when the barrier returns. The
// barrier is Accessible.GetRole on the application root, a method the bridge serves from the
// application's main loop (Peer.Ping may be answered by a D-Bus worker thread while the main
// thread is mid-change). The mirror also keys on the window's geometry and title as the X
// side reports them on every call, so a moved or resized window is walked again, and on the
// registry's application list.
//
// Only toolkits whose events were measured to cover every change a walk can see are mirrored
// (bridge.mirrored; TestMirrorMatchesFreshWalks); for the others every Tree walks.

// mirrorEvents are registered with the registry, for the life of the client, once an
// application is mirrored: toolkit bridges emit only the event types some client registered.
// text-caret-moved is left out: the caret is not in a tree.
var mirrorEvents = []string{
	"object:children-changed", "object:state-changed", "object:text-changed", "object:property-change",
	"object:value-changed", "object:bounds-changed", "object:visible-data-changed", "object:selection-changed",
	"object:active-descendant-changed", "object:attributes-changed", "object:row-inserted", "object:row-deleted",
	"object:row-reordered", "object:column-inserted", "object:column-deleted", "object:column-reordered",
	"object:model-changed", "window:destroy", "window:activate", "window:deactivate", "window:minimize",
	"window:maximize", "window:restore", "document:load-complete", "document:reload", "document:content-changed",
}

// maxMirrored and maxMirroredNodes bound the trees kept (each one walk's result) and their
// nodes in all (a 20,000-node tree is ≈ 10 MB); the oldest goes first.
const (
	maxMirrored      = 32
	maxMirroredNodes = 60_000
)

// mirror is the client's set of mirrored trees.
type mirror struct {
	subscribing sync.Mutex // held while a subscription is made (calls), never while mu is
	registered  bool       // mirrorEvents are registered; under subscribing

	mu      sync.Mutex
	subs    map[string]*mirrorSub // application bus name → its event subscription
	entries map[mirrorKey]*mirrored
	order   []mirrorKey // insertion order, for eviction
	nodes   int         // nodes of the trees kept

	hits, misses atomic.Int64
}

// mirrorSub counts the events of one application. gen is written by the hub (on godbus's
// reading goroutine) and read by Tree.
type mirrorSub struct {
	gen atomic.Uint64
	log func(s *dbus.Signal) // tests: sees every event counted
	// rects is the rectangle of each object's last bounds-changed; only the hub's delivering
	// goroutine touches it.
	rects map[dbus.ObjectPath]string
}

// count counts one event of the application. GTK 3 sends bounds-changed on every size
// allocation, also when nothing moved: gtk3-widget-factory's spinners send about 60 a second
// each, always with the same rectangle. An object's bounds-changed with the rectangle of its
// previous one reports nothing new and does not count; the first one of each object does.
func (m *mirrorSub) count(s *dbus.Signal) {
	if s.Name == evObject+".BoundsChanged" && len(s.Body) > 3 {
		if v, ok := s.Body[3].(dbus.Variant); ok {
			r := fmt.Sprint(v.Value())
			if m.rects == nil {
				m.rects = make(map[dbus.ObjectPath]string)
			}
			if prev, seen := m.rects[s.Path]; seen && prev == r {
				return
			}
			m.rects[s.Path] = r
		}
	}
	m.gen.Add(1)
	if m.log != nil {
		m.log(s)
	}
}

// mirrorKey is what a walk's result depends on besides the application's state.
type mirrorKey struct {
	pid     int
	handle  uint32
	bounds  platform.Rect
	title   string
	depth   int
	nodes   int
	kids    int
	lean    bool
	values  bool
	texts   bool
	showing bool
	cells   string
}

func keyOf(win platform.Window, l platform.TreeLimits) mirrorKey {
	k := mirrorKey{pid: win.ProcessID, handle: win.Handle, bounds: win.Bounds, title: win.Title, depth: l.MaxDepth,
		nodes: l.MaxNodes, kids: l.MaxChildren, lean: l.Lean, values: l.Values, texts: l.Texts, showing: l.ShowingOnly}
	if len(l.Cells) > 0 {
		k.cells = fmt.Sprint(l.Cells)
	}
	return k
}

// mirrored is one walk's result and the event counts it was read at.
type mirrored struct {
	gens    map[string]uint64 // application bus → mirrorSub.gen before the walk
	appsGen uint64            // hub.appsGen before the applications were listed
	tree    platform.Tree
}

// mirrorStamp is what a walk records before it reads, so that its result can be kept.
type mirrorStamp struct {
	ok      bool // every application of the process is mirrored
	gens    map[string]uint64
	appsGen uint64
}

// MirrorStats reports the Tree calls answered from the mirror and those that walked.
func (c *Client) MirrorStats() (hits, misses int64) {
	return c.mirror.hits.Load(), c.mirror.misses.Load()
}

// fromMirror answers a Tree from the mirror when nothing can have changed since it was kept.
func (c *Client) fromMirror(ctx context.Context, key mirrorKey) (platform.Tree, bool) {
	c.mirror.mu.Lock()
	e := c.mirror.entries[key]
	c.mirror.mu.Unlock()
	if e == nil {
		return platform.Tree{}, false
	}
	if c.hub.appsGen.Load() != e.appsGen {
		return platform.Tree{}, false
	}
	primed, _ := ctx.Value(primedKey{}).(map[string]*barrierCall)
	for bus := range e.gens {
		var err error
		if b := primed[bus]; b != nil {
			select {
			case <-b.done:
				err = b.err
			case <-ctx.Done():
				err = ctx.Err()
			}
		} else {
			err = c.barrier(ctx, bus)
		}
		if err != nil {
			return platform.Tree{}, false // gone or hung: the walk says which
		}
	}
	c.mirror.mu.Lock()
	sub := c.mirror.subs
	c.mirror.mu.Unlock()
	for bus, g := range e.gens {
		s := sub[bus]
		if s == nil || s.gen.Load() != g {
			return platform.Tree{}, false
		}
	}
	if c.hub.appsGen.Load() != e.appsGen {
		return platform.Tree{}, false
	}
	t := e.tree
	t.Root = cloneNode(e.tree.Root)
	t.TruncatedBy = append([]string(nil), e.tree.TruncatedBy...)
	return t, true
}

// barrier makes the mirror's barrier call to the application on bus: when its reply is in,
// every event the application sent before it is counted. A barrier that does not come back
// within the modal grace finds the application's bus connection stalled (a nested loop: its
// socket may still answer the walk, peer.go) or the application hung; either way the walk that
// follows says what is true, so the barrier does not spend a whole call deadline first.
func (c *Client) barrier(ctx context.Context, bus string) error {
	ctx, cancel := context.WithTimeout(ctx, min(c.callTimeout(), c.modalGrace()))
	defer cancel()
	c.calls.Add(1)
	return c.conn.Object(bus, registryRoot).CallWithContext(ctx, ifAccessible+".GetRole", 0).Err
}

// primedKey carries, in a context, the barriers PrimeTrees sent: bus name → *barrierCall.
type primedKey struct{}

// barrierCall is a barrier on its way; err is set before done is closed.
type barrierCall struct {
	done chan struct{}
	err  error
}

// PrimeTrees sends the barrier to every application with a mirrored tree at once and returns
// ctx carrying them, so that a Tree given that context waits for an answer already on its way
// instead of sending its own after the caller has looked up the window (a round trip to the X
// server, and one through the bus to the application, overlap). The barriers were sent during
// the caller's call, so every event sent before that call began is still counted.
func (c *Client) PrimeTrees(ctx context.Context) context.Context {
	if c.noMirror {
		return ctx
	}
	c.mirror.mu.Lock()
	buses := map[string]bool{}
	for _, e := range c.mirror.entries {
		for bus := range e.gens {
			buses[bus] = true
		}
	}
	c.mirror.mu.Unlock()
	if len(buses) == 0 {
		return ctx
	}
	primed := make(map[string]*barrierCall, len(buses))
	for bus := range buses {
		b := &barrierCall{done: make(chan struct{})}
		primed[bus] = b
		go func() {
			defer close(b.done)
			b.err = c.barrier(ctx, bus)
		}()
	}
	return context.WithValue(ctx, primedKey{}, primed)
}

// stamp subscribes to the events of apps where their bridge is mirrored and records the event
// counts before a walk reads anything; ok is false when some application is not mirrored.
func (c *Client) stamp(ctx context.Context, apps []objRef, appsGen uint64) mirrorStamp {
	st := mirrorStamp{appsGen: appsGen, gens: make(map[string]uint64, len(apps))}
	for _, a := range apps {
		if !c.knownBridge(a.Bus).mirrored && !c.mirrorAll {
			return st
		}
		s, err := c.subscribe(ctx, a.Bus)
		if err != nil {
			c.log.Debug("atspi: mirror: no subscription", "app", a.Bus, "err", err)
			return st
		}
		st.gens[a.Bus] = s.gen.Load()
	}
	st.ok = len(apps) > 0
	return st
}

// keep stores a walk's result read at st.
func (c *Client) keep(key mirrorKey, st mirrorStamp, t platform.Tree) {
	if !st.ok || t.Root == nil || t.SkippedDead > 0 || (t.Truncated && hasLimit(t.TruncatedBy, platform.LimitTime)) {
		// A walk cut by its time budget, or that saw objects vanish, read a moving target.
		return
	}
	c.mirror.mu.Lock()
	defer c.mirror.mu.Unlock()
	if c.mirror.entries == nil {
		c.mirror.entries = make(map[mirrorKey]*mirrored)
	}
	if old, ok := c.mirror.entries[key]; ok {
		c.mirror.nodes -= old.tree.NodeCount
	} else {
		c.mirror.order = append(c.mirror.order, key)
	}
	c.mirror.entries[key] = &mirrored{gens: maps.Clone(st.gens), appsGen: st.appsGen, tree: t}
	c.mirror.nodes += t.NodeCount
	// Trees of a window at other geometries or titles are of no more use, nor are the oldest.
	for len(c.mirror.order) > 1 && (len(c.mirror.order) > maxMirrored || c.mirror.nodes > maxMirroredNodes) {
		c.mirror.nodes -= c.mirror.entries[c.mirror.order[0]].tree.NodeCount
		delete(c.mirror.entries, c.mirror.order[0])
		c.mirror.order = c.mirror.order[1:]
	}
}

func hasLimit(by []string, limit string) bool {
	for _, b := range by {
		if b == limit {
			return true
		}
	}
	return false
}

// subscribe makes the hub count bus's events, registering mirrorEvents the first time. The
// subscription lasts as long as the client; an application that leaves takes its events with it.
func (c *Client) subscribe(ctx context.Context, bus string) (*mirrorSub, error) {
	c.mirror.mu.Lock()
	s := c.mirror.subs[bus]
	c.mirror.mu.Unlock()
	if s != nil {
		return s, nil
	}
	if err := c.knowRegistry(ctx); err != nil {
		return nil, err
	}
	c.mirror.subscribing.Lock()
	defer c.mirror.subscribing.Unlock()
	c.mirror.mu.Lock()
	s = c.mirror.subs[bus]
	c.mirror.mu.Unlock()
	if s != nil {
		return s, nil
	}
	if !c.mirror.registered {
		// The registry announces applications arriving and leaving on its root.
		if _, _, err := c.call(ctx, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.AddMatch",
			fmt.Sprintf("type='signal',sender='%s',path='%s',interface='%s',member='ChildrenChanged'",
				registryName, registryRoot, evObject)); err != nil {
			return nil, err
		}
		// Held for the client's life: DeregisterEvent by a watch that ends would drop these
		// registrations too, so the watches' count keeps one for the mirror.
		if err := c.acquireEvents(ctx); err != nil {
			return nil, err
		}
		for _, ev := range mirrorEvents {
			if err := c.registerEvent(ctx, ev); err != nil {
				c.log.Debug("atspi: mirror: RegisterEvent", "event", ev, "err", err)
			}
		}
		c.mirror.registered = true
	}
	// Every signal of the application, whatever its interface.
	if _, _, err := c.call(ctx, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.AddMatch",
		fmt.Sprintf("type='signal',sender='%s'", bus)); err != nil {
		return nil, err
	}
	s = &mirrorSub{}
	c.hub.mu.Lock()
	c.hub.mirrored[bus] = s
	c.hub.mu.Unlock()
	// The application learns of new registrations from the registry's signal, which it reads
	// before this call: once the call returns it emits the events.
	cctx, cancel := c.callContext(ctx)
	err := c.conn.Object(bus, registryRoot).CallWithContext(cctx, ifAccessible+".GetRole", 0).Err
	cancel()
	if err != nil {
		c.hub.mu.Lock()
		delete(c.hub.mirrored, bus)
		c.hub.mu.Unlock()
		return nil, err
	}
	c.mirror.mu.Lock()
	if c.mirror.subs == nil {
		c.mirror.subs = make(map[string]*mirrorSub)
	}
	c.mirror.subs[bus] = s
	c.mirror.mu.Unlock()
	return s, nil
}

// forgetMirrored drops the subscriptions and trees of applications that left the bus.
func (c *Client) forgetMirrored(live map[string]bool) {
	c.mirror.mu.Lock()
	defer c.mirror.mu.Unlock()
	var gone []string
	for bus := range c.mirror.subs {
		if !live[bus] {
			gone = append(gone, bus)
		}
	}
	if len(gone) > 0 {
		c.hub.mu.Lock()
		for _, bus := range gone {
			delete(c.mirror.subs, bus)
			delete(c.hub.mirrored, bus)
		}
		c.hub.mu.Unlock()
		go func() {
			// The bus forgets rules of senders that left only when we remove them.
			for _, bus := range gone {
				c.removeRule(context.Background(), fmt.Sprintf("type='signal',sender='%s'", bus))
			}
		}()
	}
	order := c.mirror.order[:0]
	for _, k := range c.mirror.order {
		e := c.mirror.entries[k]
		stale := false
		for bus := range e.gens {
			stale = stale || !live[bus]
		}
		if stale {
			c.mirror.nodes -= e.tree.NodeCount
			delete(c.mirror.entries, k)
			continue
		}
		order = append(order, k)
	}
	c.mirror.order = order
}

// cloneNode copies a tree, so callers may change what they are given; state sets are shared
// (nothing changes a tree's state set after its walk, and a 260-node tree's sets were most of a
// warm query's garbage) and action lists are clipped, so an append copies them.
func cloneNode(n *platform.Node) *platform.Node {
	if n == nil {
		return nil
	}
	out := *n
	if n.Bounds != nil {
		b := *n.Bounds
		out.Bounds = &b
	}
	if n.Value != nil {
		v := *n.Value
		out.Value = &v
	}
	out.Actions = slices.Clip(n.Actions)
	if n.Children != nil {
		out.Children = make([]*platform.Node, len(n.Children))
		for i, k := range n.Children {
			out.Children[i] = cloneNode(k)
		}
	}
	return &out
}
