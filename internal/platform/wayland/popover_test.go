package wayland_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/testdesk"
)

// TestGTK4PopoverHasNoBounds: a GTK 4 drop-down's list is a popover, a surface sway places
// without telling any client, and GTK 4.8 reports it over the drop-down's own button. Its
// objects are shown but get no bounds, in a tree and by ref: never a place a click would miss.
func TestGTK4PopoverHasNoBounds(t *testing.T) {
	d := open(t)
	app := testdesk.Start(t, "/usr/bin/python3", "testdata/dropdown4.py")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	handle := testdesk.WaitWindow(t, app.PID, 20*time.Second)
	testdesk.WaitAccessible(t, app.PID, 20*time.Second)
	win, err := d.Window(ctx, handle)
	if err != nil {
		t.Fatal(err)
	}
	tree := func() *platform.Node {
		tr, err := d.Tree(ctx, win, platform.TreeLimits{MaxDepth: 64, MaxNodes: 1000})
		if err != nil {
			t.Fatal(err)
		}
		return tr.Root
	}
	combo := findRole(tree(), "combo box")
	if combo == nil || combo.Bounds == nil {
		t.Fatalf("no placed drop-down: %+v", combo)
	}
	b := combo.Bounds
	if err := d.Input().Click(ctx, platform.Point{X: b.X + b.Width/2, Y: b.Y + b.Height/2}, platform.ButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	// The open list: a focused row below the drop-down.
	var row *platform.Node
	var walked strings.Builder // the drop-down's subtree as walked, for a failure to show
	testdesk.WaitFor(t, 10*time.Second, "the drop-down's list to open", func() bool {
		c := findRole(tree(), "combo box")
		if row = findFocusedBelow(c); row != nil {
			outline(c, 0, &walked)
		}
		return row != nil
	})
	if row.Bounds != nil {
		t.Log(walked.String())
		t.Errorf("a row of the open list has bounds %+v in a tree: sway does not say where the popover is", *row.Bounds)
	}
	el, err := d.Element(ctx, row.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if el.Node.Bounds != nil {
		t.Errorf("the row read by ref has bounds %+v", *el.Node.Bounds)
	}
	if !el.Node.States["showing"] {
		t.Errorf("the row of the open list is not showing: %v", el.Node.States)
	}
	// The drop-down itself stays placed.
	if c := findRole(tree(), "combo box"); c == nil || c.Bounds == nil || *c.Bounds != *b {
		t.Errorf("the drop-down moved or lost its bounds: %+v", c)
	}
	if err := d.Input().Chord(ctx, "Escape"); err != nil {
		t.Fatal(err)
	}
}

// findFocusedBelow is the focused row (list item) below n, or nil. Right after the click the
// drop-down's own button has the focus, until the list takes it.
func findFocusedBelow(n *platform.Node) *platform.Node {
	if n == nil {
		return nil
	}
	for _, k := range n.Children {
		if k.Role == "list item" && k.States["focused"] {
			return k
		}
		if f := findFocusedBelow(k); f != nil {
			return f
		}
	}
	return nil
}

// outline writes n's subtree, one object a line with its bounds.
func outline(n *platform.Node, depth int, sb *strings.Builder) {
	fmt.Fprintf(sb, "%s%s %q %v\n", strings.Repeat("  ", depth), n.Role, n.Name, n.Bounds)
	for _, k := range n.Children {
		outline(k, depth+1, sb)
	}
}
