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

// Spot is a place to click or drag: a pixel (x and y) or an element (the centre of its bounds).
// A pixel is relative to the target window's client area when a window target is given,
// absolute otherwise.
type Spot struct {
	X *int `json:"x,omitempty" jsonschema:"Pixel x (window-relative with a window target, else absolute). Give x and y, or an element selector."`
	Y *int `json:"y,omitempty" jsonschema:"Pixel y."`
	ElementSelector
}

// isPixel reports whether the spot is a pixel; both coordinates are required then.
func (s *Spot) isPixel() (bool, error) {
	if s == nil {
		return false, contract.Errorf(contract.CodeBadArguments, "a place is required: {x, y} or an element selector")
	}
	switch {
	case s.X != nil && s.Y != nil:
		return true, nil
	case s.X != nil || s.Y != nil:
		return false, contract.Errorf(contract.CodeBadArguments, "give both x and y")
	}
	return false, s.ElementSelector.check()
}

// placeless fails compositor-unsupported when w is a window whose place the compositor does not
// tell (a wlroots compositor without sway's IPC): pixels relative to it are nowhere.
func placeless(w *platform.Window, what string) error {
	if w.Handle == 0 || !w.Bounds.Empty() {
		return nil
	}
	return contract.Errorf(contract.CodeCompositorUnsupported,
		"%s: the compositor does not tell where window %d %q is, so coordinates relative to it are nowhere; "+
			"give screen coordinates without a window, an element to invoke, or keys", what, w.Handle, w.Title)
}

// resolveSpot turns a spot into absolute screen pixels, with the element's ref when the spot
// names one ("" for pixels). w is the target window (zero when none).
func resolveSpot(ctx context.Context, env *Env, target WindowTarget, w *platform.Window, s *Spot, what string) (platform.Point, string, error) {
	pixel, err := s.isPixel()
	if err != nil {
		return platform.Point{}, "", err
	}
	if pixel {
		p := platform.Point{X: *s.X, Y: *s.Y}
		if err := placeless(w, what); err != nil {
			return p, "", err
		}
		if w.Handle != 0 {
			p.X += w.Bounds.X
			p.Y += w.Bounds.Y
		}
		return p, "", nil
	}
	l, err := locateActionable(ctx, env.Desktop, target, &s.ElementSelector, actionNeeds{showing: true})
	if err != nil {
		return platform.Point{}, "", err
	}
	if l.node == nil {
		return platform.Point{}, "", contract.Errorf(contract.CodeElementNotFound, "%s: %s (looked for %v; for longer, wait-for first)", what, l.describeMiss(&s.ElementSelector), actionableWait)
	}
	b := l.node.Bounds
	if b == nil && l.node.States["showing"] && l.window.Server == platform.ServerWayland {
		// Shown, but where is unknown: an object in a popup surface, which the compositor places
		// without telling any client, in a window no origin rule places, or in a window whose
		// place the compositor does not tell (docs/wayland.md).
		return platform.Point{}, "", contract.Errorf(contract.CodeCompositorUnsupported,
			"%s: %s (%s %q) is shown, but its place on screen is not known: it lies in a popup (an open menu or list), "+
				"whose place this compositor tells no client, in a window whose toolkit's origin mcec cannot place, "+
				"or in a window whose place the compositor does not tell at all; "+
				"so it has no point to click; use invoke (its action, select or setvalue), keys, or capture and pixel input",
			what, l.node.Ref, l.node.Role, l.node.Name)
	}
	if !onScreen(l.node) {
		return platform.Point{}, "", contract.Errorf(contract.CodeElementNotFound,
			"%s: %s (%s %q) is not showing on screen, so it has no point to click; use invoke", what, l.node.Ref, l.node.Role, l.node.Name)
	}
	c := platform.Point{X: b.X + b.Width/2, Y: b.Y + b.Height/2}
	if d, err := env.Desktop.Displays(ctx); err == nil && !d.VirtualBounds.Empty() && !inside(d.VirtualBounds, c) {
		// A window larger than the screen, or moved partly off it: say so of the element, not
		// of a point the agent never gave.
		return platform.Point{}, "", contract.Errorf(contract.CodeElementNotFound,
			"%s: %s (%s %q): its centre %d,%d is off the screen (its window reaches past the screen's edge); move the window "+
				"onto the screen (window action move or resize) or use invoke", what, l.node.Ref, l.node.Role, l.node.Name, c.X, c.Y)
	}
	return c, l.node.Ref, nil
}

// watchPointer starts observing a pointer action at p: in the target window when there is one,
// else in the window under p.
func watchPointer(ctx context.Context, env *Env, w platform.Window, p platform.Point, ref string) *observer {
	if w.Handle == 0 {
		if ws, err := env.Desktop.Windows(ctx); err == nil {
			w = windowAt(ws, p)
		}
	}
	return watchAction(ctx, env.Desktop, w, ref)
}

// settled finishes an observation: the effect for the result, and the warning when nothing was
// seen changing.
func settled(ctx context.Context, obs *observer, settle time.Duration, what string) (*Effect, []contract.Warning) {
	eff := obs.settle(ctx, settle, false)
	if eff.observed() {
		return &eff, nil
	}
	return &eff, []contract.Warning{noEffectWarning(what, eff)}
}

var buttons = map[string]platform.Button{"left": platform.ButtonLeft, "middle": platform.ButtonMiddle, "right": platform.ButtonRight}

func parseButton(name string) (platform.Button, error) {
	if name == "" {
		return platform.ButtonLeft, nil
	}
	b, ok := buttons[name]
	if !ok {
		return 0, contract.Errorf(contract.CodeBadArguments, "button %q is not left, right or middle", name)
	}
	return b, nil
}

// optionalWindow resolves the target when one is given.
func optionalWindow(ctx context.Context, env *Env, t WindowTarget) (platform.Window, error) {
	if t.empty() {
		return platform.Window{}, nil
	}
	w, err := resolveWindow(ctx, env.Desktop, t)
	if err != nil {
		return w, err
	}
	return w, checkOwner(w.ProcessID)
}

// raise brings the window to the front before input, so the gesture cannot land on whatever
// covers it.
func raise(ctx context.Context, env *Env, w platform.Window) error {
	if w.Handle == 0 || w.Focused {
		return nil
	}
	err := env.Desktop.WindowOp(ctx, w.Handle, platform.WindowOp{Kind: platform.OpActivate})
	if errors.Is(err, platform.ErrForeground) && focusHeldByOwn(ctx, env, w) {
		// The window manager keeps the focus on a window of the same application that stays
		// above this one (openbox with a dialog transient for it): the window is as raised as it
		// gets, and a point of it that the dialog does not cover takes the click.
		return nil
	}
	if err != nil {
		return windowOpError(err, w)
	}
	return nil
}

// focusHeldByOwn reports whether the active window is a transient of w or another window of w's
// process.
func focusHeldByOwn(ctx context.Context, env *Env, w platform.Window) bool {
	ws, err := env.Desktop.Windows(ctx)
	if err != nil {
		return false
	}
	fg := foregroundWindow(ws)
	return fg.Handle != 0 && fg.Handle != w.Handle && (fg.TransientFor == w.Handle || w.ProcessID > 0 && fg.ProcessID == w.ProcessID)
}

// gesture runs one input gesture under the input gate, after raising the target window (when
// there is one) so the gesture cannot land on whatever covers it. The gate's hold is the only way
// to input, and its context is cancelled by the emergency stop: do aborts and releases what it
// pressed, and the call fails emergency-stopped.
func gesture(ctx context.Context, env *Env, w platform.Window, do func(ctx context.Context, in platform.Input) error) error {
	h, err := env.Gate.Gesture(ctx)
	if err != nil {
		return platformError(err)
	}
	defer h.Release()
	if err := raise(h.Context(), env, w); err != nil {
		return h.Stopped(err)
	}
	if err := do(h.Context(), h.Input()); err != nil {
		return h.Stopped(platformError(err))
	}
	return nil
}

type clickArgs struct {
	WindowTarget
	At     *Spot  `json:"at,omitempty" jsonschema:"Where to click: {x, y} or an element selector."`
	Button string `json:"button,omitempty" jsonschema:"left (default), right or middle."`
	Count  int    `json:"count,omitempty" jsonschema:"1 (default) or 2 for a double click."`
	settleArg
}

type clickResult struct {
	Clicked bool        `json:"clicked"`
	At      [2]int      `json:"at"`
	Button  string      `json:"button"`
	Count   int         `json:"count"`
	Window  *WindowInfo `json:"window,omitempty"`
	Effect  *Effect     `json:"effect,omitempty"`
}

func clickTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[clickArgs, clickResult]{
		Name:  "click",
		Title: "Click",
		Description: "Click with real input (XTEST) at an element's centre or a pixel (window-relative with a window " +
			"target, absolute otherwise). The target window is raised first. Prefer invoke when the element supports it.",
		Annotations: catalog.Annotations{Destructive: true, OpenWorld: true},
		Warnings:    []contract.Code{contract.WarnNoObservedEffect, contract.WarnEffectUnobservable},
		Errors: slices.Concat(windowTargetErrors, []contract.Code{contract.CodeElementNotFound, contract.CodeElementStale,
			contract.CodeForegroundNotSet, contract.CodeTargetElevated, contract.CodeEmergencyStopped, contract.CodeBadArguments,
			contract.CodeOCRUnavailable, contract.CodeCaptureFailed, contract.CodeCompositorUnsupported}),
		Run: func(ctx context.Context, call *catalog.Call, in *clickArgs, resp *catalog.Response) (*clickResult, error) {
			button, err := parseButton(in.Button)
			if err != nil {
				return nil, err
			}
			count := in.Count
			if count == 0 {
				count = 1
			}
			if count != 1 && count != 2 {
				return nil, contract.Errorf(contract.CodeBadArguments, "count must be 1 or 2, got %d", in.Count)
			}
			settle, err := in.duration()
			if err != nil {
				return nil, err
			}
			w, err := optionalWindow(ctx, env, in.WindowTarget)
			if err != nil {
				return nil, err
			}
			p, ref, err := resolveSpot(ctx, env, in.WindowTarget, &w, in.At, "at")
			if err != nil {
				return nil, err
			}
			obs := watchPointer(ctx, env, w, p, ref)
			click := func(ctx context.Context, in platform.Input) error {
				if obs.pixelMode() {
					// Pixels are the only evidence: what the raise and the pointer's arrival
					// redraw is not the click's effect.
					if err := in.MoveTo(ctx, p); err != nil {
						return err
					}
					obs.rebase(ctx)
				}
				return in.Click(ctx, p, button, count)
			}
			if err := gesture(ctx, env, w, click); err != nil {
				obs.stop()
				return nil, err
			}
			res := clickResult{Clicked: true, At: [2]int{p.X, p.Y}, Button: buttonName(button), Count: count}
			if w.Handle != 0 {
				info := windowInfo(w)
				res.Window = &info
				call.Session.SetTarget(info)
			}
			res.Effect, resp.Warnings = settled(ctx, obs, settle, fmt.Sprintf("click at %d,%d", p.X, p.Y))
			return &res, nil
		},
	})
}

func buttonName(b platform.Button) string {
	for name, v := range buttons {
		if v == b {
			return name
		}
	}
	return "left"
}

type dragArgs struct {
	WindowTarget
	From   *Spot      `json:"from,omitempty" jsonschema:"Where the drag starts: {x, y} or an element selector."`
	To     *Spot      `json:"to,omitempty" jsonschema:"Where it ends: {x, y} or an element selector."`
	Path   []pointArg `json:"path,omitempty" jsonschema:"Waypoints between from and to (window-relative with a window target)."`
	Button string     `json:"button,omitempty" jsonschema:"left (default), right or middle."`
	settleArg
}

type pointArg struct {
	X int `json:"x"`
	Y int `json:"y"`
}

type dragResult struct {
	Dragged bool        `json:"dragged"`
	From    [2]int      `json:"from"`
	To      [2]int      `json:"to"`
	Points  int         `json:"points"`
	Window  *WindowInfo `json:"window,omitempty"`
	Effect  *Effect     `json:"effect,omitempty"`
}

// maxDragPoints bounds the waypoints of one drag.
const maxDragPoints = 1000

func dragTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[dragArgs, dragResult]{
		Name:  "drag",
		Title: "Drag",
		Description: "Press at from, move through path, release at to, as one atomic gesture with real input (XTEST); " +
			"the button is released even when the drag fails. Endpoints are pixels or elements, like click.",
		Annotations: catalog.Annotations{Destructive: true, OpenWorld: true},
		Warnings:    []contract.Code{contract.WarnNoObservedEffect, contract.WarnEffectUnobservable},
		Errors: slices.Concat(windowTargetErrors, []contract.Code{contract.CodeElementNotFound, contract.CodeForegroundNotSet,
			contract.CodeTargetElevated, contract.CodeEmergencyStopped, contract.CodeBadArguments,
			contract.CodeOCRUnavailable, contract.CodeCaptureFailed, contract.CodeCompositorUnsupported}),
		Run: func(ctx context.Context, call *catalog.Call, in *dragArgs, resp *catalog.Response) (*dragResult, error) {
			button, err := parseButton(in.Button)
			if err != nil {
				return nil, err
			}
			if len(in.Path) > maxDragPoints {
				return nil, contract.Errorf(contract.CodeBadArguments, "path has %d points; at most %d", len(in.Path), maxDragPoints)
			}
			settle, err := in.duration()
			if err != nil {
				return nil, err
			}
			w, err := optionalWindow(ctx, env, in.WindowTarget)
			if err != nil {
				return nil, err
			}
			from, ref, err := resolveSpot(ctx, env, in.WindowTarget, &w, in.From, "from")
			if err != nil {
				return nil, err
			}
			to, _, err := resolveSpot(ctx, env, in.WindowTarget, &w, in.To, "to")
			if err != nil {
				return nil, err
			}
			path := []platform.Point{from}
			if len(in.Path) > 0 {
				if err := placeless(&w, "path"); err != nil {
					return nil, err
				}
			}
			for _, p := range in.Path {
				pt := platform.Point{X: p.X, Y: p.Y}
				if w.Handle != 0 {
					pt.X += w.Bounds.X
					pt.Y += w.Bounds.Y
				}
				path = append(path, pt)
			}
			path = append(path, to)
			obs := watchPointer(ctx, env, w, from, ref)
			if err := gesture(ctx, env, w, func(ctx context.Context, in platform.Input) error { return in.Drag(ctx, path, button) }); err != nil {
				obs.stop()
				return nil, err
			}
			res := dragResult{Dragged: true, From: [2]int{from.X, from.Y}, To: [2]int{to.X, to.Y}, Points: len(path)}
			if w.Handle != 0 {
				info := windowInfo(w)
				res.Window = &info
			}
			res.Effect, resp.Warnings = settled(ctx, obs, settle, fmt.Sprintf("drag from %d,%d to %d,%d", from.X, from.Y, to.X, to.Y))
			return &res, nil
		},
	})
}
