package atspi

import (
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/mcec/mcec/internal/platform"
)

// A bounds-changed repeating the object's previous rectangle does not count; anything else does.
func TestMirrorCountsEvents(t *testing.T) {
	var m mirrorSub
	bounds := func(path string, x int32) *dbus.Signal {
		return &dbus.Signal{Name: evObject + ".BoundsChanged", Path: dbus.ObjectPath(path),
			Body: []any{"", int32(0), int32(0), dbus.MakeVariant([]any{x, int32(2), int32(3), int32(4)}), map[string]dbus.Variant{}}}
	}
	steps := []struct {
		s    *dbus.Signal
		want uint64
	}{
		{bounds("/a", 1), 1}, // the first of an object counts
		{bounds("/a", 1), 1}, // the same rectangle again does not
		{bounds("/b", 1), 2}, // another object's first does
		{bounds("/a", 5), 3}, // a moved one does
		{bounds("/a", 1), 4}, // and moving back does
		{&dbus.Signal{Name: evObject + ".StateChanged", Path: "/a", Body: []any{"showing", int32(1), int32(0), dbus.MakeVariant(int32(0))}}, 5},
		{&dbus.Signal{Name: evObject + ".BoundsChanged", Path: "/c"}, 6}, // no rectangle: counts
	}
	for i, st := range steps {
		m.count(st.s)
		if got := m.gen.Load(); got != st.want {
			t.Fatalf("step %d: count %d, want %d", i, got, st.want)
		}
	}
}

// keep holds whole walks only, and at most maxMirrored trees and maxMirroredNodes nodes.
func TestMirrorKeeps(t *testing.T) {
	c := &Client{}
	st := mirrorStamp{ok: true, gens: map[string]uint64{":1.2": 3}}
	tree := func(n int) platform.Tree { return platform.Tree{Root: &platform.Node{Ref: "1.2:1"}, NodeCount: n} }
	key := func(i int) mirrorKey { return mirrorKey{pid: 1, handle: uint32(i)} }

	c.keep(key(0), st, platform.Tree{Root: &platform.Node{}, NodeCount: 5, Truncated: true, TruncatedBy: []string{platform.LimitTime}})
	c.keep(key(1), st, platform.Tree{Root: &platform.Node{}, NodeCount: 5, SkippedDead: 1})
	c.keep(key(2), mirrorStamp{gens: st.gens}, tree(5))
	if len(c.mirror.entries) != 0 {
		t.Fatalf("kept %d trees cut by time, with vanished objects or of unmirrored applications", len(c.mirror.entries))
	}
	for i := range maxMirrored + 8 {
		c.keep(key(i), st, tree(10))
	}
	if len(c.mirror.entries) != maxMirrored || c.mirror.nodes != 10*maxMirrored || c.mirror.entries[key(7)] != nil ||
		c.mirror.entries[key(maxMirrored+7)] == nil {
		t.Fatalf("%d trees, %d nodes; want the last %d", len(c.mirror.entries), c.mirror.nodes, maxMirrored)
	}
	c.keep(key(100), st, tree(maxMirroredNodes))
	if len(c.mirror.entries) != 1 || c.mirror.nodes != maxMirroredNodes {
		t.Fatalf("after a huge tree: %d trees, %d nodes", len(c.mirror.entries), c.mirror.nodes)
	}
	c.forgetMirrored(map[string]bool{":1.9": true})
	if len(c.mirror.entries) != 0 || c.mirror.nodes != 0 {
		t.Fatalf("an application that left keeps %d trees", len(c.mirror.entries))
	}
}
