package toolsfake_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/estop"
	"github.com/mcec/mcec/internal/platform/fake"
)

// The emergency stop aborts a gesture in progress: the drag fails emergency-stopped, nothing is
// left pressed, later calls are refused until the operator re-arms, and then served again.
func TestEmergencyStopAbortsGesture(t *testing.T) {
	a := newApp(t)
	midway := make(chan struct{})
	a.Fake.InputHook(func(ctx context.Context, s fake.Step) error {
		if s.Gesture.Kind != "drag" || len(s.Held) == 0 {
			return nil
		}
		close(midway) // the button is down: hold the gesture here until its context ends
		<-ctx.Done()
		return context.Cause(ctx)
	})
	ch := callAsync(a, "drag", map[string]any{"handle": a.win, "from": map[string]any{"x": 10, "y": 10},
		"to": map[string]any{"x": 200, "y": 150}, "settle": 0})
	select {
	case <-midway:
	case <-time.After(30 * time.Second):
		t.Fatal("the drag never pressed its button")
	}
	if held, _ := a.Fake.Input().Held(context.Background()); len(held) != 1 {
		t.Fatalf("held %v midway, want the button", held)
	}
	select {
	case <-a.Stop.Trip(estop.ByControlSocket):
	case <-time.After(30 * time.Second):
		t.Fatal("the trip's clean-up never finished")
	}
	env := receive(t, ch)
	fails(t, env, contract.Internal, contract.CodeEmergencyStopped)
	if held, err := a.Fake.Input().Held(context.Background()); err != nil || len(held) != 0 {
		t.Errorf("held %v (%v) after the stop, want nothing", held, err)
	}
	gs := a.Fake.Gestures()
	if last := gs[len(gs)-1]; last.Kind != "drag" || !errors.Is(last.Err, estop.ErrStopped) {
		t.Errorf("last gesture %s ended by %v, want the drag aborted by the stop", last.Kind, last.Err)
	}

	a.Fake.InputHook(nil)
	fails(t, a.Call(t, "click", map[string]any{"handle": a.win, "at": map[string]any{"x": 10, "y": 10}}), contract.Internal, contract.CodeEmergencyStopped)
	fails(t, a.Call(t, "windows", map[string]any{}), contract.Internal, contract.CodeEmergencyStopped)
	if n := len(a.Fake.Gestures()); n != len(gs) {
		t.Errorf("%d gestures reached the desktop while stopped", n-len(gs))
	}

	if !a.Stop.Rearm(estop.ByControlSocket) {
		t.Fatal("rearm: the latch was not stopped")
	}
	a.OK(t, "click", map[string]any{"handle": a.win, "at": map[string]any{"x": 10, "y": 10}, "settle": 0}, nil)
}
