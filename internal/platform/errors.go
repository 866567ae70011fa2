package platform

import (
	"errors"

	"github.com/mcec/mcec/contract"
)

// Sentinel is a platform failure that carries the contract code it means, so the mapping of
// failures onto the contract lives beside the failures themselves and internal/errmap reads it
// without depending on the platform. Backends wrap sentinels with %w and a detail for people;
// an error type of their own that stands for a sentinel must wrap it (Unwrap), not only match it
// in an Is method: the code is found with errors.As.
type Sentinel struct {
	text string
	code contract.Code
}

func (s *Sentinel) Error() string { return s.text }

// ContractCode is the code a failure wrapping s maps to.
func (s *Sentinel) ContractCode() contract.Code { return s.code }

func sentinel(text string, code contract.Code) *Sentinel { return &Sentinel{text: text, code: code} }

// Sentinel errors with their contract codes.
var (
	ErrWindowNotFound     = sentinel("window not found", contract.CodeWindowNotFound)
	ErrWindowClosed       = sentinel("window closed", contract.CodeWindowClosed)
	ErrElementStale       = sentinel("element no longer exists", contract.CodeElementStale)
	ErrNoAccessibleTree   = sentinel("application exposes no accessible tree", contract.CodeNoAccessibleTree)
	ErrAppNotResponding   = sentinel("application not responding", contract.CodeAppNotResponding)
	ErrElevated           = sentinel("access to the target is denied", contract.CodeTargetElevated)
	ErrDisplayUnavailable = sentinel("display unavailable", contract.CodeDisplayUnavailable)
	ErrAtspiUnavailable   = sentinel("accessibility bus unavailable", contract.CodeAtspiUnavailable)
	ErrCaptureFailed      = sentinel("capture failed", contract.CodeCaptureFailed)
	// ErrUnsupported: the object or the backend cannot do what was asked as asked (a point off
	// the screen, a button it has not): an invalid argument.
	ErrUnsupported = sentinel("action not supported by the element", contract.CodeBadArguments)
	// ErrBadValue: a value the element cannot take (e.g. a non-number for a slider).
	ErrBadValue = sentinel("value not accepted by the element", contract.CodeBadArguments)
	// ErrTreeNotReady: the process carries an accessibility bridge but its application has not
	// registered on the bus yet (GTK 4 registers seconds after its window maps): retry shortly.
	ErrTreeNotReady = sentinel("accessible tree not ready yet", contract.CodeTreeNotReady)
	// ErrFrameAmbiguous: the window's process has several accessible frames and nothing tells
	// which one is the window's.
	ErrFrameAmbiguous = sentinel("accessible frame of the window is ambiguous", contract.CodeFrameAmbiguous)
	// ErrCompositorUnsupported: the desktop's compositor offers no protocol for what was asked;
	// the detail names the compositor and the missing piece.
	ErrCompositorUnsupported = sentinel("the compositor cannot do this", contract.CodeCompositorUnsupported)
)

// Failures whose meaning depends on what the caller was doing: the tools decide their codes
// (a refused action is invoke-faulted for invoke, focus-not-confirmed for focus …).
var (
	// ErrBadRef: a ref that is not in the backend's format (an invalid argument).
	ErrBadRef = errors.New("malformed element reference")
	// ErrActionFailed: the application refused or failed the action.
	ErrActionFailed = errors.New("action failed")
	// ErrNotFocused: focus could not be set on the target.
	ErrNotFocused = errors.New("focus not set")
	// ErrForeground: the window manager did not make the window active.
	ErrForeground = errors.New("window not brought to the foreground")
)
