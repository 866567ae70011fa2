package atspi

import (
	"context"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/mcec/mcec/internal/platform"
)

// TestDeadNodesSkipped walks a live application whose cache claims children that do not
// exist (as after they died mid-walk): one the cache describes, which dies when enriched,
// and one it does not, which dies when described. Both are skipped and counted.
func TestDeadNodesSkipped(t *testing.T) {
	w, frame := factoryWalker(t)
	ghost := func(n int) objRef {
		return objRef{w.app.Bus, dbus.ObjectPath(accessiblePrefix + "99999" + string(rune('0'+n)))}
	}
	// Cached but gone: showing with a Component, so enrichment asks for its extents.
	w.snap[ghost(1)] = &objInfo{role: 43, ifaces: hasComponent | hasAction, childrenComplete: true,
		states: bitsFrom([]uint32{1 << stateShowing})}
	info := *frame.info
	info.children = append(append([]objRef{}, info.children...), ghost(1), ghost(2))
	info.childCount = int32(len(info.children))
	info.childrenComplete = true
	frame.info = &info

	tree, err := w.tree(context.Background(), frame)
	if err != nil {
		t.Fatal(err)
	}
	if tree.SkippedDead != 2 {
		t.Errorf("SkippedDead = %d, want 2", tree.SkippedDead)
	}
	n := 0
	var visit func(*platform.Node)
	visit = func(x *platform.Node) {
		n++
		for _, k := range x.Children {
			if k.Ref == FormatRef(ghost(1).Bus, ghost(1).Path) || k.Ref == FormatRef(ghost(2).Bus, ghost(2).Path) {
				t.Errorf("dead node %s in the tree", k.Ref)
			}
			visit(k)
		}
	}
	visit(tree.Root)
	if n != tree.NodeCount || n < 100 {
		t.Errorf("NodeCount %d, %d nodes in the tree", tree.NodeCount, n)
	}
}
