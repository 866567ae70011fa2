package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcec/mcec/internal/estop"
	"github.com/mcec/mcec/internal/evidence"
	"github.com/mcec/mcec/internal/safety"
	"github.com/mcec/mcec/internal/takeover"
)

// Emergency stop wiring (internal/estop): the latch exists before the tools (their gestures
// run under its context), refuses calls as the dispatcher's first check and raw commands at
// submission, and is tripped by the hotkey listener or the control socket.

// cleanupLimit bounds waiting for the gesture in progress to let go of the input gate.
const cleanupLimit = 5 * time.Second

// newEmergencyStop builds the latch; its clean-up reaches the parts built after it.
func (d *Daemon) newEmergencyStop() *estop.Latch {
	return estop.New(estop.Options{Log: d.log, OnTrip: d.emergencyCleanup,
		OnRearm: func(how string) { d.recordOperator(evidence.EventRearm, how) }})
}

// recordOperator writes what the operator did into the live sessions' traces.
func (d *Daemon) recordOperator(event, how string) {
	if d.Evidence != nil {
		d.Evidence.Operator(event, how)
	}
}

// emergencyCleanup runs after a trip: the latch already refuses calls and has cancelled the
// gestures in progress (which release what they pressed as they abort).
func (d *Daemon) emergencyCleanup(how string) {
	d.recordOperator(evidence.EventStop, how)
	dropped := 0
	if d.Commands != nil {
		dropped = d.Commands.Drop("the operator's emergency stop fired") // also releases held keys and buttons
	}
	discarded := d.recordings != nil && d.recordings.Discard()
	var held []string
	if d.Takeover != nil && d.Takeover.Status().Holder == takeover.Operator {
		// The operator has control and holds the gate, so no agent gesture is running; the
		// gate is not waited for (that would take cleanupLimit). Control stays theirs.
	} else if d.Gate != nil && d.Desktop != nil {
		ctx, cancel := context.WithTimeout(context.Background(), cleanupLimit)
		if h, err := d.Gate.Cleanup(ctx); err == nil {
			held, _ = h.Input().Held(ctx)
			h.Release()
		} else {
			d.log.Warn("emergency stop: the input gate stayed busy", "err", err)
		}
		cancel()
	}
	// What is still down now is the operator's own keys (the chord itself); mcec's are released.
	d.log.Warn("emergency stop: queue dropped, gestures aborted", "how", how, "droppedCommands", dropped,
		"discardedRecording", discarded, "stillHeld", held)
}

// wireEmergencyStop registers the control operations and starts the hotkey
// listener on the desktop's display. A listener that cannot start leaves the stop
// "unavailable" (control socket only); a malformed hotkey is a configuration error.
func (d *Daemon) wireEmergencyStop(ctx context.Context, cfg safety.EmergencyStop, display string, physicalTakeover bool) error {
	spec := cfg.Hotkey
	if spec == "" {
		spec = estop.DefaultHotkey
	}
	hk, err := estop.ParseHotkey(spec)
	if err != nil {
		return fmt.Errorf("config.toml [emergency_stop] %w", err)
	}
	d.Control.Handle("rearm", func(ctx context.Context, _ json.RawMessage) (any, error) {
		was := d.Stop.Rearm(estop.ByControlSocket)
		return StopAnswer{Rearmed: was, Status: d.Stop.Status()}, nil
	})
	d.Control.Handle("emergency-stop", func(ctx context.Context, _ json.RawMessage) (any, error) {
		select {
		case <-d.Stop.Trip(estop.ByControlSocket):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return StopAnswer{Status: d.Stop.Status()}, nil
	})
	if display == "" { // a given backend (Config.Desktop): no display to listen on
		d.Stop.SetHotkey(hk.String(), "no X display: the backend was given, not a desktop")
		return nil
	}
	if cfg.HotkeyDisabled {
		d.Stop.SetHotkey(hk.String(), "the hotkey is disabled in config.toml ([emergency_stop] enabled = false)")
		return nil
	}
	ls, err := estop.Listen(ctx, display, hk, d.Stop, d.log)
	if err != nil {
		d.log.Warn("emergency stop hotkey unavailable; stop with `mcec emergency-stop`, re-arm with `mcec rearm`", "err", err)
		return nil
	}
	d.stopListener = ls
	d.log.Info("emergency stop armed", "hotkey", hk.String())
	if physicalTakeover {
		ls.OnPhysicalInput(func() {
			// A press while a consent question is open answers it (the on-screen dialog): that
			// person is answering mcec, not taking the desktop.
			if !d.Consent.Pending() {
				d.Takeover.PhysicalInput()
			}
		})
		d.log.Info("physical input takes control from the agents", "idle", takeover.PhysicalIdle)
	}
	return nil
}

// StopAnswer answers the control operations rearm and emergency-stop (mcec rearm and mcec
// emergency-stop decode it).
type StopAnswer struct {
	Rearmed bool         `json:"rearmed"`
	Status  estop.Status `json:"emergencyStop"`
}
