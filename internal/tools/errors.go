package tools

import (
	"errors"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/errmap"
)

// platformError maps a backend error onto the contract (internal/errmap, shared with the
// dispatcher and the raw command engine). An error that already carries a contract error passes
// through unchanged, so checks by identity further up (errors.Is) still hold.
func platformError(err error) error {
	var ce *contract.Error
	if err == nil || errors.As(err, &ce) {
		return err
	}
	return errmap.ToContract(err, errmap.Tools)
}
