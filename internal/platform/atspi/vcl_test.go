package atspi

import (
	"testing"

	"github.com/mcec/mcec/internal/platform"
)

// The LibreOffice correction moves VCL's objects only: cells by the menu bar's height, others by
// the root pane's error, never the frame, the native menus (and nothing below a menu) or GTK's
// widgets beside the root pane.
func TestShiftTree(t *testing.T) {
	rect := func(y int) *platform.Rect { return &platform.Rect{X: 1, Y: y, Width: 10, Height: 10} }
	cell := &platform.Node{Role: "table cell", Bounds: rect(191)}
	item := &platform.Node{Role: "menu item", Bounds: rect(19)}
	closeDoc := &platform.Node{Role: "push button", Bounds: rect(4)}
	tree := &platform.Node{Role: "frame", Bounds: rect(0), Children: []*platform.Node{
		closeDoc,
		{Role: "menu bar", Bounds: rect(19), Children: []*platform.Node{{Role: "menu", Bounds: rect(19), Children: []*platform.Node{item}}}},
		{Role: "root pane", Bounds: rect(19), Children: []*platform.Node{
			{Role: "tool bar", Bounds: rect(19)},
			{Role: "table", Bounds: rect(157), Children: []*platform.Node{cell}},
			{Role: "panel"}, // no bounds: stays without
		}},
	}}
	shared := cell.Bounds
	shiftTree(tree, vclShift{cell: 25, rest: 25}, false)
	root := tree.Children[2]
	for _, c := range []struct {
		what string
		got  *platform.Rect
		want int
	}{
		{"frame", tree.Bounds, 0}, {"menu bar", tree.Children[1].Bounds, 19}, {"menu item", item.Bounds, 19},
		{"the menu bar's Close Document button", closeDoc.Bounds, 4},
		{"root pane", root.Bounds, 44}, {"tool bar", root.Children[0].Bounds, 44}, {"table", root.Children[1].Bounds, 182},
		{"cell", cell.Bounds, 216},
	} {
		if c.got == nil || c.got.Y != c.want {
			t.Errorf("%s: %+v, want y %d", c.what, c.got, c.want)
		}
	}
	if root.Children[2].Bounds != nil {
		t.Errorf("a node without bounds got %+v", root.Children[2].Bounds)
	}
	if shared.Y != 191 {
		t.Error("shiftTree changed a rectangle in place (it may be shared)")
	}
	// A root pane already below the menu bar: only cells move.
	cell.Bounds = rect(191)
	tb := &platform.Node{Role: "tool bar", Bounds: rect(44)}
	shiftTree(&platform.Node{Role: "root pane", Children: []*platform.Node{tb, cell}}, vclShift{cell: 25}, false)
	if tb.Bounds.Y != 44 || cell.Bounds.Y != 216 {
		t.Errorf("tool bar %d (want 44), cell %d (want 216)", tb.Bounds.Y, cell.Bounds.Y)
	}
	// A subtree rooted in the root pane (a query by a table's ref) is in it.
	cell.Bounds = rect(191)
	shiftTree(&platform.Node{Role: "table", Children: []*platform.Node{cell}}, vclShift{cell: 25}, true)
	if cell.Bounds.Y != 216 {
		t.Errorf("cell in a subtree of the root pane: %d, want 216", cell.Bounds.Y)
	}
	if !isVCL("soffice") || isVCL("gtk3-widget-factory") {
		t.Error("isVCL")
	}
}
