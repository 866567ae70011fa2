package errmap_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/errmap"
	"github.com/mcec/mcec/internal/platform"
)

func TestToContract(t *testing.T) {
	shared := contract.Errorf(contract.CodeWindowClosed, "gone")
	cases := []struct {
		name   string
		err    error
		d      errmap.Deadlines
		code   contract.Code
		detail string
	}{
		{"a contract error passes", fmt.Errorf("wrapped: %w", shared), errmap.Tools, contract.CodeWindowClosed, "gone"},
		{"a platform sentinel", fmt.Errorf("%w: handle 7", platform.ErrWindowClosed), errmap.Tools, contract.CodeWindowClosed, "window closed: handle 7"},
		{"a hung app", fmt.Errorf("%w: pid 9", platform.ErrAppNotResponding), errmap.RawCommands, contract.CodeAppNotResponding, "application not responding: pid 9"},
		{"an impossible gesture names the reason alone", fmt.Errorf("%w: point (9999,5) is off the screen", platform.ErrUnsupported),
			errmap.Tools, contract.CodeBadArguments, "point (9999,5) is off the screen"},
		{"a tool's deadline", fmt.Errorf("reading: %w", context.DeadlineExceeded), errmap.Tools, contract.CodeAppNotResponding, "reading: context deadline exceeded"},
		{"a raw command's deadline", context.DeadlineExceeded, errmap.RawCommands, contract.CodeSendCommandTimeout, "context deadline exceeded"},
		{"a raw command dropped", context.Canceled, errmap.RawCommands, contract.CodeCommandDropped, "context canceled"},
		{"a tool cancelled is not a code of its own", context.Canceled, errmap.Tools, contract.CodeUnhandledException, "context canceled"},
		{"a callers' sentinel without a code", platform.ErrActionFailed, errmap.Tools, contract.CodeUnhandledException, "action failed"},
		{"anything else", errors.New("boom"), errmap.Tools, contract.CodeUnhandledException, "boom"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := errmap.ToContract(c.err, c.d)
			if got == nil || got.Code != c.code || got.Detail != c.detail {
				t.Fatalf("got %+v, want %s %q", got, c.code, c.detail)
			}
			if want, _ := contract.CategoryOf(c.code); got.Category != want {
				t.Errorf("category %s for %s", got.Category, c.code)
			}
		})
	}
	if errmap.ToContract(nil, errmap.Tools) != nil {
		t.Error("nil must stay nil")
	}
	c := errmap.ToContract(shared, errmap.Tools)
	c.Detail = "changed"
	if shared.Detail != "gone" {
		t.Error("the mapped error shares the original")
	}
}
