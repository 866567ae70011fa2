package consent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcec/mcec/internal/control"
)

// Control socket operations (internal/control): the operator's prompter waits with NextOp and
// answers with AnswerOp. Agents have no route to them.
const (
	NextOp   = "consent.next"
	AnswerOp = "consent.answer"
	// WaitClosedOp returns once the question is no longer open (answered by any prompter,
	// timed out, withdrawn), so a terminal can take it down when the dialog answered first.
	WaitClosedOp = "consent.wait-closed"
)

// WaitClosedArgs names the question WaitClosedOp waits for.
type WaitClosedArgs struct {
	ID string `json:"id"`
}

// NextArgs asks for the next open question other than After (the last one the prompter showed).
type NextArgs struct {
	After string `json:"after,omitempty"`
}

// AnswerArgs answers question ID.
type AnswerArgs struct {
	ID     string `json:"id"`
	Answer Answer `json:"answer"`
}

// Serve registers the prompter operations on the control socket.
func (b *Broker) Serve(srv *control.Server) {
	srv.Handle(NextOp, func(ctx context.Context, raw json.RawMessage) (any, error) {
		var a NextArgs
		if err := decode(raw, &a); err != nil {
			return nil, err
		}
		return b.Next(ctx, a.After)
	})
	srv.Handle(WaitClosedOp, func(ctx context.Context, raw json.RawMessage) (any, error) {
		var a WaitClosedArgs
		if err := decode(raw, &a); err != nil {
			return nil, err
		}
		if err := b.WaitClosed(ctx, a.ID); err != nil {
			return nil, err
		}
		return struct {
			Closed bool `json:"closed"`
		}{true}, nil
	})
	srv.Handle(AnswerOp, func(_ context.Context, raw json.RawMessage) (any, error) {
		var a AnswerArgs
		if err := decode(raw, &a); err != nil {
			return nil, err
		}
		if err := b.Answer(a.ID, a.Answer); err != nil {
			return nil, err
		}
		return struct {
			Applied bool `json:"applied"`
		}{true}, nil
	})
}

func decode(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("bad arguments: %w", err)
	}
	return nil
}
