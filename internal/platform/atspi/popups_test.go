package atspi

import (
	"testing"

	"github.com/mcec/mcec/internal/platform"
)

func TestPlacePopups(t *testing.T) {
	rect := func(x, y, w, h int) *platform.Rect { return &platform.Rect{X: x, Y: y, Width: w, Height: h} }
	item := &platform.Node{Role: "menu item", Bounds: rect(700, 210, 201, 32)}
	hidden := &platform.Node{Role: "menu item"} // no bounds: stays without
	menu := &platform.Node{Role: "menu", Bounds: rect(658, 170, 285, 418), Children: []*platform.Node{item, hidden}}
	twin := &platform.Node{Role: "panel", Bounds: rect(10, 10, 285, 418)} // deeper than the menu: left alone
	button := &platform.Node{Role: "push button", Bounds: rect(658, 170, 34, 34), Children: []*platform.Node{menu}}
	other := &platform.Node{Role: "panel", Bounds: rect(0, 40, 400, 400), Children: []*platform.Node{{Role: "filler", Children: []*platform.Node{twin}}}}
	root := &platform.Node{Role: "frame", Bounds: rect(457, 164, 355, 487), Children: []*platform.Node{button, other}}

	placePopups(root, []platform.Rect{{X: 538, Y: 188, Width: 285, Height: 418}, {X: 5, Y: 5, Width: 34, Height: 33}})
	for _, c := range []struct {
		name string
		n    *platform.Node
		want *platform.Rect
	}{
		{"menu", menu, rect(538, 188, 285, 418)},
		{"its item", item, rect(580, 228, 201, 32)},
		{"the button (no popup of its size)", button, rect(658, 170, 34, 34)},
		{"a deeper node of the popup's size, once the popup is placed", twin, rect(10, 10, 285, 418)},
		{"the frame", root, rect(457, 164, 355, 487)},
	} {
		if *c.n.Bounds != *c.want {
			t.Errorf("%s: %+v, want %+v", c.name, *c.n.Bounds, *c.want)
		}
	}
	if hidden.Bounds != nil {
		t.Errorf("a node without bounds got %+v", hidden.Bounds)
	}
	placePopups(root, nil) // nothing mapped: nothing moves
	if *menu.Bounds != *rect(538, 188, 285, 418) {
		t.Errorf("menu moved without popups: %+v", *menu.Bounds)
	}
}

func TestPopupChain(t *testing.T) {
	for _, tt := range []struct {
		roles []string // the object's role, then its ancestors', nearest first
		want  bool
	}{
		{[]string{"push button", "panel", "frame"}, false},
		{[]string{"menu", "menu bar", "frame"}, false},             // a menu bar's own item is on the window
		{[]string{"menu item", "menu", "menu bar", "frame"}, true}, // an item of an open menu
		{[]string{"menu item", "menu", "combo box", "panel", "frame"}, true},
		{[]string{"menu", "combo box", "frame"}, true}, // the combo box's list
		{[]string{"label", "panel", "tool tip", "frame"}, true},
		{[]string{"window"}, false}, // a top level
		{[]string{"push button", "window", "frame"}, true},
	} {
		if got := popupChain(tt.roles); got != tt.want {
			t.Errorf("popupChain(%q) = %v, want %v", tt.roles, got, tt.want)
		}
	}
}
