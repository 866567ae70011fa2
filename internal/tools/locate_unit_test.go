package tools

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/fake"
)

func TestBudgetWithin(t *testing.T) {
	if got := budgetWithin(context.Background(), 3*time.Second); got != 3*time.Second {
		t.Errorf("no deadline: %v, want the budget", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if got := budgetWithin(ctx, 3*time.Second); got > 1500*time.Millisecond || got < time.Second {
		t.Errorf("2 s left: %v, want about three quarters of it", got)
	}
	if got := budgetWithin(ctx, 100*time.Millisecond); got != 100*time.Millisecond {
		t.Errorf("a budget inside the deadline: %v, want it kept", got)
	}
	spent, cancel2 := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel2()
	if got := budgetWithin(spent, 3*time.Second); got != 50*time.Millisecond {
		t.Errorf("spent deadline: %v, want the 50 ms minimum", got)
	}
}

// TestNearNames: a miss by exact name lists the names that hold it as whole words, the asked
// role first; none for a name nothing holds.
func TestNearNames(t *testing.T) {
	tree := &platform.Node{Ref: "1.2:1", Role: "frame", Name: "Calculator", Children: []*platform.Node{
		{Ref: "1.2:2", Role: "push button", Name: "4 4"},
		{Ref: "1.2:3", Role: "push button", Name: "14"},
		{Ref: "1.2:4", Role: "label", Name: "4"},
		{Ref: "1.2:5", Role: "push button", Name: "Open File…"},
	}}
	sel := &ElementSelector{Name: "4", Role: "push button"}
	got := sel.near(tree)
	want := []string{`"4 4" (push button, ref 1.2:2)`, `"4" (label, ref 1.2:4)`}
	if !slices.Equal(got, want) {
		t.Errorf("near %v = %v, want %v", sel, got, want)
	}
	if got := (&ElementSelector{By: "name", Value: "open file"}).near(tree); !slices.Equal(got, []string{`"Open File…" (push button, ref 1.2:5)`}) {
		t.Errorf("case and punctuation: %v", got)
	}
	if got := (&ElementSelector{Name: "Save"}).near(tree); got != nil {
		t.Errorf("nothing holds Save: %v", got)
	}
	if got := (&ElementSelector{Role: "push button"}).near(tree); got != nil {
		t.Errorf("no name asked: %v", got)
	}
	// A name of symbols only (galculator's toggle buttons "+", "+/-"): whole tokens.
	keys := &platform.Node{Ref: "1.2:1", Role: "frame", Children: []*platform.Node{
		{Ref: "1.2:6", Role: "toggle button", Name: "+/-"},
		{Ref: "1.2:7", Role: "toggle button", Name: "+"},
	}}
	if got := (&ElementSelector{Name: "+", Role: "push button"}).near(keys); !slices.Equal(got, []string{`"+" (toggle button, ref 1.2:7)`}) {
		t.Errorf("symbols: %v", got)
	}
	if got := (&ElementSelector{Name: " "}).near(keys); got != nil {
		t.Errorf("a blank name: %v", got)
	}
}

// slowWalks is a desktop whose walks take half again the first walk's budget (always: longer
// than any): one with a smaller budget stops at the root, cut by time, as a loaded
// application's do.
type slowWalks struct {
	*fake.Desktop
	always  bool
	budgets []time.Duration
}

func (s *slowWalks) Tree(ctx context.Context, w platform.Window, l platform.TreeLimits) (platform.Tree, error) {
	s.budgets = append(s.budgets, l.Budget)
	t, err := s.Desktop.Tree(ctx, w, l)
	if err == nil && (s.always || l.Budget < s.budgets[0]*3/2) {
		root := *t.Root
		root.Children = nil
		t = platform.Tree{Root: &root, NodeCount: 1, Truncated: true, TruncatedBy: []string{platform.LimitTime}}
	}
	return t, err
}

// TestSearchBudgetGrows: a search cut by time doubles the next search's budget, so a later
// attempt of the same call reaches the element; a call without a deadline stops at the cap.
func TestSearchBudgetGrows(t *testing.T) {
	d := &slowWalks{Desktop: fake.New(fake.Options{})}
	d.AddWindow(fake.WindowSpec{Title: "Slow", PID: 5000001, Bounds: platform.Rect{Width: 400, Height: 300},
		Root: &fake.Elem{Role: "frame", Name: "Slow", Children: []*fake.Elem{{Role: "label", Name: "Deep"}}}})
	sel := &ElementSelector{Name: "Deep"}
	target := WindowTarget{Window: "Slow"}
	ctx := context.Background()
	l, err := locate(ctx, d, target, sel)
	if err != nil || l.node != nil || !slices.Contains(l.truncatedBy, platform.LimitTime) {
		t.Fatalf("first search: node %v, cut by %v, err %v; want a miss cut by time", l.node, l.truncatedBy, err)
	}
	if !strings.Contains(l.searchCut(), l.budget.Round(time.Millisecond).String()) || l.budget < 3*time.Second {
		t.Errorf("first cut says %q, want the walk's budget of 3 s or more (%v)", l.searchCut(), l.budget)
	}
	l, err = locate(ctx, d, target, sel)
	if err != nil || l.node == nil || l.node.Name != "Deep" {
		t.Fatalf("second search: node %v, err %v; want Deep", l.node, err)
	}
	// The first budget is 3 s, stretched by the machine's load (sysload).
	if len(d.budgets) != 2 || d.budgets[0] < 3*time.Second || d.budgets[1] != 2*d.budgets[0] {
		t.Errorf("budgets %v, want 3 s or more, then twice that", d.budgets)
	}
	d.always = true
	sel = &ElementSelector{Name: "Deep", budget: 20 * time.Second}
	if _, err = locate(ctx, d, target, sel); err != nil || sel.budget != maxSearchBudget {
		t.Errorf("budget %v, err %v; want the cap %v", sel.budget, err, maxSearchBudget)
	}
}
