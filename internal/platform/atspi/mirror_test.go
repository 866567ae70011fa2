package atspi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/atspi"
	"github.com/mcec/mcec/internal/testdesk"
)

// mutations are every kind of change the mirror's events describe, in the order the test makes
// them: rows added and removed (in a list of widgets and in a tree view), a cell edited, a rename, a toggle, a value and a text change, a widget hidden
// and shown, a widget grown (its siblings below move, with no other event than bounds-changed),
// the list scrolled, the window moved.
var mutations = []string{"add", "add", "remove", "tadd", "tremove", "tedit", "rename", "toggle", "value", "text", "hide", "show", "grow", "grow",
	"scroll", "move", "toggle"}

// TestMirrorMatchesFreshWalks changes a GTK 3 and a Qt 5 window in every way the mirror's events
// describe and checks after each change that the client's answer equals a fresh walk by
// another client that keeps no mirror. GTK 3 is mirrored: an unchanged window must be answered
// from the mirror. Qt is not (its bridge sends no event when a list gains or loses rows, which
// the "measure" subtest shows with the mirror forced on): it must never be.
func TestMirrorMatchesFreshWalks(t *testing.T) {
	gtk := []string{python, "testdata/mutate_gtk.py"}
	qt := []string{"env", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1", python, "testdata/mutate_qt.py"}
	needQt := func(t *testing.T) {
		if err := exec.Command(python, "-c", "import PyQt5.QtWidgets").Run(); err != nil {
			t.Skip("needs python3-pyqt5")
		}
	}
	t.Run("gtk3", func(t *testing.T) {
		needPythonGTK(t)
		testMirror(t, "mcec mutate gtk", mirrorOn, slices.Concat(mutations, []string{"lagadd"}), gtk...)
	})
	t.Run("qt5", func(t *testing.T) {
		needQt(t)
		testMirror(t, "mcec mutate qt", mirrorOff, mutations, qt...)
	})
	t.Run("qt5-measure", func(t *testing.T) {
		needQt(t)
		testMirror(t, "mcec mutate qt", mirrorForced, mutations, qt...)
	})
}

// How testMirror expects the client to use its mirror.
const (
	mirrorOn     = iota // the toolkit is mirrored: answers must match fresh walks
	mirrorOff           // the toolkit is not mirrored: no answer may come from the mirror
	mirrorForced        // mirrored against mcec's judgement: log which changes it would miss
)

func testMirror(t *testing.T, title string, mode int, mutations []string, argv ...string) {
	p := testdesk.StartPiped(t, argv...)
	handle := testdesk.WaitWindow(t, p.PID, 20*time.Second)
	testdesk.WaitAccessible(t, p.PID, 20*time.Second)
	out := bufio.NewReader(p.Stdout)
	x, root := xconn(t)
	win := func() platform.Window {
		g, err := xproto.GetGeometry(x, xproto.Drawable(handle)).Reply()
		if err != nil {
			t.Fatal(err)
		}
		tr, err := xproto.TranslateCoordinates(x, xproto.Window(handle), root, 0, 0).Reply()
		if err != nil {
			t.Fatal(err)
		}
		return platform.Window{Handle: handle, ProcessID: p.PID, Title: title,
			Bounds: platform.Rect{X: int(tr.DstX), Y: int(tr.DstY), Width: int(g.Width), Height: int(g.Height)}}
	}
	warm := connect(t, 2*time.Second)
	if mode == mirrorForced {
		atspi.MirrorEveryToolkit(warm)
	}
	fresh := connect(t, 2*time.Second)
	atspi.WithoutMirror(fresh)
	trees := 0
	tree := func(c *atspi.Client) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if trees++; trees%2 == 0 {
			// Every other tree as the tools ask: the barrier primed before the window's geometry
			// is read.
			ctx = c.PrimeTrees(ctx)
		}
		tr, err := c.Tree(ctx, win(), all)
		if err != nil {
			t.Fatalf("Tree: %v", err)
		}
		b, _ := json.Marshal(tr)
		// Whether an object without actions says null or [] depends on what the client's
		// per-object cache knew, not on the application's state.
		return strings.ReplaceAll(string(b), `"Actions":[]`, `"Actions":null`)
	}
	if mode != mirrorOff {
		// An idle window is answered from the mirror: the second of two trees in a row, once the
		// application has settled.
		testdesk.WaitFor(t, 15*time.Second, "a tree answered from the mirror", func() bool {
			tree(warm)
			h, _ := atspi.MirrorStats(warm)
			tree(warm)
			h2, _ := atspi.MirrorStats(warm)
			return h2 > h
		})
	}
	var missed []string
	before := tree(warm)
	for i, m := range mutations {
		if _, err := fmt.Fprintln(p.Stdin, m); err != nil {
			t.Fatal(err)
		}
		ack, err := out.ReadString('\n')
		if err != nil || strings.TrimSpace(ack) != "ok "+m {
			t.Fatalf("%s: the application answered %q (%v)", m, ack, err)
		}
		if m == "lagadd" {
			// A walk while the bridge's cache lags the tree (the new row is not in it yet), kept
			// by the mirror; the cache catching up afterwards must count as a change.
			tree(warm)
			if line, err := out.ReadString('\n'); err != nil || strings.TrimSpace(line) != "settled" {
				t.Fatalf("lagadd: the application answered %q (%v)", line, err)
			}
		}
		// The application may still be settling (a relayout, the window manager placing the
		// window): a change can reach the tree after the command's acknowledgement, and two
		// walks can agree on the state before it. What must never happen is the mirror
		// disagreeing with a fresh walk made after it once both show the change.
		var got, want string
		agreed := false
		for range 20 {
			got = tree(warm)
			want = tree(fresh)
			if got == want && tree(warm) == want && (got != before || m == "show") {
				agreed = true
				break
			}
		}
		if !agreed && got == want && got == before {
			t.Errorf("mutation %d (%s) changed nothing in the tree: the test would not see a stale mirror", i, m)
			continue
		}
		if !agreed && mode == mirrorForced {
			missed = append(missed, m)
			// Start again from a walk, as the next event (or none) would.
			atspi.DropMirror(warm)
			got = tree(warm)
		} else if !agreed {
			t.Fatalf("mutation %d (%s): the mirror answers\n%s\nbut a fresh walk reads\n%s", i, m, got, want)
		}
		before = got
	}
	hits, misses := atspi.MirrorStats(warm)
	t.Logf("%s: %d trees from the mirror, %d walked", title, hits, misses)
	if mode == mirrorOff && hits > 0 {
		t.Errorf("%d trees of a toolkit that is not mirrored came from the mirror", hits)
	}
	if mode == mirrorForced {
		t.Logf("%s: changes the toolkit's events do not announce: %v", title, missed)
	}
}
