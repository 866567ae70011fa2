package atspi

import (
	"context"
	"slices"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/mcec/mcec/internal/platform/atspi/dbuswire"
)

// ifaceSet is the set of AT-SPI interfaces an object implements, as bits.
type ifaceSet uint16

const (
	hasAction ifaceSet = 1 << iota
	hasComponent
	hasText
	hasEditableText
	hasValue
	hasSelection
	hasTable
	hasCollection
	hasImage
	hasHypertext
	hasDocument
)

var ifaceBits = map[string]ifaceSet{
	ifAction:                      hasAction,
	ifComponent:                   hasComponent,
	ifText:                        hasText,
	"org.a11y.atspi.EditableText": hasEditableText,
	ifValue:                       hasValue,
	"org.a11y.atspi.Selection":    hasSelection,
	"org.a11y.atspi.Table":        hasTable,
	"org.a11y.atspi.Collection":   hasCollection,
	"org.a11y.atspi.Image":        hasImage,
	"org.a11y.atspi.Hypertext":    hasHypertext,
	"org.a11y.atspi.Document":     hasDocument,
}

func ifacesFrom(names []string) ifaceSet {
	var s ifaceSet
	for _, n := range names {
		s |= ifaceBits[n]
	}
	return s
}

// objInfo is what the walk knows about an object before enrichment.
type objInfo struct {
	role       uint32
	name, desc string
	states     stateBits
	ifaces     ifaceSet
	childCount int32 // -1: unknown, ask (containers that manage their descendants)
	// children are the child references when known to be complete and in order.
	children         []objRef
	childrenComplete bool
	id               string // AccessibleId
	idKnown          bool
}

// managesDescendants reports a container whose children are not in the cache and may be too
// many to list: walk those by index within the node budget.
func (i *objInfo) managesDescendants() bool {
	return i.childCount < 0 || i.states.has(stateManagesDescendants)
}

// cacheItem is one element of Cache.GetItems as at-spi2-core's ATK bridge (GTK 3) sends it
// (2.46, checked live): a((so)(so)(so)iiassusau) — object, application, parent, index in
// parent, child count (-1 for containers that manage their descendants), interfaces, name,
// role, description, states.
type cacheItem struct {
	Obj, App, Parent  objRef
	Index, ChildCount int32
	Ifaces            []string
	Name              string
	Role              uint32
	Desc              string
	States            []uint32
}

// cacheItemV1 is the original layout, a((so)(so)(so)a(so)assusau), which lists the children
// instead of index and count, as older bridges send it.
type cacheItemV1 struct {
	Obj, App, Parent objRef
	Children         []objRef
	Ifaces           []string
	Name             string
	Role             uint32
	Desc             string
	States           []uint32
}

// snapshot asks an application for its whole cache. It returns nil without error when the
// application has no usable cache (no bridge cache, unknown layout), so the caller walks it
// with calls instead.
func (c *Client) snapshot(ctx context.Context, app objRef) (map[objRef]*objInfo, error) {
	if c.noCache {
		return nil, nil
	}
	timeout := c.snapshotTimeout(app.Bus)
	if fc := c.fastConn(); fc != nil {
		rep, f, err := c.fastCallWithin(ctx, fc, timeout, app.Bus, cachePath, ifCache, "GetItems")
		if err != nil {
			if f.fatal() {
				return nil, err
			}
			c.log.Debug("atspi: no GetItems cache, walking with calls", "app", app.Bus, "err", err)
			return nil, nil
		}
		if rep.Signature == cacheItemSig {
			items, err := decodeCacheItems(rep)
			if err == nil {
				c.sawCache(app.Bus, len(items))
				return buildSnapshot(app.Bus, items), nil
			}
			c.log.Debug("atspi: undecodable GetItems reply, walking with calls", "app", app.Bus, "err", err)
			return nil, nil
		}
		// Another layout (older bridges): godbus decodes those below.
	}
	call, f, err := c.callWithin(ctx, timeout, app.Bus, cachePath, ifCache+".GetItems")
	if err != nil {
		if f.fatal() {
			return nil, err
		}
		c.log.Debug("atspi: no GetItems cache, walking with calls", "app", app.Bus, "err", err)
		return nil, nil
	}
	var items []cacheItem
	if err := dbus.Store(call.Body, &items); err == nil {
		c.sawCache(app.Bus, len(items))
		return buildSnapshot(app.Bus, items), nil
	}
	var old []cacheItemV1
	if err := dbus.Store(call.Body, &old); err == nil {
		c.sawCache(app.Bus, len(old))
		return buildSnapshotV1(app.Bus, old), nil
	}
	c.log.Debug("atspi: unknown GetItems layout, walking with calls", "app", app.Bus)
	return nil, nil
}

// snapshotTimeout bounds one GetItems. Its reply grows with the application, and so does the
// time the application's main loop spends writing it: on a loaded CI machine a live Calc
// (about 2,200 objects) once took over 2 s, and was reported as not responding. So an
// application whose last cache held n objects gets one CallTimeout per started thousand, at
// most four; a first GetItems, and any application under 1,000 objects, keeps the plain call
// deadline, so a hung small application still costs one CallTimeout.
func (c *Client) snapshotTimeout(bus string) time.Duration {
	c.mu.Lock()
	n := c.cached[bus]
	c.mu.Unlock()
	return c.callTimeout() * time.Duration(min(1+n/1000, 4))
}

// sawCache remembers how many objects an application's cache held, for snapshotTimeout.
func (c *Client) sawCache(bus string, n int) {
	c.mu.Lock()
	c.cached[bus] = n
	c.mu.Unlock()
}

func newInfo(it *cacheItem) *objInfo {
	info := &objInfo{
		role: it.Role, name: it.Name, desc: it.Desc,
		states: bitsFrom(it.States), ifaces: ifacesFrom(it.Ifaces), childCount: it.ChildCount,
	}
	if info.states.has(stateManagesDescendants) {
		info.childCount = -1
	}
	return info
}

func buildSnapshot(bus string, items []cacheItem) map[objRef]*objInfo {
	snap := make(map[objRef]*objInfo, len(items))
	type kid struct {
		index int32
		ref   objRef
	}
	kids := make(map[objRef][]kid)
	window := make(map[objRef]bool) // the application's top-level objects
	for i := range items {
		it := &items[i]
		if it.Obj.Bus == "" {
			it.Obj.Bus = bus
		}
		snap[it.Obj] = newInfo(it)
		window[it.Obj] = it.Parent.Path == appRoot && it.Obj.Path != appRoot
		if !it.Parent.null() {
			kids[it.Parent] = append(kids[it.Parent], kid{it.Index, it.Obj})
		}
	}
	ordered := make(map[objRef]bool, len(kids))
	for parent, ks := range kids {
		info := snap[parent]
		if info == nil {
			continue
		}
		slices.SortStableFunc(ks, func(a, b kid) int { return int(a.index) - int(b.index) })
		info.children = make([]objRef, len(ks))
		// The cached indexes give GetChildren's order only where each is its child's place:
		// GTK 3 answers -1 for a scrolled window's scroll bars (sorted before the viewport
		// GetChildren lists first), and index 0 for a window's content where GetChildren lists
		// its header bar first (gtk3-demo). A window's children are therefore always listed by
		// a call, and so are any whose indexes are not 0, 1, 2 … (TestCacheWalkMatchesCalls).
		ordered[parent] = !window[parent]
		for i, k := range ks {
			info.children[i] = k.ref
			ordered[parent] = ordered[parent] && int(k.index) == i
		}
	}
	for r, info := range snap {
		// A count the cache cannot account for (children not cached yet), or an order it
		// cannot vouch for, is fetched live.
		info.childrenComplete = !info.managesDescendants() && int(info.childCount) == len(info.children) &&
			(len(info.children) == 0 || ordered[r])
	}
	return snap
}

func buildSnapshotV1(bus string, items []cacheItemV1) map[objRef]*objInfo {
	snap := make(map[objRef]*objInfo, len(items))
	for i := range items {
		it := &items[i]
		if it.Obj.Bus == "" {
			it.Obj.Bus = bus
		}
		info := newInfo(&cacheItem{
			Role: it.Role, Name: it.Name, Desc: it.Desc, States: it.States, Ifaces: it.Ifaces,
			ChildCount: int32(len(it.Children)),
		})
		if !info.managesDescendants() {
			info.children = it.Children
			info.childrenComplete = true
		}
		snap[it.Obj] = info
	}
	return snap
}

// cacheItemSig is the reply signature of the cacheItem layout.
const cacheItemSig = "a((so)(so)(so)iiassusau)"

// decodeCacheItems decodes a GetItems reply of the cacheItem layout by hand: with a few
// hundred items it was a tenth of a tree's client CPU through godbus's reflection.
func decodeCacheItems(rep *dbuswire.Reply) ([]cacheItem, error) {
	d, err := rep.Decoder(cacheItemSig)
	if err != nil {
		return nil, err
	}
	ref := func() objRef {
		d.Struct()
		return objRef{Bus: d.String(), Path: dbus.ObjectPath(d.String())}
	}
	var items []cacheItem
	end := d.Array(8)
	for d.More(end) {
		d.Struct()
		it := cacheItem{Obj: ref(), App: ref(), Parent: ref()}
		it.Index, it.ChildCount = d.Int32(), d.Int32()
		iend := d.Array(4)
		for d.More(iend) {
			it.Ifaces = append(it.Ifaces, d.String())
		}
		d.End(iend)
		it.Name, it.Role, it.Desc = d.String(), d.Uint32(), d.String()
		send := d.Array(4)
		for d.More(send) {
			it.States = append(it.States, d.Uint32())
		}
		d.End(send)
		items = append(items, it)
	}
	d.End(end)
	if err := d.Err(); err != nil {
		return nil, err
	}
	return items, nil
}
