package bench

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"time"
)

var dialog = map[string]any{"window": "mcec test dialog", "element": map[string]any{"name": "Close"}}

// reaction measures one reaction: the watcher runs from before the change; the change (a dialog
// opening) is triggered after a random lead of 100–600 ms, so a polling loop meets it at a random
// phase; the latency is from the trigger to the watcher returning. The dialog is closed
// afterwards, outside the measurement.
func (s *suite) reaction(watch func() error) (time.Duration, error) {
	done := make(chan error, 1)
	var end time.Time
	go func() {
		err := watch()
		end = time.Now()
		done <- err
	}()
	lead := 100*time.Millisecond + rand.N(500*time.Millisecond)
	select {
	case err := <-done:
		return 0, fmt.Errorf("the watcher returned before the change: %v", err)
	case <-time.After(lead): // the moment of the change is what is being randomised
	}
	start := time.Now()
	if err := s.app.send("dialog"); err != nil {
		return 0, err
	}
	if err := <-done; err != nil {
		return 0, err
	}
	latency := end.Sub(start)
	if err := s.app.send("close"); err != nil {
		return 0, err
	}
	ctx, cancel := s.callCtx()
	defer cancel()
	var res struct {
		Satisfied bool `json:"satisfied"`
	}
	if err := callOK(ctx, s.stdio, "windows", map[string]any{"window": "mcec test dialog", "condition": "disappears", "timeout": 10000}, &res); err != nil {
		return 0, err
	}
	if !res.Satisfied {
		return 0, fmt.Errorf("the dialog did not close")
	}
	return latency, nil
}

// poller is what a client without events does: one find, then sleep, until found.
func (s *suite) poller(every time.Duration) func() error {
	return func() error {
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			ctx, cancel := s.callCtx()
			var res struct {
				Found bool `json:"found"`
			}
			env, err := s.stdio.call(ctx, "find", dialog)
			cancel()
			if err != nil {
				return err
			}
			// Before the dialog exists the window target fails (window-not-found): not found yet.
			if env.OK {
				if err := json.Unmarshal(env.Result, &res); err != nil {
					return err
				}
				if res.Found {
					return nil
				}
			}
			time.Sleep(every) // the polling interval is the thing being measured
		}
		return fmt.Errorf("polling every %v: the dialog never appeared", every)
	}
}

func (s *suite) benchWait() error {
	waitFor := func() error {
		ctx, cancel := s.callCtx()
		defer cancel()
		args := map[string]any{"timeout": 10000}
		maps.Copy(args, dialog)
		return callOK(ctx, s.stdio, "wait-for", args, nil)
	}
	ours, err := measure(s.opt.Warm, s.opt.Reps, func() (time.Duration, error) { return s.reaction(waitFor) })
	if err != nil {
		return fmt.Errorf("wait-for: %w", err)
	}
	poll100, err := measure(s.opt.Warm, s.opt.Reps, func() (time.Duration, error) { return s.reaction(s.poller(100 * time.Millisecond)) })
	if err != nil {
		return fmt.Errorf("100 ms polling: %w", err)
	}
	poll500, err := measure(1, s.opt.Reps, func() (time.Duration, error) { return s.reaction(s.poller(500 * time.Millisecond)) })
	if err != nil {
		return fmt.Errorf("0.5 s back-off: %w", err)
	}
	what := "`wait-for` element appears (dialog opened via stdin), reaction latency p50"
	r := ratioRow(what, "100 ms polling loop of `find`", ours.median(), poll100.median(), 0, "")
	r.Comments = fmt.Sprintf("p90 %s vs %s", ms(ours.percentile(90)), ms(poll100.percentile(90)))
	s.add(r)
	r = ratioRow(what, "dogtail's default 0.5 s back-off (loop of `find`)", ours.median(), poll500.median(), 20, "")
	s.add(r)
	s.add(targetRow(what, ours.median(), 20*time.Millisecond))
	return nil
}

// targetRow compares a duration with the absolute target (at most limit).
func targetRow(what string, got, limit time.Duration) row {
	return row{What: what, Mcec: ms(got), Against: "target", Ref: ms(limit),
		Ratio: float64(limit) / float64(got), Target: "< " + ms(limit), Met: ptr(got < limit)}
}
