// Package estop is mcec's emergency stop: a latch that, once tripped, refuses every tool call
// with emergency-stopped, aborts the input gestures in progress and runs the server's clean-up
// (drop the raw command queue, release held input, discard a running recording), and a
// listener that trips it from a global hotkey read as XInput2 raw events on its own X
// connection (internal/xinput2), ignoring every key that comes from an XTEST device — mcec's
// own synthesized input, or any other XTEST user's, can neither trip nor re-arm it.
//
// Only the operator re-arms: `mcec rearm` on the control socket, or the hotkey pressed again
// (at least MinRearmDelay after the stop) and confirmed by a second press within ConfirmWindow.
package estop

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/mcec/mcec/contract"
)

// States reported by Status.
const (
	Armed       = "armed"
	Stopped     = "stopped"
	Unavailable = "unavailable" // armed, but the hotkey cannot be read (the control socket still stops)
)

// How the latch changed, as Status reports it.
const (
	ByHotkey        = "hotkey"
	ByControlSocket = "control socket"
	ByConsole       = "console" // the operator console's Stop and Re-arm (internal/console)
)

// Re-arming with the hotkey: presses within MinRearmDelay of the stop are ignored (a panicked
// operator hammering the chord must not undo it), and a re-arming press must be confirmed by a
// second one within ConfirmWindow.
const (
	MinRearmDelay = 2 * time.Second
	ConfirmWindow = 3 * time.Second
)

// ErrStopped is the cause of a gesture context cancelled by the stop.
var ErrStopped = errors.New("emergency stop")

// Status is session-status's emergencyStop.
type Status struct {
	State string `json:"state"`
	// Since is when the state began (the stop, the re-arm, or the server's start).
	Since time.Time `json:"since"`
	// How is what stopped or re-armed it ("hotkey", "control socket").
	How string `json:"how,omitempty"`
	// Hotkey is the configured chord.
	Hotkey string `json:"hotkey,omitempty"`
	// Detail says why the hotkey is unavailable.
	Detail string `json:"detail,omitempty"`
}

// Options configure a Latch.
type Options struct {
	// OnTrip runs the server's clean-up after a trip, on its own goroutine (the latch already
	// refuses calls and has cancelled the gestures when it runs).
	OnTrip func(how string)
	// OnRearm runs after a re-arm (the trace records it); on the caller's goroutine.
	OnRearm func(how string)
	Log     *slog.Logger
	// Now is the clock (tests); time.Now when nil.
	Now func() time.Time
}

// Latch is the stop's state. It is safe for concurrent use.
type Latch struct {
	opts Options
	log  *slog.Logger

	mu        sync.Mutex
	stopped   bool
	since     time.Time
	how       string
	hotkey    string
	hotkeyErr string // why the hotkey cannot be read; "" when it can
	// gestures cancel the input gestures in progress; Trip calls them before it returns, so
	// no gesture outlives the stop by even a scheduling delay.
	gestures map[uint64]context.CancelCauseFunc
	nextID   uint64
	confirm  time.Time // a re-arming press waits for its confirmation since then
	tripDone chan struct{}
}

// New returns an armed latch whose hotkey is not (yet) listening: SetHotkey says when it is.
func New(o Options) *Latch {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	l := &Latch{opts: o, log: o.Log, since: o.Now(), hotkeyErr: "the hotkey listener has not started"}
	l.gestures = map[uint64]context.CancelCauseFunc{}
	done := make(chan struct{})
	close(done)
	l.tripDone = done
	return l
}

// SetHotkey records whether the hotkey is being read (why = "") or why not.
func (l *Latch) SetHotkey(spec, why string) {
	l.mu.Lock()
	l.hotkey, l.hotkeyErr = spec, why
	l.mu.Unlock()
}

// Trip stops everything: from now on Err is emergency-stopped, gesture contexts are cancelled,
// and OnTrip runs. The channel closes when OnTrip has finished. Tripping a stopped latch does
// nothing (the channel is the first trip's).
func (l *Latch) Trip(how string) <-chan struct{} {
	l.mu.Lock()
	if l.stopped {
		done := l.tripDone
		l.mu.Unlock()
		return done
	}
	l.stopped, l.since, l.how, l.confirm = true, l.opts.Now(), how, time.Time{}
	for _, cancel := range l.gestures {
		cancel(ErrStopped)
	}
	done := make(chan struct{})
	l.tripDone = done
	l.mu.Unlock()
	l.log.Warn("EMERGENCY STOP: every tool call is refused until the operator re-arms (mcec rearm)", "how", how)
	go func() {
		defer close(done)
		if l.opts.OnTrip != nil {
			l.opts.OnTrip(how)
		}
	}()
	return done
}

// Rearm restores service and reports whether the latch was stopped. Only operator paths call
// it (the control socket, the hotkey's confirmation); no tool can reach it.
func (l *Latch) Rearm(how string) bool {
	l.mu.Lock()
	if !l.stopped {
		l.mu.Unlock()
		return false
	}
	l.stopped, l.since, l.how, l.confirm = false, l.opts.Now(), how, time.Time{}
	l.mu.Unlock()
	l.log.Warn("emergency stop re-armed: tool calls are served again", "how", how)
	if l.opts.OnRearm != nil {
		l.opts.OnRearm(how)
	}
	return true
}

// Chord handles a press of the hotkey by a physical keyboard: it stops an armed latch; on a
// stopped one it opens, then confirms, a re-arm.
func (l *Latch) Chord() {
	l.mu.Lock()
	if !l.stopped {
		l.mu.Unlock()
		l.Trip(ByHotkey)
		return
	}
	now := l.opts.Now()
	switch {
	case now.Sub(l.since) < MinRearmDelay:
		l.mu.Unlock()
		l.log.Info("emergency stop: hotkey pressed again right after the stop; ignored")
		return
	case !l.confirm.IsZero() && now.Sub(l.confirm) <= ConfirmWindow:
		l.mu.Unlock()
		l.Rearm(ByHotkey)
		return
	}
	l.confirm = now
	l.mu.Unlock()
	l.log.Warn("emergency stop: press the hotkey once more within 3 s to re-arm")
}

// Stopped reports whether the latch is tripped.
func (l *Latch) Stopped() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stopped
}

// Err is the emergency-stopped refusal while stopped, nil while armed.
func (l *Latch) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.stopped {
		return nil
	}
	return contract.Errorf(contract.CodeEmergencyStopped,
		"the operator's emergency stop fired at %s (by %s): every tool is refused until the operator re-arms it; do not retry — tell the user",
		l.since.Format(time.RFC3339), l.how)
}

// statusTool is served while stopped, so the agent can read when and how the stop fired.
const statusTool = "session-status"

// Check is the dispatcher's check: every tool but session-status is refused while stopped.
func (l *Latch) Check(tool string) error {
	if tool == statusTool {
		return nil
	}
	return l.Err()
}

// Gesture derives the context an input gesture runs under: it is cancelled, with cause
// ErrStopped, when the latch trips (at once when it is already stopped). cancel must be called.
func (l *Latch) Gesture(ctx context.Context) (context.Context, context.CancelFunc) {
	gctx, cancel := context.WithCancelCause(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		cancel(ErrStopped)
		return gctx, func() { cancel(context.Canceled) }
	}
	l.nextID++
	id := l.nextID
	l.gestures[id] = cancel
	return gctx, func() {
		l.mu.Lock()
		delete(l.gestures, id)
		l.mu.Unlock()
		cancel(context.Canceled)
	}
}

// Status reports the state for session-status.
func (l *Latch) Status() Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := Status{State: Armed, Since: l.since.UTC(), How: l.how, Hotkey: l.hotkey}
	switch {
	case l.stopped:
		s.State = Stopped
	case l.hotkeyErr != "":
		s.State, s.Detail = Unavailable, l.hotkeyErr
	}
	return s
}
