package atspi

import (
	"sync"

	"github.com/godbus/dbus/v5"
)

// objMeta is what stays true of an object for its whole life: its role, interfaces, accessible
// id and action names. Toolkits number object paths with a counter that is never reused, so
// a path names one object for the life of its process, and remembering these per path saves
// about half of the calls of a repeated Tree (the cache lacks ids and actions).
type objMeta struct {
	role    uint32
	ifaces  ifaceSet
	id      string
	actions []string
	layer   uint32 // Component.GetLayer (popups.go)
	has     metaHas
}

type metaHas uint8

const (
	metaKind    metaHas = 1 << iota // role and ifaces
	metaID                          // id, valid for role
	metaActions                     // actions, valid for role
	metaLayer                       // layer, valid for role
)

// maxMetaPerApp caps one application's entries; past it the application starts afresh.
const maxMetaPerApp = 100_000

// metaCache maps bus name → object path → metadata. Entries of applications that left the
// bus are dropped when the registry is listed.
type metaCache struct {
	mu    sync.Mutex
	byBus map[string]map[dbus.ObjectPath]objMeta
}

func (m *metaCache) get(r objRef) objMeta {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.byBus[r.Bus][r.Path]
}

// merge records what a walk learned about objects.
func (m *metaCache) merge(updates map[objRef]objMeta) {
	if len(updates) == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byBus == nil {
		m.byBus = make(map[string]map[dbus.ObjectPath]objMeta)
	}
	for r, u := range updates {
		paths := m.byBus[r.Bus]
		if paths == nil || len(paths) >= maxMetaPerApp {
			paths = make(map[dbus.ObjectPath]objMeta)
			m.byBus[r.Bus] = paths
		}
		old := paths[r.Path]
		if u.has&metaKind != 0 && old.has&metaKind != 0 && old.role != u.role {
			old = objMeta{} // not the object we knew: forget the rest
		}
		if u.has&metaKind != 0 {
			old.role, old.ifaces = u.role, u.ifaces
		}
		if u.has&metaID != 0 {
			old.id = u.id
		}
		if u.has&metaActions != 0 {
			old.actions = u.actions
		}
		if u.has&metaLayer != 0 {
			old.layer = u.layer
		}
		old.has |= u.has
		paths[r.Path] = old
	}
}

// keep drops the entries of applications not in live.
func (m *metaCache) keep(live map[string]bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for bus := range m.byBus {
		if !live[bus] {
			delete(m.byBus, bus)
		}
	}
}
