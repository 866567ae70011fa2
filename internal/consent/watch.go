package consent

import "context"

// Prompter is what a prompter running inside mcec (the on-screen dialog) uses of the broker:
// the same operations `mcec consent` reaches over the control socket, and WaitClosed to take
// its question down when it is answered elsewhere, times out, or is withdrawn.
type Prompter interface {
	Next(ctx context.Context, after string) (Question, error)
	Answer(id string, a Answer) error
	WaitClosed(ctx context.Context, id string) error
}

// WaitClosed blocks until question id is no longer open to answers (answered by any prompter,
// timed out, or withdrawn), or ctx ends.
func (b *Broker) WaitClosed(ctx context.Context, id string) error {
	b.mu.Lock()
	for {
		p := b.pending
		if p == nil || p.q.ID != id || p.answered {
			b.mu.Unlock()
			return nil
		}
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
		b.mu.Lock()
	}
}
