package wlclient

import (
	"context"

	"github.com/mcec/mcec/internal/wayland/wire"
)

// Toplevel is one application window as wlr-foreign-toplevel describes it: no pid and no
// geometry, but its title, application id and the window it is a child of (a dialog's parent),
// which sway's IPC does not tell for Wayland windows.
type Toplevel struct {
	ID     uint32 // the handle's object id, stable while the window lives
	Title  string
	AppID  string
	Parent uint32 // the parent's ID, 0 when none
}

func (cl *Client) toplevelsEvent(op uint16, m *wire.Message) {
	if op != toplevelManagerToplevel {
		return
	}
	id := m.Uint()
	t := &Toplevel{ID: id}
	cl.mu.Lock()
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
		case toplevelClosed:
			delete(cl.tops, id)
			_ = cl.c.Send(id, toplevelDestroy)
			cl.c.Forget(id)
		}
	})
}

// Toplevels lists the application windows the compositor announced, as of a round trip now;
// ErrUnsupported without wlr-foreign-toplevel.
func (cl *Client) Toplevels(ctx context.Context) ([]Toplevel, error) {
	if _, err := cl.need(ifToplevels); err != nil {
		return nil, err
	}
	if err := cl.c.Roundtrip(ctx); err != nil {
		return nil, err
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	out := make([]Toplevel, 0, len(cl.tops))
	for _, t := range cl.tops {
		out = append(out, *t)
	}
	return out, nil
}
