package wlclient

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"slices"

	"github.com/mcec/mcec/internal/wayland/wire"
)

// Toplevel is one application window as wlr-foreign-toplevel describes it: no pid and no
// geometry, but its title, application id, state, outputs and the window it is a child of (a
// dialog's parent), which sway's IPC does not tell for Wayland windows.
type Toplevel struct {
	// ID is the handle's object id: stable while the window lives, but the compositor may give
	// it to a window that opens later.
	ID uint32
	// Seq numbers the windows in the order the compositor announced them: never reused while
	// this client lives, it is what a window is called across calls.
	Seq    uint32
	Title  string
	AppID  string
	Parent uint32 // the parent's ID, 0 when none

	Maximized, Minimized, Activated, Fullscreen bool
	// Outputs names the outputs the window is on (any part of it).
	Outputs []string
	// Focus orders the windows by when they last became active (0: never since mcec connected):
	// the nearest to a stacking order the protocol gives.
	Focus uint64

	outputs []uint32 // the wl_output objects of output_enter
	done    bool     // a done event closed its first description
}

// ErrToplevelGone is the failure of a request to a window that closed.
var ErrToplevelGone = errors.New("wayland: the window is gone")

func (cl *Client) toplevelsEvent(op uint16, m *wire.Message) {
	if op != toplevelManagerToplevel {
		return
	}
	id := m.Uint()
	cl.mu.Lock()
	cl.topSeq++
	t := &Toplevel{ID: id, Seq: cl.topSeq}
	cl.tops[id] = t
	cl.mu.Unlock()
	cl.c.Handle(id, func(op uint16, m *wire.Message) {
		cl.mu.Lock()
		defer cl.mu.Unlock()
		switch op {
		case toplevelTitle:
			t.Title = m.String()
		case toplevelAppID:
			t.AppID = m.String()
		case toplevelParent:
			t.Parent = m.Uint()
		case toplevelOutputEnter:
			if o := m.Uint(); !slices.Contains(t.outputs, o) {
				t.outputs = append(t.outputs, o)
			}
		case toplevelOutputLeave:
			o := m.Uint()
			t.outputs = slices.DeleteFunc(t.outputs, func(x uint32) bool { return x == o })
		case toplevelState:
			was := t.Activated
			t.Maximized, t.Minimized, t.Activated, t.Fullscreen = false, false, false, false
			defer func() {
				if t.Activated && !was {
					cl.topFocus++
					t.Focus = cl.topFocus
				}
			}()
			b := m.Array()
			for i := 0; i+4 <= len(b); i += 4 {
				switch binary.LittleEndian.Uint32(b[i:]) {
				case toplevelStateMaximized:
					t.Maximized = true
				case toplevelStateMinimized:
					t.Minimized = true
				case toplevelStateActivated:
					t.Activated = true
				case toplevelStateFullscreen:
					t.Fullscreen = true
				}
			}
		case toplevelDone:
			t.done = true
			cl.notifyToplevelsLocked()
		case toplevelClosed:
			delete(cl.tops, id)
			_ = cl.c.Send(id, toplevelDestroy)
			cl.c.Forget(id)
			cl.notifyToplevelsLocked()
		}
	})
}

// notifyToplevelsLocked wakes every watcher of the windows; cl.mu is held.
func (cl *Client) notifyToplevelsLocked() {
	for ch := range cl.topWatchers {
		select {
		case ch <- struct{}{}:
		default: // a wake-up is pending already
		}
	}
}

// Toplevels lists the application windows the compositor announced and described, as of a round
// trip now, in the order it announced them; ErrUnsupported without wlr-foreign-toplevel.
func (cl *Client) Toplevels(ctx context.Context) ([]Toplevel, error) {
	if _, err := cl.need(ifToplevels); err != nil {
		return nil, err
	}
	if err := cl.c.Roundtrip(ctx); err != nil {
		return nil, err
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	names := make(map[uint32]string, len(cl.outputs))
	for _, o := range cl.outputs {
		names[o.id] = o.Name
	}
	out := make([]Toplevel, 0, len(cl.tops))
	for _, t := range cl.tops {
		if !t.done {
			continue // announced, not yet described
		}
		c := *t
		c.Outputs, c.outputs = nil, nil
		for _, o := range t.outputs {
			if n, ok := names[o]; ok {
				c.Outputs = append(c.Outputs, n)
			}
		}
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b Toplevel) int { return cmp.Compare(a.Seq, b.Seq) })
	return out, nil
}

// WatchToplevels wakes the returned channel after each change of the windows (a new one, a
// described change, a closed one), coalesced: one value per burst, until ctx ends and it closes.
func (cl *Client) WatchToplevels(ctx context.Context) (<-chan struct{}, error) {
	if _, err := cl.need(ifToplevels); err != nil {
		return nil, err
	}
	ch := make(chan struct{}, 1)
	cl.mu.Lock()
	if cl.topWatchers == nil {
		cl.topWatchers = map[chan struct{}]struct{}{}
	}
	cl.topWatchers[ch] = struct{}{}
	cl.mu.Unlock()
	out := make(chan struct{}, 1)
	go func() {
		defer close(out)
		defer func() {
			cl.mu.Lock()
			delete(cl.topWatchers, ch)
			cl.mu.Unlock()
		}()
		for {
			select {
			case <-ctx.Done():
				return
			case <-cl.c.Done():
				return
			case <-ch:
			}
			select {
			case out <- struct{}{}:
			default:
			}
		}
	}()
	return out, nil
}

// ToplevelRequest is what a client may ask of another client's window.
type ToplevelRequest int

// The requests of wlr-foreign-toplevel mcec makes. The compositor may ignore any of them (sway
// 1.7 has no minimized or maximized state of its own): only the state events say what it did.
const (
	RequestActivate ToplevelRequest = iota
	RequestClose
	RequestMaximize
	RequestUnmaximize
	RequestMinimize
	RequestUnminimize
	RequestFullscreen
	RequestUnfullscreen
)

// RequestToplevel sends req to the window numbered seq; ErrToplevelGone when it has closed.
func (cl *Client) RequestToplevel(seq uint32, req ToplevelRequest) error {
	cl.mu.Lock()
	var id uint32
	for _, t := range cl.tops {
		if t.Seq == seq {
			id = t.ID
		}
	}
	cl.mu.Unlock()
	if id == 0 {
		return ErrToplevelGone
	}
	switch req {
	case RequestActivate:
		seat, err := cl.need(ifSeat)
		if err != nil {
			return err
		}
		return cl.c.Send(id, toplevelActivate, wire.Object(seat))
	case RequestClose:
		return cl.c.Send(id, toplevelClose)
	case RequestMaximize:
		return cl.c.Send(id, toplevelSetMaximized)
	case RequestUnmaximize:
		return cl.c.Send(id, toplevelUnsetMaximized)
	case RequestMinimize:
		return cl.c.Send(id, toplevelSetMinimized)
	case RequestUnminimize:
		return cl.c.Send(id, toplevelUnsetMinimized)
	case RequestFullscreen:
		return cl.c.Send(id, toplevelSetFullscreen, wire.Object(0))
	case RequestUnfullscreen:
		return cl.c.Send(id, toplevelUnsetFullscreen)
	}
	return errors.New("wayland: unknown window request")
}
