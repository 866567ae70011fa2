// Package takeover is the operator's take-over: the operator takes control of the desktop from
// the agents (the console's "Take control"), and hands it back. While the operator has control,
// every tool call that acts fails operator-in-control (observation is still served, so the
// agent can watch and wait), and mcec's input gate is held for the operator, so no agent
// gesture or raw command can reach the desktop, and one in progress finishes before the
// operator's control begins.
package takeover

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/mcec/mcec/contract"
)

// Who has control, as Status reports it.
const (
	Agents   = "agents"
	Operator = "operator"
)

// HowPhysical is how control is taken by a person's own keyboard or mouse on the desktop, and
// HowPhysicalIdle how it comes back when they stop.
const (
	HowPhysical     = "physical input"
	HowPhysicalIdle = "physical input ended"
)

// PhysicalIdle is how long control taken by physical input lasts after the person's last key or
// button press: long enough to read between keystrokes, short enough that a person who glanced
// at the desktop does not stall the agent for long.
const PhysicalIdle = 10 * time.Second

// physicalTakeLimit bounds the wait for an agent's gesture in progress when a person presses a
// key: a person's input never waits on an agent for long (press the stop hotkey to abort one).
const physicalTakeLimit = 10 * time.Second

// Status is who drives the desktop, since when, and through what the operator took it.
type Status struct {
	Holder string    `json:"holder"`
	Since  time.Time `json:"since"`
	How    string    `json:"how,omitempty"`
}

// Gate is the input gate (inputgate.Gate): Freeze holds it without touching input.
type Gate interface {
	Freeze(ctx context.Context) (release func(), err error)
}

// Control is safe for concurrent use.
type Control struct {
	gate   Gate
	log    *slog.Logger
	now    func() time.Time
	notify func(Status)

	mu      sync.Mutex
	status  Status
	release func() // frees the input gate, held for the operator while they have control

	// Physical input: when the person last pressed a key or button, and whether a take for
	// them is under way (it may wait for an agent's gesture).
	lastPhysical time.Time
	taking       bool
	idle         time.Duration

	// What For tells the sessions: the last hand-back, and who was told of it.
	handbacks int            // how many times control came back to the agents
	lastTaken Status         // the operator's control that the last hand-back ended
	lastBack  time.Time      // when it ended
	told      map[string]int // session → the hand-back it was told of (reset at each hand-back)
}

// New returns a Control with the agents in control. gate may be nil (a server without a
// desktop): then nothing is held. notify, when not nil, is told of every change of holder (the
// evidence recorder writes it into the sessions' traces), after the change.
func New(gate Gate, log *slog.Logger, notify func(Status)) *Control {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if notify == nil {
		notify = func(Status) {}
	}
	c := &Control{gate: gate, log: log, now: time.Now, notify: notify, idle: PhysicalIdle}
	c.status = Status{Holder: Agents, Since: c.now()}
	return c
}

// Take gives the operator control. It waits (within ctx) for an agent's gesture in progress
// to finish, so the operator never meets half a drag; taking control twice changes nothing.
func (c *Control) Take(ctx context.Context, how string) (Status, error) {
	c.mu.Lock()
	if c.status.Holder == Operator {
		defer c.mu.Unlock()
		if c.status.How == HowPhysical && how != HowPhysical {
			// The operator keeps what the person's input took: it no longer ends when they idle.
			c.status.How = how
		}
		return c.status, nil
	}
	if c.gate != nil {
		// A gesture that keeps the gate past ctx is reported, not waited for forever; the
		// operator can still press Stop, which aborts it.
		release, err := c.gate.Freeze(ctx)
		if err != nil {
			defer c.mu.Unlock()
			return c.status, err
		}
		c.release = release
	}
	c.status = Status{Holder: Operator, Since: c.now(), How: how}
	st := c.status
	c.mu.Unlock()
	c.log.Warn("the operator took control: agents' actions are refused until they hand back", "how", how)
	c.notify(st)
	return st, nil
}

// HandBack returns control to the agents and reports whether the operator had it.
func (c *Control) HandBack(how string) (Status, bool) { return c.handBack(how, "") }

// handBack hands back when the operator has control, taken through takenHow when that is not "".
func (c *Control) handBack(how, takenHow string) (Status, bool) {
	c.mu.Lock()
	if c.status.Holder != Operator || (takenHow != "" && c.status.How != takenHow) {
		defer c.mu.Unlock()
		return c.status, false
	}
	if c.release != nil {
		c.release()
		c.release = nil
	}
	held := c.now().Sub(c.status.Since)
	c.handbacks++
	c.lastTaken, c.lastBack, c.told = c.status, c.now(), map[string]int{}
	c.status = Status{Holder: Agents, Since: c.lastBack, How: how}
	st := c.status
	c.mu.Unlock()
	c.log.Warn("the operator handed control back to the agents", "how", how, "after", held.Round(time.Millisecond))
	c.notify(st)
	return st, true
}

// PhysicalInput is told of every press of a person's own key or button on the desktop (not
// XTEST input: internal/estop's listener tells them apart). The person takes control as the
// console's Take control does, and keeps it until PhysicalIdle passes without their input or the
// console hands back. Control the operator took in the console is not changed. It does not
// block: the take waits for an agent's gesture in progress in the background.
func (c *Control) PhysicalInput() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastPhysical = c.now()
	if c.status.Holder == Operator || c.taking {
		return
	}
	c.taking = true
	go c.takeForPerson()
}

func (c *Control) takeForPerson() {
	ctx, cancel := context.WithTimeout(context.Background(), physicalTakeLimit)
	_, err := c.Take(ctx, HowPhysical)
	cancel()
	c.mu.Lock()
	c.taking = false
	c.mu.Unlock()
	if err != nil {
		c.log.Warn("physical input could not take control: an agent's gesture held the input gate", "err", err)
		return
	}
	// Hand back once the person has been idle for c.idle, unless control changed meanwhile.
	timer := time.NewTimer(c.idle)
	defer timer.Stop()
	for range timer.C {
		c.mu.Lock()
		if c.status.Holder != Operator || c.status.How != HowPhysical {
			c.mu.Unlock()
			return
		}
		left := c.idle - c.now().Sub(c.lastPhysical)
		c.mu.Unlock()
		if left <= 0 {
			c.handBack(HowPhysicalIdle, HowPhysical)
			return
		}
		timer.Reset(left)
	}
}

// Status reports who has control.
func (c *Control) Status() Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status
}

// Frozen refuses what acts while the operator has control (admission.Freeze); nil otherwise.
func (c *Control) Frozen(what string) error {
	st := c.Status()
	if st.Holder != Operator {
		return nil
	}
	return contract.Errorf(contract.CodeOperatorInControl,
		"the operator took control of the desktop at %s (%s): %s was not run, and nothing that acts is until they hand "+
			"back. Observation still works: wait, observe again (windows, focus and values may change meanwhile), then retry",
		st.Since.Format("15:04:05"), st.How, what)
}

// For implements dispatch.Notices: a session's first call after a hand-back is warned
// operator-intervened (once per take-over), unless the session began after it.
func (c *Control) For(session string, started time.Time) []contract.Warning {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.handbacks == 0 || c.told[session] == c.handbacks {
		return nil
	}
	c.told[session] = c.handbacks
	if started.After(c.lastBack) {
		return nil
	}
	held := c.lastBack.Sub(c.lastTaken.Since).Round(time.Second)
	return []contract.Warning{contract.Warn(contract.WarnOperatorIntervened,
		"the operator had control of the desktop from %s to %s (%s, through the %s): windows, focus and values may have "+
			"changed since your last call; observe again before you act",
		c.lastTaken.Since.Format("15:04:05"), c.lastBack.Format("15:04:05"), held, c.lastTaken.How)}
}
