package atspi

import (
	"context"
	"errors"
	"testing"
)

// TestFirstFailure: a batch answers with the failure that ended it, not the cancellation the
// other half stopped on; the caller's own cancellation stays a cancellation.
func TestFirstFailure(t *testing.T) {
	real := errors.New("window closed")
	live := context.Background()
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tt := range []struct {
		name   string
		parent context.Context
		a, b   error
		want   error
	}{
		{"none", live, nil, nil, nil},
		{"calls failed", live, real, nil, real},
		{"jobs failed", live, nil, real, real},
		{"jobs failed, calls cut short", live, context.Canceled, real, real},
		{"calls failed, jobs cut short", live, real, context.Canceled, real},
		{"the caller cancelled", gone, context.Canceled, context.Canceled, context.Canceled},
		{"the caller cancelled while jobs failed", gone, context.Canceled, real, context.Canceled},
	} {
		if got := firstFailure(tt.parent, tt.a, tt.b); !errors.Is(got, tt.want) || (tt.want == nil) != (got == nil) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
