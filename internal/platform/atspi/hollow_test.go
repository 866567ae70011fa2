package atspi

import (
	"testing"

	"github.com/mcec/mcec/internal/platform"
)

func TestHollow(t *testing.T) {
	n := func(role string, kids ...*platform.Node) *platform.Node {
		return &platform.Node{Role: role, Children: kids}
	}
	chromium, gtk := bridgeFor("Chromium", "1.0"), bridgeFor("gtk", "3.24.38")
	cases := []struct {
		name   string
		b      bridge
		tree   platform.Tree
		hollow bool
	}{
		// The walk seen on a loaded GNOME desktop: the frame and two empty panels.
		{"empty panels", chromium, platform.Tree{Root: n("frame", n("panel", n("panel"))), NodeCount: 3}, true},
		{"a page", chromium, platform.Tree{Root: n("frame", n("panel", n("document web")))}, false},
		{"a views dialog", chromium, platform.Tree{Root: n("dialog", n("panel", n("push button")))}, false},
		{"caption buttons", chromium, platform.Tree{Root: n("frame", n("panel", n("push button")))}, false},
		// Renderer accessibility off: waiting does not fill it (tree.go's skeleton says so).
		{"no children", chromium, platform.Tree{Root: n("frame")}, false},
		{"cut by a limit", chromium, platform.Tree{Root: n("frame", n("panel")), Truncated: true}, false},
		{"another toolkit", gtk, platform.Tree{Root: n("frame", n("filler", n("panel")))}, false},
		{"no root", chromium, platform.Tree{}, false},
	}
	for _, c := range cases {
		if got := hollow(c.b, c.tree); got != c.hollow {
			t.Errorf("%s: hollow = %v, want %v", c.name, got, c.hollow)
		}
	}
}
