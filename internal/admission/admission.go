// Package admission is the one ordered chain a request passes before anything of it runs: the
// operator's emergency stop, then the freezes (the operator's take-over, the consent question),
// then the operator's policy. The dispatcher
// asks it for every tool call and the raw command engine for every raw command, so the order
// and its exceptions (the stop's status tool, what only observes) are written once.
package admission

import (
	"context"

	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/rawcmd"
)

// Stop is the emergency stop (estop.Latch): Check refuses a tool call while stopped (its own
// status tool aside), Err refuses anything else.
type Stop interface {
	Check(tool string) error
	Err() error
}

// Freeze is a stage that refuses whatever acts while it holds, naming what was refused: the
// operator's take-over (takeover.Control) and the consent broker while the operator is asked
// (consent.Broker).
type Freeze interface {
	Frozen(what string) error
}

// Policy is the operator's policy (safety.Policy) over tools and raw commands.
type Policy interface {
	Allow(ctx context.Context, tool string) error
	AllowRaw(ctx context.Context, e *rawcmd.Entry) error
}

// Chain asks its stages in order; the first refusal wins. A nil stage is skipped (tests, a
// server built without consent).
type Chain struct {
	stop    Stop
	freezes []Freeze
	policy  Policy
}

// New returns the chain stop → freezes, in the order given → policy; apart from the freezes'
// order among themselves, the order is the chain's, not the caller's.
func New(stop Stop, policy Policy, freezes ...Freeze) *Chain {
	c := &Chain{stop: stop, policy: policy}
	for _, f := range freezes {
		if f != nil {
			c.freezes = append(c.freezes, f)
		}
	}
	return c
}

// frozen is the first freeze's refusal of what, if any.
func (c *Chain) frozen(what string) error {
	for _, f := range c.freezes {
		if err := f.Frozen(what); err != nil {
			return err
		}
	}
	return nil
}

// Admit judges a tool call (dispatch.Admission). Read-only tools pass the consent freeze:
// observation stays served while the operator is asked.
func (c *Chain) Admit(ctx context.Context, tool *catalog.Tool) error {
	if c.stop != nil {
		if err := c.stop.Check(tool.Name); err != nil {
			return err
		}
	}
	if !tool.Annotations.ReadOnly {
		if err := c.frozen(tool.Name); err != nil {
			return err
		}
	}
	if c.policy != nil {
		return c.policy.Allow(ctx, tool.Name)
	}
	return nil
}

// AdmitRaw judges one leaf of a raw command (queue.Options.Allow). Commands that neither type,
// click nor start programs (meta commands, pause:) pass the consent freeze.
func (c *Chain) AdmitRaw(ctx context.Context, e *rawcmd.Entry) error {
	if c.stop != nil {
		if err := c.stop.Err(); err != nil {
			return err
		}
	}
	if e.Acts() {
		if err := c.frozen(e.Name); err != nil {
			return err
		}
	}
	if c.policy != nil {
		return c.policy.AllowRaw(ctx, e)
	}
	return nil
}
