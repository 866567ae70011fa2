// Package inputgate serializes input synthesis: every gesture (a click, a drag, a typed string,
// a raw command that presses keys) holds the one gate while it runs, so two gestures never
// interleave. Observation never takes the gate.
package inputgate

import "context"

// Gate is a mutex that can be waited for with a deadline.
type Gate struct{ slot chan struct{} }

// New returns an open gate.
func New() *Gate { return &Gate{slot: make(chan struct{}, 1)} }

// Hold waits until the gate is free (or ctx ends) and returns the function that frees it.
func (g *Gate) Hold(ctx context.Context) (release func(), err error) {
	select {
	case g.slot <- struct{}{}:
		return func() { <-g.slot }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
