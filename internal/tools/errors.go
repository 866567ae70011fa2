package tools

import (
	"context"
	"errors"
	"strings"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/platform"
)

// platformError maps a backend error onto the contract: the one place where platform sentinels
// become codes. A contract error passes through unchanged.
func platformError(err error) error {
	var ce *contract.Error
	if errors.As(err, &ce) {
		return err
	}
	code := contract.CodeUnhandledException
	switch {
	case errors.Is(err, platform.ErrWindowNotFound):
		code = contract.CodeWindowNotFound
	case errors.Is(err, platform.ErrWindowClosed):
		code = contract.CodeWindowClosed
	case errors.Is(err, platform.ErrElementStale):
		code = contract.CodeElementStale
	case errors.Is(err, platform.ErrNoAccessibleTree):
		code = contract.CodeNoAccessibleTree
	case errors.Is(err, platform.ErrFrameAmbiguous):
		code = contract.CodeFrameAmbiguous
	case errors.Is(err, platform.ErrTreeNotReady):
		code = contract.CodeTreeNotReady
	case errors.Is(err, platform.ErrAppNotResponding), errors.Is(err, context.DeadlineExceeded):
		code = contract.CodeAppNotResponding
	case errors.Is(err, platform.ErrElevated):
		code = contract.CodeTargetElevated
	case errors.Is(err, platform.ErrDisplayUnavailable):
		code = contract.CodeDisplayUnavailable
	case errors.Is(err, platform.ErrAtspiUnavailable):
		code = contract.CodeAtspiUnavailable
	case errors.Is(err, platform.ErrCaptureFailed):
		code = contract.CodeCaptureFailed
	case errors.Is(err, platform.ErrUnsupported), errors.Is(err, platform.ErrBadValue):
		// A gesture the backend cannot make as asked: a point off the screen, a button it has not.
		detail := strings.TrimPrefix(strings.TrimPrefix(err.Error(), platform.ErrUnsupported.Error()+": "), platform.ErrBadValue.Error()+": ")
		return contract.Errorf(contract.CodeBadArguments, "%s", detail)
	}
	return contract.Errorf(code, "%v", err)
}
