package tools

import (
	"github.com/mcec/mcec/internal/errmap"
)

// platformError maps a backend error onto the contract (internal/errmap, shared with the
// dispatcher and the raw command engine). A contract error passes through.
func platformError(err error) error {
	if ce := errmap.ToContract(err, errmap.Tools); ce != nil {
		return ce
	}
	return nil
}
