// Package screen is the consent prompter on an attached desktop: each question the broker opens
// appears as mcec's own dialog window on the operator's display, next to any `mcec consent`
// terminal; the first answer wins and the other prompter's question is withdrawn.
//
// Only a physical press counts. The dialog reads XInput2 device events, which name the device
// that produced each press, and ignores every press from an XTEST device — mcec's own
// synthesized input, xdotool, any client faking input — as well as core and SendEvent events.
// Presses count only after ArmDelay, so a key the operator was typing elsewhere when the dialog
// took the focus does not answer it. The window carries mcec's pid and class, so no tool lists
// or targets it (xgbext.OwnClass).
//
// It runs only where someone can see it: mcec's private headless desktop has no operator in
// front of it, so the daemon does not start it there.
package screen

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/consent"
)

// DefaultArmDelay is how long a new dialog ignores presses.
const DefaultArmDelay = time.Second

// retryEvery is how often a prompter whose display could not show a dialog tries again. Until
// then it does not wait for questions, so it does not make consent available.
const retryEvery = 30 * time.Second

// Options configure Run.
type Options struct {
	Display  string
	Broker   consent.Prompter
	Log      *slog.Logger
	ArmDelay time.Duration // 0: DefaultArmDelay
}

// Run shows every question on the display until ctx ends. While it waits for questions it makes
// consent available; when the display cannot show a dialog it logs a warning and stays away
// (the terminal prompter still works) until a later check succeeds.
func Run(ctx context.Context, o Options) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.ArmDelay <= 0 {
		o.ArmDelay = DefaultArmDelay
	}
	warned, last := false, ""
	for ctx.Err() == nil {
		if err := probe(ctx, o.Display); err != nil {
			if ctx.Err() != nil {
				return
			}
			if !warned {
				o.Log.Warn("consent: cannot show the on-screen prompt on this display; only `mcec consent` can answer", "display", o.Display, "err", err)
				warned = true
			}
			if !wait(ctx, retryEvery) {
				return
			}
			continue
		}
		if warned {
			o.Log.Info("consent: the on-screen prompt works again", "display", o.Display)
			warned = false
		}
		err := serve(ctx, o, &last)
		if ctx.Err() != nil {
			return
		}
		// The failed question (last) is not taken again; it stays open for `mcec consent`.
		o.Log.Warn("consent: the on-screen prompt failed; the question stays open for `mcec consent`", "err", err)
		warned = true
		if !wait(ctx, retryEvery) {
			return
		}
	}
}

// serve takes questions one after another until a dialog fails or ctx ends; last is the ID of
// the last question taken.
func serve(ctx context.Context, o Options, last *string) error {
	for {
		q, err := o.Broker.Next(ctx, *last)
		if err != nil {
			return err
		}
		*last = q.ID
		if err := show(ctx, o, q); err != nil {
			return err
		}
	}
}

func wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// probe checks the display can show a dialog.
func probe(ctx context.Context, display string) error {
	c, err := connect(ctx, display)
	if err != nil {
		return err
	}
	c.close()
	return nil
}

// show puts q on screen until it is answered (here or elsewhere), times out, or ctx ends.
func show(ctx context.Context, o Options, q consent.Question) error {
	d, err := open(ctx, o.Display, q, o.Log)
	if err != nil {
		return err
	}
	defer d.close()
	o.Log.Info("consent: on-screen prompt shown", "id", q.ID)
	closed := make(chan struct{})
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		_ = o.Broker.WaitClosed(wctx, q.ID)
		close(closed)
	}()
	var arm <-chan time.Time
	armed := false
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-closed:
			o.Log.Info("consent: on-screen prompt withdrawn (answered elsewhere, timed out or withdrawn)", "id", q.ID)
			return nil
		case ev, ok := <-d.core:
			if !ok {
				return errors.New("lost the X connection of the consent dialog")
			}
			switch ev := ev.(type) {
			case xproto.ExposeEvent:
				if ev.Count == 0 {
					if err := d.paint(armed); err != nil {
						return err
					}
				}
			case xproto.MapNotifyEvent:
				if arm == nil && !armed {
					arm = time.After(o.ArmDelay)
					if err := d.focus(); err != nil {
						return err
					}
				}
			}
		case <-arm:
			arm, armed = nil, true
			if err := d.paint(true); err != nil {
				return err
			}
			if err := d.setState("armed"); err != nil {
				return err
			}
		case p := <-d.press:
			if !armed {
				continue
			}
			err := o.Broker.Answer(q.ID, p.answer)
			o.Log.Warn("consent: answered on screen", "id", q.ID, "answer", string(p.answer), "device", p.device, "applied", err == nil)
			return nil
		}
	}
}
