package tools

import (
	"context"
	"testing"
	"time"
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
