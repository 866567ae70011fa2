package daemon

import (
	"context"
	"errors"
	"image"
	"sync"

	"github.com/mcec/mcec/internal/estop"
	"github.com/mcec/mcec/internal/inputgate"
	"github.com/mcec/mcec/internal/platform"
)

// operatorGate is the input gate as the operator's take-over holds it (takeover.Gate): the hold
// taken for the operator is also the one way the operator's own input from the console
// (console.Hands) reaches the desktop, under the emergency stop like every gesture.
type operatorGate struct {
	gate *inputgate.Gate
	stop *estop.Latch

	mu   sync.Mutex // held across one operator input, so Hand back waits for it
	hold *inputgate.Hold
}

// Freeze holds the gate for the operator. It is a clean-up hold, not a gesture: the stop must
// not end the operator's control, only their input in progress (input below).
func (g *operatorGate) Freeze(ctx context.Context) (func(), error) {
	h, err := g.gate.Cleanup(ctx)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	g.hold = h
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		g.hold = nil
		g.mu.Unlock()
		h.Release()
	}, nil
}

var errNoControl = errors.New("the operator does not have control: Take control first")

// input runs one operator input through the operator's hold, cut short by the emergency stop.
func (g *operatorGate) input(ctx context.Context, f func(context.Context, platform.Input) error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.hold == nil {
		return errNoControl
	}
	in := g.hold.Input()
	if in == nil {
		return errors.New("this server has no desktop to send input to")
	}
	ctx, cancel := g.stop.Gesture(ctx)
	defer cancel()
	if err := f(ctx, in); err != nil {
		if serr := g.stop.Err(); serr != nil && ctx.Err() != nil {
			return serr
		}
		return err
	}
	return nil
}

// Click implements console.Hands.
func (g *operatorGate) Click(ctx context.Context, x, y int, right bool, count int) error {
	button := platform.ButtonLeft
	if right {
		button = platform.ButtonRight
	}
	return g.input(ctx, func(ctx context.Context, in platform.Input) error {
		return in.Click(ctx, platform.Point{X: x, Y: y}, button, count)
	})
}

// Chord implements console.Hands.
func (g *operatorGate) Chord(ctx context.Context, keys ...string) error {
	return g.input(ctx, func(ctx context.Context, in platform.Input) error { return in.Chord(ctx, keys...) })
}

// Type implements console.Hands.
func (g *operatorGate) Type(ctx context.Context, text string) error {
	return g.input(ctx, func(ctx context.Context, in platform.Input) error { return in.Type(ctx, text) })
}

// consoleScreen is the whole virtual screen for the console's live view (console.Screen).
type consoleScreen struct{ d platform.Desktop }

func (s consoleScreen) Grab(ctx context.Context) (*image.RGBA, error) {
	ds, err := s.d.Displays(ctx)
	if err != nil {
		return nil, err
	}
	return s.d.CaptureRect(ctx, ds.VirtualBounds)
}
