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
}

type focusResult struct {
	Focused bool       `json:"focused"`
	Window  WindowInfo `json:"window"`
	// Element is the object that has keyboard focus afterwards, when the app exposes it.
	Element *Element `json:"element,omitempty"`
}

func focusTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[focusArgs]{
		Name:  "focus",
		Title: "Focus a window",
		Description: "Bring the target window to the foreground and verify it is active; optionally click at a spot and " +
			"verify keyboard focus is inside the window (on the element when at names one).",
		Annotations:       catalog.Annotations{OpenWorld: true},
		Result:            focusResult{},
		ResultTypeSchemas: elementSchemas,
		Errors: slices.Concat(windowTargetErrors, []contract.Code{contract.CodeForegroundNotSet, contract.CodeFocusNotConfirmed,
			contract.CodeElementNotFound, contract.CodeTargetElevated}),
		Run: func(ctx context.Context, call *catalog.Call, in *focusArgs) (*catalog.Response, error) {
			w, err := resolveWindow(ctx, env.Desktop, in.WindowTarget)
			if err != nil {
				return nil, err
			}
			if err := checkOwner(w.ProcessID); err != nil {
				return nil, err
			}
			call.Session.SetTarget(windowInfo(w))
			release, err := env.Gate.Hold(ctx)
			if err != nil {
				return nil, platformError(err)
			}
			defer release()
			if err := env.Desktop.WindowOp(ctx, w.Handle, platform.WindowOp{Kind: platform.OpActivate}); err != nil {
				return nil, windowOpError(err, w)
			}
			if w, err = env.Desktop.Window(ctx, w.Handle); err != nil {
				return nil, platformError(err)
			}
			if !w.Focused {
				return nil, contract.Errorf(contract.CodeForegroundNotSet, "window %d %q is not the active window after activation", w.Handle, w.Title)
			}
			res := focusResult{Focused: true, Window: windowInfo(w)}
			if in.At == nil {
				return &catalog.Response{Result: res}, nil
			}
			p, err := resolveSpot(ctx, env, in.WindowTarget, &w, in.At, "at")
			if err != nil {
				return nil, err
			}
			if err := env.Desktop.Input().Click(ctx, p, platform.ButtonLeft, 1); err != nil {
				return nil, platformError(err)
			}
			return confirmFocus(ctx, env, w, in.At, res)
		},
	})
}

// confirmFocus checks that keyboard focus landed inside the window (on the element when the spot
// names one); otherwise focus-not-confirmed with what did get focus in partialResult.
func confirmFocus(ctx context.Context, env *Env, w platform.Window, at *Spot, res focusResult) (*catalog.Response, error) {
	var wantRef string
	if pixel, _ := at.isPixel(); !pixel {
		l, err := locate(ctx, env.Desktop, WindowTarget{Handle: w.Handle}, &at.ElementSelector)
		if err == nil && l.node != nil {
			wantRef = l.node.Ref
		}
	}
	var got *platform.Element
	var lastErr error
	// Focus moves asynchronously after the click: re-check on the app's events for a short while.
	ok, _, err := waitFor(ctx, env.Desktop, focusSettle, func(ctx context.Context) (bool, int, error) {
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
		res.Element = element(&got.Node)
		return &catalog.Response{Result: res}, nil
	}
	cerr := contract.Errorf(contract.CodeFocusNotConfirmed, "keyboard focus is not where it was put")
	if got != nil {
		cerr.PartialResult = map[string]any{"focusedElement": element(&got.Node), "focusedProcessId": got.PID}
		cerr.Detail += "; it is on " + got.Node.Ref + " (" + got.Node.Role + " " + got.Node.Name + ")"
	} else if lastErr != nil && !errors.Is(lastErr, platform.ErrElementStale) {
		cerr.Detail += ": " + lastErr.Error()
	}
	return nil, cerr
}
