package atspi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/atspi"
	"github.com/mcec/mcec/internal/testdesk"
)

// TestRowsInView: a walk that measures only a GTK 3 tree view's cells in view (rowsinview.go)
// gives the tree a walk measuring every cell gives, on lists and trees scrolled to the top, the
// middle and the bottom, with a column scrolled out of view sideways, and with fewer calls.
func TestRowsInView(t *testing.T) {
	cases := []struct {
		kind               string
		rows, cols, target int
		hscroll            bool
	}{
		{"list", 100, 1, 0, false},
		{"list", 300, 1, 150, false},
		{"list", 300, 4, 299, true}, // column 0 out of view sideways
		{"tree", 300, 2, 150, false},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s %d×%d at %d hscroll %v", tc.kind, tc.rows, tc.cols, tc.target, tc.hscroll), func(t *testing.T) {
			hscroll := "0"
			if tc.hscroll {
				hscroll = "1"
			}
			a := startApp(t, python, "testdata/rowsview.py", tc.kind, fmt.Sprint(tc.rows), fmt.Sprint(tc.cols), fmt.Sprint(tc.target), hscroll)
			ctx := context.Background()
			c := connect(t, 2*time.Second)
			atspi.WithoutMirror(c)
			every := connect(t, 2*time.Second)
			atspi.WithoutMirror(every)
			atspi.MeasuringEveryCell(every)

			var tree platform.Tree
			shown := func(name string) bool {
				n := find(tree.Root, func(n *platform.Node) bool { return n.Name == name })
				return n != nil && n.Bounds != nil
			}
			// The scroll went where it was meant to: the target row's last cell is in view, the
			// first row (unless it is near the target) and, scrolled sideways, the first column
			// are not.
			testdesk.WaitFor(t, 20*time.Second, "the view scrolled", func() bool {
				var err error
				tree, err = every.Tree(ctx, a.window(), all)
				return err == nil && tree.Root.Name == "mcec rows view scrolled" && shown(fmt.Sprintf("r%d c%d", tc.target, tc.cols-1))
			})
			if tc.target > 50 && shown("r0 c0") {
				t.Fatal("the first row is in view")
			}
			if tc.hscroll && shown(fmt.Sprintf("r%d c0", tc.target)) {
				t.Fatal("the first column is in view")
			}

			var mine, theirs string
			testdesk.WaitFor(t, 10*time.Second, "the same tree measuring only the rows in view", func() bool {
				mine, _ = treeJSON(t, c, a)
				theirs, _ = treeJSON(t, every, a)
				return mine == theirs
			})
			_, callsMine := treeJSON(t, c, a)
			_, callsTheirs := treeJSON(t, every, a)
			if cells := int64(tc.rows * tc.cols); callsTheirs-callsMine < cells/2 {
				t.Errorf("%d calls measuring the rows in view, %d measuring every cell: want at least %d fewer", callsMine, callsTheirs, cells/2)
			}
		})
	}
}

// treeJSON walks a's window with c and returns the tree as JSON and the calls it took.
func treeJSON(t *testing.T, c *atspi.Client, a app) (string, int64) {
	t.Helper()
	before := atspi.Calls(c)
	tr, err := c.Tree(context.Background(), a.window(), all)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), atspi.Calls(c) - before
}
