package bench

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

func (s *suite) benchAct() error {
	app, err := s.startApp()
	if err != nil {
		return err
	}
	s.app = app
	click := map[string]any{"window": "mcec test app", "at": map[string]any{"name": "Apply"}}
	var at [2]int
	ours, err := measure(s.opt.Warm, s.opt.Reps, timed(func() error {
		ctx, cancel := s.callCtx()
		defer cancel()
		var err error
		at, err = clickSeen(ctx, s.stdio, click)
		return err
	}))
	if err != nil {
		return err
	}
	x, y := strconv.Itoa(at[0]), strconv.Itoa(at[1])
	theirs, err := measure(s.opt.Warm, s.opt.Reps, timed(func() error {
		ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
		defer cancel()
		return run(ctx, s.env, "xdotool", "mousemove", x, y, "click", "1")
	}))
	if err != nil {
		return err
	}
	s.add(ratioRow("`click` on an element by name (finds it, raises the window, waits for its effect: a label counts the clicks), stdio MCP",
		"`xdotool mousemove X Y click 1` (coordinates known)", ours.median(), theirs.median(), 0, ""))

	// Typing goes to the entry, focused by a click.
	ctx, cancel := s.callCtx()
	defer cancel()
	if err := callOK(ctx, s.stdio, "click", map[string]any{"window": "mcec test app", "at": map[string]any{"role": "text"}}, nil); err != nil {
		return err
	}
	text := strings.Repeat("abcdefghij", 4)
	ours, err = measure(s.opt.Warm, s.opt.Reps, timed(func() error {
		ctx, cancel := s.callCtx()
		defer cancel()
		return callOK(ctx, s.stdio, "send_command", map[string]any{"command": "chars:" + text}, nil)
	}))
	if err != nil {
		return err
	}
	theirs, err = measure(s.opt.Warm, s.opt.Reps, timed(func() error {
		ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
		defer cancel()
		return run(ctx, s.env, "xdotool", "type", text)
	}))
	if err != nil {
		return err
	}
	s.add(ratioRow(fmt.Sprintf("`send_command` `chars:` %d characters, stdio MCP", len(text)),
		"`xdotool type` (its default 12 ms between keys)", ours.median(), theirs.median(), 0, ""))
	return nil
}

// clickSeen clicks and fails unless the click's effect was observed: a click whose effect does
// not show waits the whole settle time, and the row would measure that wait, not the click.
func clickSeen(ctx context.Context, c caller, args map[string]any) (at [2]int, err error) {
	var res struct {
		At     [2]int         `json:"at"`
		Effect map[string]any `json:"effect"`
	}
	if err := callOK(ctx, c, "click", args, &res); err != nil {
		return at, err
	}
	for k := range res.Effect {
		if k != "settledMs" && k != "settled" && k != "appEvents" {
			return res.At, nil
		}
	}
	return res.At, fmt.Errorf("click %v: no effect observed: %v", args["at"], res.Effect)
}
