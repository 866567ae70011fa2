package tools

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
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
}
