package fake_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/fake"
)

func bg() context.Context { return context.Background() }

// What the fake does beyond the conformance suite: limits it can express that a small real
// scene cannot, scripted input and hung processes, closing, and concurrent use.

func TestTreeLimitsInDetail(t *testing.T) {
	d := fake.New(fake.Options{})
	secret := "hunter2"
	var items []*fake.Elem
	for i := range 5 {
		items = append(items, &fake.Elem{Role: "list item", Name: fmt.Sprint("item ", i)})
	}
	h := d.AddWindow(fake.WindowSpec{Title: "W", PID: 5000001, Bounds: platform.Rect{Width: 100, Height: 100},
		Root: &fake.Elem{Role: "frame", Name: "W", Children: []*fake.Elem{
			{Role: "panel", Children: []*fake.Elem{{Role: "panel", Children: []*fake.Elem{{Role: "password text", Name: "pw", Value: &secret}}}}},
			{Role: "list", Name: "L", Children: items},
		}}})
	w, _ := d.Window(bg(), h)

	// Unnamed layout panels cost no depth: the password field is at depth 1.
	tr, err := d.Tree(bg(), w, platform.TreeLimits{MaxDepth: 1, MaxNodes: 100})
	if err != nil {
		t.Fatal(err)
	}
	pw := tr.Root.Children[0].Children[0].Children[0]
	if pw.Name != "pw" || pw.Value == nil || *pw.Value != fake.MaskedValue || tr.SecretsMasked != 1 {
		t.Errorf("password field %+v (value %v), %d masked", pw, pw.Value, tr.SecretsMasked)
	}
	if list := tr.Root.Children[1]; len(list.Children) != 0 || list.ChildCount != 5 || !slices.Equal(tr.TruncatedBy, []string{platform.LimitMaxDepth}) {
		t.Errorf("the list at the depth limit: %d children listed of %d, truncated by %v", len(list.Children), list.ChildCount, tr.TruncatedBy)
	}

	tr, _ = d.Tree(bg(), w, platform.TreeLimits{MaxDepth: 10, MaxNodes: 100, MaxChildren: 2})
	if list := tr.Root.Children[1]; len(list.Children) != 2 || list.ChildCount != 5 || !slices.Equal(tr.TruncatedBy, []string{platform.LimitMaxChildren}) {
		t.Errorf("MaxChildren 2: %d listed of %d, truncated by %v", len(list.Children), list.ChildCount, tr.TruncatedBy)
	}
	if err := d.SetState(d.Ref(h, "L"), "showing", false); err != nil {
		t.Fatal(err)
	}
	tr, _ = d.Tree(bg(), w, platform.TreeLimits{MaxDepth: 10, MaxNodes: 100, ShowingOnly: true})
	if list := tr.Root.Children[1]; len(list.Children) != 0 {
		t.Errorf("ShowingOnly walked below a hidden list: %d children", len(list.Children))
	}
}

func checkScene(t *testing.T, opts fake.Options) (*fake.Desktop, uint32) {
	d := fake.New(opts)
	t.Cleanup(func() { _ = d.Close() })
	h := d.AddWindow(fake.WindowSpec{Title: "W", PID: 5000001, Bounds: platform.Rect{X: 10, Y: 10, Width: 200, Height: 100},
		Root: &fake.Elem{Role: "frame", Name: "W", Children: []*fake.Elem{
			{Role: "check box", Name: "C", Bounds: &platform.Rect{X: 5, Y: 5, Width: 20, Height: 20}},
		}}})
	return d, h
}

func TestAbortedGestureReleasesEverything(t *testing.T) {
	d, _ := checkScene(t, fake.Options{})
	boom := errors.New("boom")
	d.InputHook(func(_ context.Context, s fake.Step) error {
		if len(s.Held) == 2 {
			return boom
		}
		return nil
	})
	if err := d.Input().Chord(bg(), "Control_L", "Shift_L", "s"); !errors.Is(err, boom) {
		t.Fatalf("chord: %v, want the hook's error", err)
	}
	if held, _ := d.Input().Held(bg()); len(held) != 0 {
		t.Errorf("held %v after the aborted chord", held)
	}
	g := d.Gestures()
	if len(g) != 1 || !errors.Is(g[0].Err, boom) {
		t.Errorf("gestures %+v", g)
	}
}

func TestClickActivatesWhatItHits(t *testing.T) {
	d, h := checkScene(t, fake.Options{})
	ref := d.Ref(h, "C")
	if err := d.Input().Click(bg(), platform.Point{X: 25, Y: 25}, platform.ButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	if n, _ := d.Node(ref); !n.States["checked"] {
		t.Errorf("a click on the check box left it %v", n.States)
	}
	if err := d.Input().Click(bg(), platform.Point{X: 150, Y: 90}, platform.ButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	if n, _ := d.Node(ref); !n.States["checked"] {
		t.Errorf("a click beside the check box changed it: %v", n.States)
	}
	if err := d.SetState(ref, "enabled", false); err != nil {
		t.Fatal(err)
	}
	if err := d.Input().Click(bg(), platform.Point{X: 25, Y: 25}, platform.ButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	if n, _ := d.Node(ref); !n.States["checked"] {
		t.Errorf("a click on the disabled check box changed it: %v", n.States)
	}
}

func TestHang(t *testing.T) {
	d, h := checkScene(t, fake.Options{CallTimeout: 20 * time.Millisecond})
	ref := d.Ref(h, "C")
	d.Hang(5000001, true)
	if _, err := d.Element(bg(), ref); !errors.Is(err, platform.ErrAppNotResponding) {
		t.Fatalf("Element of a hung process: %v", err)
	}
	if _, err := d.Windows(bg()); err != nil {
		t.Errorf("windows while an application hangs: %v", err)
	}
	d.Hang(5000001, false)
	if _, err := d.Element(bg(), ref); err != nil {
		t.Errorf("Element once it answers: %v", err)
	}
}

func TestClosed(t *testing.T) {
	d, _ := checkScene(t, fake.Options{})
	ch, err := d.WatchWindows(bg())
	if err != nil {
		t.Fatal(err)
	}
	_ = d.Close()
	if _, ok := <-ch; ok {
		<-ch // a pending wake-up first
	}
	if _, err := d.Windows(bg()); !errors.Is(err, platform.ErrDisplayUnavailable) {
		t.Errorf("Windows after Close: %v", err)
	}
	if err := d.Input().Click(bg(), platform.Point{}, platform.ButtonLeft, 1); !errors.Is(err, platform.ErrDisplayUnavailable) {
		t.Errorf("Click after Close: %v", err)
	}
}

// Run with -race: every method is safe for concurrent use, handlers included.
func TestConcurrentUse(t *testing.T) {
	d, h := checkScene(t, fake.Options{})
	ref := d.Ref(h, "C")
	w, _ := d.Window(bg(), h)
	ctx, cancel := context.WithCancel(bg())
	defer cancel()
	ch, _ := d.WatchTree(ctx, 5000001)
	go func() {
		for range ch {
		}
	}()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				switch (i + j) % 6 {
				case 0:
					_, _ = d.Tree(bg(), w, platform.TreeLimits{MaxDepth: 5, MaxNodes: 50})
				case 1:
					_, _ = d.Act(bg(), ref, platform.ActToggle, "")
				case 2:
					_ = d.Input().Click(bg(), platform.Point{X: 25, Y: 25}, platform.ButtonLeft, 1)
				case 3:
					_ = d.SetName(ref, fmt.Sprint("C", j))
				case 4:
					_ = d.WindowOp(bg(), h, platform.WindowOp{Kind: platform.OpMove, X: j, Y: j})
				case 5:
					_, _ = d.Element(bg(), ref)
				}
			}
		})
	}
	wg.Wait()
	if held, _ := d.Input().Held(bg()); len(held) != 0 {
		t.Errorf("held %v after concurrent clicks", held)
	}
}

// A window whose frame the application destroyed has no tree (and nothing to hit or find).
func TestFrameRemoved(t *testing.T) {
	d, h := checkScene(t, fake.Options{})
	if err := d.Remove(d.Ref(h, "W")); err != nil {
		t.Fatal(err)
	}
	w, _ := d.Window(bg(), h)
	if _, err := d.Tree(bg(), w, platform.TreeLimits{MaxDepth: 5}); !errors.Is(err, platform.ErrNoAccessibleTree) {
		t.Errorf("Tree without a frame: %v", err)
	}
	if d.Ref(h, "C") != "" {
		t.Error("Ref found an object of the removed frame")
	}
	if err := d.Input().Click(bg(), platform.Point{X: 25, Y: 25}, platform.ButtonLeft, 1); err != nil {
		t.Errorf("click on a window without a tree: %v", err)
	}
}
