package contract

import (
	"slices"
	"strconv"
	"strings"
)

// Code narrows a category (error codes) or names a non-fatal condition (warning codes). The set is
// open: agents must tolerate unknown codes by falling back to the category. Codes are stable
// kebab-case strings once shipped; every code mcec emits is a constant below and is documented in
// docs/contract.md and the agent guidance.
type Code string

// Error codes, grouped by the category they belong to (see codeCategory).
const (
	// timeout
	CodeWaitConditionTimeout Code = "wait-condition-timeout"
	CodeSendCommandTimeout   Code = "send-command-timeout"
	CodeAppNotResponding     Code = "app-not-responding"
	CodeConsentTimeout       Code = "consent-timeout"
	// CodeTreeNotReady: the process carries an accessibility bridge but has not registered yet.
	CodeTreeNotReady Code = "tree-not-ready"

	// ambiguous-selector (besides selector-matched-N)
	CodeFrameAmbiguous Code = "frame-ambiguous"

	// stale-element
	CodeElementStale Code = "element-stale"
	CodeWindowClosed Code = "window-closed"

	// no-target
	CodeWindowNotFound   Code = "window-not-found"
	CodeElementNotFound  Code = "element-not-found"
	CodeNoAccessibleTree Code = "no-accessible-tree"
	CodeOCRNoText        Code = "ocr-no-text"

	// invalid-argument
	CodeBadArguments       Code = "bad-arguments"
	CodeRegionTooLarge     Code = "region-too-large"
	CodeRegionOutOfBounds  Code = "region-out-of-bounds"
	CodeActionUnknown      Code = "action-unknown"
	CodePatternUnsupported Code = "pattern-unsupported"
	// CodeCompositorUnsupported: the desktop's compositor offers no way to do what was asked
	// (raise a window, read the pointer on a Wayland compositor that keeps them to itself); the
	// detail names the compositor and what is missing.
	CodeCompositorUnsupported Code = "compositor-unsupported"
	CodeLaunchPathMissing     Code = "launch-path-missing"
	CodeRecordingInProgress   Code = "recording-in-progress"
	CodeNoRecording           Code = "no-recording"
	CodeUnknownSession        Code = "unknown-session"
	CodeUnknownCondition      Code = "unknown-condition"
	CodeWindowsNoCriteria     Code = "windows-no-criteria"
	CodeClipboardTextMissing  Code = "clipboard-text-missing"
	CodeUnknownCommand        Code = "unknown-command"
	// CodePathNotAllowed: a file argument (capture, record) names a place outside the session's
	// artifact directory, or one of the session's own evidence files.
	CodePathNotAllowed Code = "path-not-allowed"
	// CodeFileExists: a file argument names an existing file and overwrite is not true.
	CodeFileExists Code = "file-exists"

	// capture-blank
	CodeFrameAllBlack    Code = "frame-all-black"
	CodeFrameMostlyBlank Code = "frame-mostly-blank"

	// focus
	CodeFocusNotConfirmed Code = "focus-not-confirmed"
	CodeFocusNotSet       Code = "focus-not-set"

	// elevation
	CodeTargetElevated Code = "target-elevated"

	// foreground
	CodeForegroundNotSet Code = "foreground-not-set"

	// internal
	CodeUnhandledException    Code = "unhandled-exception"
	CodeAtspiUnavailable      Code = "atspi-unavailable"
	CodeDisplayUnavailable    Code = "display-unavailable"
	CodeInvokeFaulted         Code = "invoke-faulted"
	CodeCaptureFailed         Code = "capture-failed"
	CodeLaunchFailed          Code = "launch-failed"
	CodeOCRUnavailable        Code = "ocr-unavailable"
	CodeRecordNoFrames        Code = "record-no-frames"
	CodeRecordWriteFailed     Code = "record-write-failed"
	CodeAgentCommandsDisabled Code = "agent-commands-disabled"
	CodeCommandDisabled       Code = "command-disabled"
	CodeCommandDropped        Code = "command-dropped"
	CodeEmergencyStopped      Code = "emergency-stopped"
	CodeConsentDenied         Code = "consent-denied"
	CodeConsentPending        Code = "consent-pending"
	CodeConsentUnavailable    Code = "consent-unavailable"
	// CodeOperatorInControl: the operator took control of the desktop (the console's "Take
	// control"); what acts is refused until they hand back, observation is served.
	CodeOperatorInControl         Code = "operator-in-control"
	CodeProvisioningNotAuthorized Code = "provisioning-not-authorized"
	CodeProvisioningFailed        Code = "provisioning-failed"
	CodeSessionTokenInvalid       Code = "session-token-invalid"
	// CodeServerShuttingDown: mcec is stopping (SIGTERM, Ctrl-C, mcec:exit); the call was cut
	// short or never started. Not a timeout: nothing about the target is known from it.
	CodeServerShuttingDown Code = "server-shutting-down"
	// CodeCallCancelled: the client cancelled the call (MCP notifications/cancelled, or its HTTP
	// request went away) before it finished. Whatever it did before may have taken effect.
	CodeCallCancelled Code = "call-cancelled"
	// CodeValueNotApplied: setvalue was delivered (through accessibility, then by typing) and
	// the element still reads back another value, or a combo box's entry was chosen and the combo
	// box shows another; partialResult holds what it reads.
	CodeValueNotApplied Code = "value-not-applied"
)

// selectorMatchedPrefix starts the ambiguous-selector code; the literal match count follows.
const selectorMatchedPrefix = "selector-matched-"

// SelectorMatched returns the ambiguous-selector code for n matches, e.g. "selector-matched-3".
func SelectorMatched(n int) Code { return Code(selectorMatchedPrefix + strconv.Itoa(n)) }

// Warning codes: the call still succeeded (or failed for another reason), but the agent should know.
const (
	WarnMinimizedWindow             Code = "minimized-window"
	WarnTreeTruncated               Code = "tree-truncated"
	WarnRegionClamped               Code = "region-clamped"
	WarnCaptureFallback             Code = "capture-fallback"
	WarnCaptureBlank                Code = "capture-blank"
	WarnAppNotResponding            Code = "app-not-responding"
	WarnSecretMasked                Code = "secret-masked"
	WarnLimitsClamped               Code = "limits-clamped"
	WarnUnfetchedRecordingDiscarded Code = "unfetched-recording-discarded"
	// WarnTreeNotReady: the window is up and its process carries an accessibility bridge, but its
	// tree did not answer in time (still registering): query again shortly.
	WarnTreeNotReady Code = "tree-not-ready"
	// WarnNoAccessibleTree: the program will never publish a tree (no bridge): use capture and
	// pixel input. The same string as the no-target error code.
	WarnNoAccessibleTree Code = "no-accessible-tree"
	// WarnTreeSkeleton: the application published only a shell of its tree (a Chromium page
	// without renderer accessibility); the detail says how to get the rest.
	WarnTreeSkeleton Code = "tree-skeleton"
	// WarnNoObservedEffect: an action was delivered but no change of focus, windows or the
	// window's elements followed within its settle time; the agent should look before going on.
	WarnNoObservedEffect Code = "no-observed-effect"
	// WarnEffectUnobservable: an action was delivered, but nothing it could change was readable
	// (no accessibility tree, no pixels of the window), so whether it worked is unknown: not the
	// same as no-observed-effect, which means mcec looked and saw nothing change.
	WarnEffectUnobservable Code = "effect-unobservable"
	// WarnElementHidden: the element acted on is not shown (a hidden page's, an unrevealed one's,
	// 0×0): the action went through the accessibility API where nobody sees it; a shown element
	// of that name is probably the one meant.
	WarnElementHidden Code = "element-hidden"
	// WarnOperatorIntervened: the operator had control of the desktop since this session's last
	// call (the console's Take control): windows, focus and values may have changed; observe
	// before acting. Given once per session per take-over.
	WarnOperatorIntervened Code = "operator-intervened"
)

// codeCategory is the one place that says which category each known error code belongs to.
var codeCategory = map[Code]Category{
	CodeWaitConditionTimeout: Timeout,
	CodeSendCommandTimeout:   Timeout,
	CodeAppNotResponding:     Timeout,
	CodeConsentTimeout:       Timeout,
	CodeTreeNotReady:         Timeout,

	CodeFrameAmbiguous: AmbiguousSelector,

	CodeElementStale: StaleElement,
	CodeWindowClosed: StaleElement,

	CodeWindowNotFound:   NoTarget,
	CodeElementNotFound:  NoTarget,
	CodeNoAccessibleTree: NoTarget,
	CodeOCRNoText:        NoTarget,

	CodeBadArguments:          InvalidArgument,
	CodeRegionTooLarge:        InvalidArgument,
	CodeRegionOutOfBounds:     InvalidArgument,
	CodeActionUnknown:         InvalidArgument,
	CodePatternUnsupported:    InvalidArgument,
	CodeCompositorUnsupported: InvalidArgument,
	CodeLaunchPathMissing:     InvalidArgument,
	CodeRecordingInProgress:   InvalidArgument,
	CodeNoRecording:           InvalidArgument,
	CodeUnknownSession:        InvalidArgument,
	CodeUnknownCondition:      InvalidArgument,
	CodeWindowsNoCriteria:     InvalidArgument,
	CodeClipboardTextMissing:  InvalidArgument,
	CodeUnknownCommand:        InvalidArgument,
	CodePathNotAllowed:        InvalidArgument,
	CodeFileExists:            InvalidArgument,

	CodeFrameAllBlack:    CaptureBlank,
	CodeFrameMostlyBlank: CaptureBlank,

	CodeFocusNotConfirmed: Focus,
	CodeFocusNotSet:       Focus,

	CodeTargetElevated: Elevation,

	CodeForegroundNotSet: Foreground,

	CodeUnhandledException:        Internal,
	CodeAtspiUnavailable:          Internal,
	CodeDisplayUnavailable:        Internal,
	CodeInvokeFaulted:             Internal,
	CodeValueNotApplied:           Internal,
	CodeCaptureFailed:             Internal,
	CodeLaunchFailed:              Internal,
	CodeOCRUnavailable:            Internal,
	CodeRecordNoFrames:            Internal,
	CodeRecordWriteFailed:         Internal,
	CodeAgentCommandsDisabled:     Internal,
	CodeCommandDisabled:           Internal,
	CodeCommandDropped:            Internal,
	CodeEmergencyStopped:          Internal,
	CodeConsentDenied:             Internal,
	CodeConsentPending:            Internal,
	CodeConsentUnavailable:        Internal,
	CodeOperatorInControl:         Internal,
	CodeProvisioningNotAuthorized: Internal,
	CodeProvisioningFailed:        Internal,
	CodeSessionTokenInvalid:       Internal,
	CodeServerShuttingDown:        Internal,
	CodeCallCancelled:             Internal,
}

// CategoryOf returns the category a known error code belongs to. selector-matched-N codes are
// ambiguous-selector. ok is false for codes this package does not know.
func CategoryOf(code Code) (Category, bool) {
	if c, ok := codeCategory[code]; ok {
		return c, true
	}
	if n, found := strings.CutPrefix(string(code), selectorMatchedPrefix); found {
		if _, err := strconv.Atoi(n); err == nil {
			return AmbiguousSelector, true
		}
	}
	return Category{}, false
}

// ErrorCodes lists every known error code (selector-matched-N excluded), for docs and coverage tests.
func ErrorCodes() []Code {
	out := make([]Code, 0, len(codeCategory))
	for c := range codeCategory {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// WarningCodes lists every known warning code.
func WarningCodes() []Code {
	return []Code{WarnMinimizedWindow, WarnTreeTruncated, WarnRegionClamped, WarnCaptureFallback,
		WarnCaptureBlank, WarnAppNotResponding, WarnSecretMasked, WarnLimitsClamped,
		WarnUnfetchedRecordingDiscarded, WarnTreeNotReady, WarnNoAccessibleTree, WarnTreeSkeleton,
		WarnNoObservedEffect, WarnEffectUnobservable, WarnElementHidden, WarnOperatorIntervened}
}
