package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/platform"
)

// focusSettle is how long focus and window checks wait for the window manager and the app.
const focusSettle = time.Second

var windowActions = []platform.WindowOpKind{platform.OpMove, platform.OpResize, platform.OpMinimize,
	platform.OpMaximize, platform.OpRestore, platform.OpActivate}

type windowArgs struct {
	WindowTarget
	Action  string `json:"action,omitempty" jsonschema:"move, resize, minimize, maximize, restore or foreground."`
	X       *int   `json:"x,omitempty" jsonschema:"With move: the client area's new left edge (absolute)."`
	Y       *int   `json:"y,omitempty" jsonschema:"With move: the client area's new top edge."`
	Width   *int   `json:"width,omitempty" jsonschema:"With resize: the client area's new width."`
	Height  *int   `json:"height,omitempty" jsonschema:"With resize: the client area's new height."`
	Animate bool   `json:"animate,omitempty" jsonschema:"With move or resize: go there in a few visible steps."`
	settleArg
}

type windowResult struct {
	Action string     `json:"action"`
	Window WindowInfo `json:"window"`
	Effect *Effect    `json:"effect,omitempty"`
}

// animateSteps is how many intermediate steps an animated move or resize takes.
const animateSteps = 8

func windowTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[windowArgs, windowResult]{
		Name:  "window",
		Title: "Manage a window",
		Description: "Move, resize, minimize, maximize, restore or bring a window to the foreground through the window " +
			"manager, and return the window as it is afterwards.",
		Annotations: catalog.Annotations{Idempotent: true, OpenWorld: true}, // every action sets an absolute state
		Warnings:    []contract.Code{contract.WarnNoObservedEffect},
		Errors: slices.Concat(windowTargetErrors, []contract.Code{contract.CodeActionUnknown, contract.CodeForegroundNotSet,
			contract.CodeTargetElevated, contract.CodeCompositorUnsupported}),
		Run: func(ctx context.Context, call *catalog.Call, in *windowArgs, resp *catalog.Response) (*windowResult, error) {
			kind := platform.WindowOpKind(in.Action)
			if !slices.Contains(windowActions, kind) {
				return nil, contract.Errorf(contract.CodeActionUnknown, "action %q is not one of %s", in.Action, joinNames(windowActions))
			}
			op := platform.WindowOp{Kind: kind}
			switch kind {
			case platform.OpMove:
				if in.X == nil || in.Y == nil {
					return nil, contract.Errorf(contract.CodeBadArguments, "move needs x and y")
				}
				op.X, op.Y = *in.X, *in.Y
				if err := checkMove(ctx, env, op); err != nil {
					return nil, err
				}
			case platform.OpResize:
				if in.Width == nil || in.Height == nil {
					return nil, contract.Errorf(contract.CodeBadArguments, "resize needs width and height")
				}
				if *in.Width < 1 || *in.Height < 1 || *in.Width > maxRegionSide || *in.Height > maxRegionSide {
					return nil, contract.Errorf(contract.CodeBadArguments, "width and height must be 1 to %d", maxRegionSide)
				}
				op.Width, op.Height = *in.Width, *in.Height
			}
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
			// Only the window manager acts: the windows alone are compared, not the app's tree.
			obs := watchAction(ctx, env.Desktop, platform.Window{Handle: w.Handle}, "")
			// Under the input gate and the emergency stop's context (a trip ends an animation),
			// without raising: a move or a minimize needs no focus.
			err = gesture(ctx, env, platform.Window{}, func(ctx context.Context, _ platform.Input) error {
				for _, step := range steps(w, op, in.Animate) {
					if err := env.Desktop.WindowOp(ctx, w.Handle, step); err != nil {
						return windowOpError(err, w)
					}
				}
				return nil
			})
			if err != nil {
				obs.stop()
				return nil, err
			}
			eff := obs.settle(ctx, settle, false)
			if w, err = env.Desktop.Window(ctx, w.Handle); err != nil {
				return nil, platformError(err)
			}
			info := windowInfo(w)
			call.Session.SetTarget(info)
			res := windowResult{Action: string(kind), Window: info, Effect: &eff}
			if why := notInState(w, op); why != "" {
				resp.Warnings = append(resp.Warnings, contract.Warn(contract.WarnNoObservedEffect,
					"%s of window %d %q: %s after %d ms (the window manager or the application refused or adjusted it)", kind, w.Handle, w.Title, why, eff.SettledMs))
			}
			return &res, nil
		},
	})
}

// steps splits an animated move or resize into intermediate operations ending at op.
func steps(w platform.Window, op platform.WindowOp, animate bool) []platform.WindowOp {
	if !animate || (op.Kind != platform.OpMove && op.Kind != platform.OpResize) {
		return []platform.WindowOp{op}
	}
	out := make([]platform.WindowOp, 0, animateSteps)
	for i := 1; i <= animateSteps; i++ {
		s := op
		lerp := func(a, b int) int { return a + (b-a)*i/animateSteps }
		if op.Kind == platform.OpMove {
			s.X, s.Y = lerp(w.Bounds.X, op.X), lerp(w.Bounds.Y, op.Y)
		} else {
			s.Width, s.Height = lerp(w.Bounds.Width, op.Width), lerp(w.Bounds.Height, op.Height)
		}
		out = append(out, s)
	}
	return out
}

// checkMove refuses a position X cannot express (coordinates are 16-bit) or that lies past
// the screen by more than the screen's own size, naming the screen's bounds.
func checkMove(ctx context.Context, env *Env, op platform.WindowOp) error {
	ds, err := env.Desktop.Displays(ctx)
	if err != nil {
		return platformError(err)
	}
	vb := ds.VirtualBounds
	if op.X < vb.X-vb.Width || op.X > vb.X+2*vb.Width || op.Y < vb.Y-vb.Height || op.Y > vb.Y+2*vb.Height {
		return contract.Errorf(contract.CodeBadArguments, "move to %d,%d is far off the screen (%dx%d at %d,%d)",
			op.X, op.Y, vb.Width, vb.Height, vb.X, vb.Y)
	}
	return nil
}

// notInState says how w differs from the state op asked for ("" when it is in it): a window
// already in that state is no failure, one that is not afterwards is.
func notInState(w platform.Window, op platform.WindowOp) string {
	b := w.Bounds
	switch op.Kind {
	case platform.OpMove:
		if b.X != op.X || b.Y != op.Y {
			return fmt.Sprintf("it is at %d,%d, not %d,%d", b.X, b.Y, op.X, op.Y)
		}
	case platform.OpResize:
		if b.Width != op.Width || b.Height != op.Height {
			return fmt.Sprintf("it is %dx%d, not %dx%d", b.Width, b.Height, op.Width, op.Height)
		}
	case platform.OpMinimize:
		if !w.Minimized {
			return "it is not minimized"
		}
	case platform.OpMaximize:
		if !w.Maximized {
			return "it is not maximized"
		}
	case platform.OpRestore:
		if w.Minimized || w.Maximized {
			return "it is still minimized or maximized"
		}
	case platform.OpActivate:
		if !w.Focused {
			return "it is not the active window"
		}
	}
	return ""
}

// windowOpError maps a failed window operation onto the contract.
func windowOpError(err error, w platform.Window) error {
	if errors.Is(err, platform.ErrForeground) {
		return contract.Errorf(contract.CodeForegroundNotSet, "window %d %q: %v; retry once the window holding the foreground has cleared", w.Handle, w.Title, err)
	}
	return platformError(err)
}
