package atspi

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Trees that cross process boundaries: an AT-SPI socket (AtkSocket) in one application holds
// the root of another connection's tree, its plug. WebKitGTK does it for every page: the
// browser's web view is a socket (a filler with no states), and its one child is the document's
// root in the web process, named by the web process's well-known bus name. That process is not
// registered as an application, so only the socket leads to it.
//
// Measured (WebKitGTK 2.50, GTK 3 host): the socket answers ChildCount 1 but an empty
// GetChildren, and GetChildAtIndex(0) gives the plug. The plug and the scroll pane below it
// report no SHOWING while the document below them does; their extents are right (screen
// coordinates on X11). The web process serves Cache.GetItems for its objects (every child
// count -1), claims the host's application, and answers no ToolkitName.
//
// The walk follows the plug (childRefs, materialize): the plug's bus is named by its unique
// name, its cache is merged into the walk's, and the nodes between the socket and the first
// one that reports SHOWING take their visibility from the socket's parent (transparent). The
// buses crossed are remembered per process, so watches (effects) hear their events too; a
// tree that crossed one is not mirrored, as nothing proves the embedded toolkit's events cover
// its changes.

// transparentStates are the states a socket and the top of its plug take from the socket's
// parent, as they report none of their own.
var transparentStates = []int{stateShowing, stateVisible, stateEnabled, stateSensitive}

// maybeSocket reports a node that may be a socket whose plug is not listed yet: no states at all
// and one child. A ShowingOnly walk looks below it, since its showing is not known.
func (n *node) maybeSocket() bool {
	return n.info.states == stateBits{} && n.info.childCount == 1
}

// uniqueName returns the unique bus name that owns name: a plug is named by a well-known name
// (WebKit's "<prgname>.Sandboxed.WebProcess-<uuid>"), but signals carry the unique one and refs
// should not grow with the long name.
func (c *Client) uniqueName(ctx context.Context, name string) (string, error) {
	if strings.HasPrefix(name, ":") {
		return name, nil
	}
	c.mu.Lock()
	u, ok := c.owners[name]
	c.mu.Unlock()
	if ok {
		return u, nil
	}
	call, f, err := c.call(ctx, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.GetNameOwner", name)
	if err != nil {
		if f.fatal() {
			return "", err
		}
		return "", fmt.Errorf("atspi: owner of %s: %w", name, err)
	}
	if err := call.Store(&u); err != nil {
		return "", fmt.Errorf("atspi: owner of %s: %w", name, err)
	}
	c.mu.Lock()
	if c.owners == nil {
		c.owners = make(map[string]string)
	}
	c.owners[name] = u
	c.mu.Unlock()
	return u, nil
}

// crossInto prepares the walk for objects of the plug bus bus: its cache joins the walk's, once.
// A plug without a usable cache is described with calls, as any application without one.
func (w *walker) crossInto(ctx context.Context, bus string) error {
	if w.embedded[bus] {
		return nil
	}
	if w.embedded == nil {
		w.embedded = make(map[string]bool)
	}
	w.embedded[bus] = true
	b, err := w.c.bridgeOf(ctx, bus)
	if err != nil {
		return err
	}
	if b.Toolkit == "" {
		b = plugBridge(w.bridge)
		w.c.mu.Lock()
		w.c.bridges[bus] = b
		w.c.mu.Unlock()
	}
	snap, err := w.c.snapshot(ctx, objRef{Bus: bus, Path: appRoot})
	if err != nil {
		return err
	}
	if w.snap == nil {
		w.snap = make(map[objRef]*objInfo, len(snap))
	}
	maps.Copy(w.snap, snap)
	return nil
}

// followPlugs rewrites the children of parents that live on another connection to that
// connection's unique name and merges its cache, before the level is materialized. A plug that
// cannot be reached is left for describe to count as gone, and named in w.unfollowed.
func (w *walker) followPlugs(ctx context.Context, parents []*node) error {
	for _, n := range parents {
		for i, r := range n.kidRefs {
			if r.null() || r.Bus == n.ref.Bus {
				continue
			}
			bus, err := w.c.uniqueName(ctx, r.Bus)
			if err == nil && bus != w.app.Bus {
				err = w.crossInto(ctx, bus)
			}
			if err != nil {
				if classify(err).fatal() {
					return err
				}
				w.unfollowed = append(w.unfollowed, r.Bus)
				n.kidRefs[i] = objRef{}
				continue
			}
			n.kidRefs[i].Bus = bus
		}
	}
	return nil
}

// markPlugs runs after a level is described: a child on another connection than its parent is a
// plug, its parent a socket. The socket, the plug and the plug's descendants down to the first
// that reports SHOWING take their visibility from the socket's parent. It returns the sockets
// that became showing so their extents can be read (the level that held them was enriched
// before anyone knew).
func (w *walker) markPlugs(parents []*node) (sockets []*node) {
	for _, n := range parents {
		for _, k := range n.kids {
			if k.info == nil {
				continue
			}
			plug := k.ref.Bus != n.ref.Bus
			if plug && !n.transparent {
				n.transparent = true
				if n.parent != nil && n.parent.info != nil && inherit(n, n.parent) {
					sockets = append(sockets, n)
				}
			}
			if (plug || n.transparent) && !k.info.states.has(stateShowing) {
				k.transparent = true
				inherit(k, n)
			}
		}
	}
	return sockets
}

// inherit gives n the transparent states its parent p has; it reports whether n became showing.
func inherit(n, p *node) bool {
	was := n.info.states.has(stateShowing)
	for _, s := range transparentStates {
		if p.info.states.has(s) {
			n.info.states[s/32] |= 1 << (s % 32)
		}
	}
	return !was && n.info.states.has(stateShowing)
}

// unfollowedWarning is the Tree.Skeleton text for plugs the walk could not enter.
func unfollowedWarning(buses []string) string {
	if len(buses) == 0 {
		return ""
	}
	slices.Sort(buses)
	return fmt.Sprintf("part of this window lives in another process (%s) whose accessibility tree did not answer; "+
		"it is missing here: use capture and pixel input for it", strings.Join(slices.Compact(buses), ", "))
}

// noteEmbeds remembers the plug buses a walk of process pid crossed into, for its watches.
func (c *Client) noteEmbeds(pid int, buses map[string]bool) {
	if pid <= 0 || len(buses) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.embeds == nil {
		c.embeds = make(map[int]map[string]bool)
	}
	if c.embeds[pid] == nil {
		c.embeds[pid] = make(map[string]bool)
	}
	maps.Copy(c.embeds[pid], buses)
}

// embedsOf lists the plug buses walks of pid crossed into.
func (c *Client) embedsOf(pid int) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(maps.Keys(c.embeds[pid]))
}

// bridgeAt is the profile of the connection n lives on: the walk's application's, or a plug's.
func (w *walker) bridgeAt(n *node) bridge {
	if n.ref.Bus == w.app.Bus {
		return w.bridge
	}
	return w.c.knownBridge(n.ref.Bus)
}

// withEmbeds returns live with the plug buses of processes that still have a live application
// added, and forgets the plugs of the others. c.mu is held.
func (c *Client) withEmbeds(live map[string]bool) map[string]bool {
	if len(c.embeds) == 0 {
		return live
	}
	hosts := make(map[int]bool)
	for name, pid := range c.pids {
		if live[name] {
			hosts[pid] = true
		}
	}
	out := maps.Clone(live)
	for pid, buses := range c.embeds {
		if !hosts[pid] {
			delete(c.embeds, pid)
			continue
		}
		maps.Copy(out, buses)
	}
	maps.DeleteFunc(c.owners, func(_, unique string) bool { return !out[unique] })
	return out
}

// windowPID is the process whose windows show the objects of bus: the process of the bus, or for
// a plug the process that embeds it (a WebKitGTK page belongs to the browser's window).
func (c *Client) windowPID(ctx context.Context, bus string) (int, error) {
	c.mu.Lock()
	for pid, buses := range c.embeds {
		if buses[bus] {
			c.mu.Unlock()
			return pid, nil
		}
	}
	c.mu.Unlock()
	return c.pid(ctx, bus)
}
