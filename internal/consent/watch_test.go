package consent

import (
	"context"
	"errors"
	"testing"
	"time"
)

// WaitClosed returns once the question is answered by another prompter, or times out; a second
// prompter's answer to it is then ErrClosed.
func TestWaitClosed(t *testing.T) {
	for _, tt := range []struct {
		name    string
		timeout time.Duration
		answer  bool
	}{
		{"answered elsewhere", 20 * time.Second, true},
		{"timed out", 300 * time.Millisecond, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, _, _ := newBroker(tt.timeout)
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			qs := make(chan Question, 1)
			go func() {
				if q, err := b.Next(ctx, ""); err == nil {
					qs <- q
				}
			}()
			waitPrompter(t, b)
			done := make(chan error, 1)
			go func() { _, err := b.Request(ctx, []string{"launch"}, "why", "s"); done <- err }()
			q := <-qs
			closed := make(chan error, 1)
			go func() { closed <- b.WaitClosed(ctx, q.ID) }()
			if tt.answer {
				if err := b.Answer(q.ID, Grant); err != nil {
					t.Fatal(err)
				}
			}
			if err := <-closed; err != nil {
				t.Fatalf("WaitClosed: %v", err)
			}
			if err := b.Answer(q.ID, Deny); !errors.Is(err, ErrClosed) {
				t.Errorf("a second answer: %v", err)
			}
			if err := <-done; (err == nil) != tt.answer {
				t.Errorf("request: %v", err)
			}
		})
	}
	// A question that is not open is closed already.
	b, _, _ := newBroker(time.Second)
	if err := b.WaitClosed(context.Background(), "c9"); err != nil {
		t.Error(err)
	}
}
