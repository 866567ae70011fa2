package xgbext

import (
	"context"
	"testing"
	"time"
)

func TestDialFailsWithoutHanging(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for name, ctx := range map[string]context.Context{"no such display": context.Background(), "ended context": cancelled} {
		done := make(chan error, 1)
		go func() {
			c, err := Dial(ctx, ":31999")
			if c != nil {
				c.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s: connected to a display that does not exist", name)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Dial did not return", name)
		}
	}
}
