package atspi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform/atspi"
	"github.com/mcec/mcec/internal/testdesk"
)

// TestCacheWalkMatchesCalls reads GTK 3 windows twice, from the application's Cache.GetItems and
// by calls alone, and wants the same tree: the same objects in the same order with the same
// facts. The cache's child indexes disagreed with GetChildren's order for a window with a
// header bar (gtk3-demo) and for a scrolled window's scroll bars (the list of mutate_gtk.py).
func TestCacheWalkMatchesCalls(t *testing.T) {
	needPythonGTK(t)
	for _, argv := range [][]string{{"gtk3-demo"}, {python, "testdata/mutate_gtk.py"}} {
		t.Run(argv[len(argv)-1], func(t *testing.T) {
			// Piped: mutate_gtk.py ends when its stdin does.
			p := testdesk.StartPiped(t, argv...)
			w := testdesk.WaitWindow(t, p.PID, 20*time.Second)
			testdesk.WaitAccessible(t, p.PID, 20*time.Second)
			a := app{pid: p.PID, bounds: windowBounds(t, w)}
			cached := connect(t, 2*time.Second)
			atspi.WithoutMirror(cached)
			byCalls := connect(t, 2*time.Second)
			atspi.WithoutMirror(byCalls)
			atspi.WalkWithoutCache(byCalls)
			read := func(c *atspi.Client) string {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				tr, err := c.Tree(ctx, a.window(), all)
				if err != nil {
					t.Fatalf("Tree: %v", err)
				}
				b, _ := json.MarshalIndent(tr, "", " ")
				// Whether an object without actions says null or [] depends on what the client's
				// per-object cache knew, not on the application.
				return strings.ReplaceAll(string(b), `"Actions": []`, `"Actions": null`)
			}
			treeWith(t, cached, a, "") // the application has built its tree
			var got, want string
			for range 3 { // the same answer twice in a row: the application has settled
				if got, want = read(cached), read(byCalls); got == want {
					return
				}
			}
			t.Errorf("from the cache:\n%s", firstDifference(got, want))
		})
	}
}

// firstDifference shows where two indented JSON trees first differ, with a little context.
func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			lo, hi := max(i-8, 0), min(i+8, len(al), len(bl))
			return strings.Join(al[lo:hi], "\n") + "\nby calls:\n" + strings.Join(bl[lo:hi], "\n")
		}
	}
	return "(one is a prefix of the other)"
}
