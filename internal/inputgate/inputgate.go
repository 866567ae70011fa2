// Package inputgate is the one way to the hands: every gesture (a click, a drag, a typed
// string, a raw command that presses keys) holds the gate while it runs, so two gestures never
// interleave, and reaches input only through its hold, whose context the operator's emergency
// stop cancels, so no path to input can forget the stop. Observation never takes the gate.
package inputgate

import (
	"context"

	"github.com/mcec/mcec/internal/platform"
)

// Stop is the emergency stop (estop.Latch): Gesture derives a context that its trip cancels
// (at once while stopped), with a cause that Err then names.
type Stop interface {
	Gesture(ctx context.Context) (context.Context, context.CancelFunc)
	Err() error
}

// Gate is a mutex over input that can be waited for with a deadline.
type Gate struct {
	slot chan struct{}
	in   platform.Input
	stop Stop
}

// New returns an open gate over in (nil: a server without a desktop; holds then carry no
// input) under stop (nil: no emergency stop, in tests).
func New(in platform.Input, stop Stop) *Gate {
	return &Gate{slot: make(chan struct{}, 1), in: in, stop: stop}
}

// Hold is the gate held: the way to input for as long as it is held.
type Hold struct {
	ctx     context.Context
	in      platform.Input
	stop    Stop
	release func()
}

// Context is the context the gesture runs under: it ends with the caller's and when the
// emergency stop trips, so an aborted gesture lets go of what it pressed.
func (h *Hold) Context() context.Context { return h.ctx }

// Input synthesizes the input; nil on a server without a desktop.
func (h *Hold) Input() platform.Input { return h.in }

// Release frees the gate. Call it exactly once.
func (h *Hold) Release() { h.release() }

// Stopped returns the emergency stop's refusal when the stop cut the gesture short, else err.
func (h *Hold) Stopped(err error) error {
	if err != nil && h.stop != nil && h.ctx.Err() != nil {
		if serr := h.stop.Err(); serr != nil {
			return serr
		}
	}
	return err
}

// Gesture waits until the gate is free (or ctx ends, or the emergency stop trips) and holds it
// for one gesture.
func (g *Gate) Gesture(ctx context.Context) (*Hold, error) {
	cancel := context.CancelFunc(func() {})
	if g.stop != nil {
		ctx, cancel = g.stop.Gesture(ctx)
	}
	if err := g.acquire(ctx); err != nil {
		cancel()
		if g.stop != nil {
			if serr := g.stop.Err(); serr != nil {
				return nil, serr
			}
		}
		return nil, err
	}
	return &Hold{ctx: ctx, in: g.in, stop: g.stop, release: func() { cancel(); <-g.slot }}, nil
}

// Cleanup holds the gate to let go of keys and buttons left held (a dropped queue, a client
// gone, the stop's own clean-up): the emergency stop does not cut it, since releasing is what
// the stop wants.
func (g *Gate) Cleanup(ctx context.Context) (*Hold, error) {
	if err := g.acquire(ctx); err != nil {
		return nil, err
	}
	return &Hold{ctx: ctx, in: g.in, release: func() { <-g.slot }}, nil
}

// Freeze holds the gate without touching input, to keep every gesture out (the consent broker
// while it asks the operator). It returns the function that frees it.
func (g *Gate) Freeze(ctx context.Context) (release func(), err error) {
	if err := g.acquire(ctx); err != nil {
		return nil, err
	}
	return func() { <-g.slot }, nil
}

func (g *Gate) acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err // a stopped gesture never takes a free gate
	}
	select {
	case g.slot <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
