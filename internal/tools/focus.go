package tools

import (
	"context"
	"errors"
	"slices"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/platform"
)

type focusArgs struct {
	WindowTarget
	At *Spot `json:"at,omitempty" jsonschema:"Optionally click here after activating the window: {x, y} or an element selector."`
	settleArg
}

type focusResult struct {
	Focused bool       `json:"focused"`
	Window  WindowInfo `json:"window"`
	// Element is the object that has keyboard focus afterwards, when the app exposes it.
	Element *Element `json:"element,omitempty"`
	Effect  *Effect  `json:"effect,omitempty"`
}

func focusTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[focusArgs, focusResult]{
		Name:  "focus",
		Title: "Focus a window",
		Description: "Bring the target window to the foreground and verify it is active; optionally click at a spot and " +
			"verify keyboard focus is inside the window (on the element when at names one). Reports the effect.",
		Annotations:       catalog.Annotations{OpenWorld: true},
		ResultTypeSchemas: elementSchemas,
		Errors: slices.Concat(windowTargetErrors, []contract.Code{contract.CodeForegroundNotSet, contract.CodeFocusNotConfirmed,
			contract.CodeElementNotFound, contract.CodeTargetElevated, contract.CodeEmergencyStopped, contract.CodeCompositorUnsupported}),
		Run: func(ctx context.Context, call *catalog.Call, in *focusArgs, resp *catalog.Response) (*focusResult, error) {
			settle, err := in.duration()
			if err != nil {
				return nil, err
			}
			w, err := resolveWindow(ctx, env.Desktop, in.WindowTarget)
			if err != nil {
				return nil, err
			}
			if err := checkOwner(w.ProcessID); err != nil {
				return nil, err
			}
			call.Session.SetTarget(windowInfo(w))
			var (
				p   platform.Point
				ref string
			)
			if in.At != nil {
				if p, ref, err = resolveSpot(ctx, env, in.WindowTarget, &w, in.At, "at"); err != nil {
					return nil, err
				}
			}
			obs := watchAction(ctx, env.Desktop, w, ref)
			// The gesture raises the window (activates it) before anything else, under the input
			// gate and the emergency stop's context.
			err = gesture(ctx, env, platform.Window{Handle: w.Handle}, func(ctx context.Context, hands platform.Input) error {
				if in.At == nil {
					return nil
				}
				return hands.Click(ctx, p, platform.ButtonLeft, 1)
			})
			if err != nil {
				obs.stop()
				return nil, err
			}
			if w, err = env.Desktop.Window(ctx, w.Handle); err != nil {
				obs.stop()
				return nil, platformError(err)
			}
			if !w.Focused {
				obs.stop()
				return nil, contract.Errorf(contract.CodeForegroundNotSet, "window %d %q is not the active window after activation", w.Handle, w.Title)
			}
			res := focusResult{Focused: true, Window: windowInfo(w)}
			if isOCRRef(ref) {
				ref = "" // a text read on screen is no accessible object: confirm focus is in the window
			}
			if in.At != nil {
				if res.Element, err = confirmFocus(ctx, env, w, ref); err != nil {
					obs.stop()
					return nil, err
				}
			}
			// Focusing what already had the focus changes nothing, and that is no failure.
			eff := obs.settle(ctx, settle, false)
			res.Effect = &eff
			return &res, nil
		},
	})
}

// confirmFocus checks that keyboard focus landed inside the window — on the element wantRef when
// given — and returns what has it; otherwise focus-not-confirmed with what did get focus in
// partialResult. The element's own focused state counts: browsers report several focused
// objects (the document and the field), so the one Focused ranks first may be another.
func confirmFocus(ctx context.Context, env *Env, w platform.Window, wantRef string) (*Element, error) {
	var got *platform.Element
	var lastErr error
	// Focus moves asynchronously after the click: re-check on the app's events for a short while.
	ok, _, err := waitFor(ctx, env.Desktop, focusSettle, "", func(ctx context.Context) (bool, int, error) {
		if wantRef != "" {
			if el, err := env.Desktop.Element(ctx, wantRef); err == nil && el.Node.States["focused"] {
				got = &el
				return true, w.ProcessID, nil
			}
		}
		el, err := env.Desktop.Focused(ctx, w.ProcessID)
		if err != nil {
			lastErr = err
			return false, w.ProcessID, nil
		}
		got = &el
		return el.PID == w.ProcessID && (wantRef == "" || el.Node.Ref == wantRef), w.ProcessID, nil
	})
	if err != nil {
		return nil, err
	}
	if ok { // got is what the last check saw, and it held
		return element(&got.Node), nil
	}
	cerr := contract.Errorf(contract.CodeFocusNotConfirmed, "keyboard focus is not where it was put after %v", focusSettle)
	if got != nil {
		cerr.PartialResult = map[string]any{"focusedElement": element(&got.Node), "focusedProcessId": got.PID}
		cerr.Detail += "; it is on " + got.Node.Ref + " (" + got.Node.Role + " " + got.Node.Name + ")"
	} else if lastErr != nil && !errors.Is(lastErr, platform.ErrElementStale) {
		cerr.Detail += ": " + lastErr.Error()
	}
	return nil, cerr
}
