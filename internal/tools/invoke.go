package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/platform"
)

var invokeActions = []platform.ElementAction{platform.ActInvoke, platform.ActToggle, platform.ActSetValue,
	platform.ActSetFocus, platform.ActExpand, platform.ActCollapse, platform.ActSelect}

type invokeArgs struct {
	WindowTarget
	Element *ElementSelector `json:"element,omitempty" jsonschema:"The element to act on (a ref needs no window)."`
	Action  string           `json:"action,omitempty" jsonschema:"invoke (default), toggle, setvalue, setfocus, expand, collapse or select."`
	Text    *string          `json:"text,omitempty" jsonschema:"With setvalue: the text, or the number for sliders and spin buttons."`
	Via     string           `json:"via,omitempty" jsonschema:"auto (default): a click for activations of on-screen buttons and menu items and for elements without a usable action, typing for values the accessibility API did not apply; accessibility: the accessibility API only; input: real input only (a click at the centre; setvalue: click, select all, type)."`
	settleArg
}

type invokeResult struct {
	Invoked bool   `json:"invoked"`
	Action  string `json:"action"`
	// Via is how the action was delivered: "accessibility" or "input" (XTEST at the element).
	Via string `json:"via"`
	// Verified (setvalue): the value read back equals the text; false when it cannot be read
	// (password fields) or a number was rounded. For select of a combo box's entry: the combo
	// box shows the entry. For setfocus: the element reports the focus.
	Verified *bool `json:"verified,omitempty"`
	// Element is re-read after the action (omitted while a modal dialog blocks the app).
	Element *Element    `json:"element,omitempty"`
	Window  *WindowInfo `json:"window,omitempty"`
	// ModalPending: a modal dialog opened and waits for an answer (the action's handler runs
	// until it closes); after an accessibility action the app may answer nothing meanwhile.
	ModalPending bool `json:"modalPending,omitempty"`
	// Effect is what the action observably changed once the UI settled.
	Effect *Effect `json:"effect,omitempty"`
}

func invokeTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[invokeArgs, invokeResult]{
		Name:  "invoke",
		Title: "Act on an element",
		Description: "Act on an element: invoke, toggle, setvalue, setfocus, expand, collapse, select (menu items, tabs, " +
			"list items, combo entries). Does not wait for it. On-screen buttons and menu items, and elements without " +
			"an action, get a real click (see via); setvalue is read back, typed where ignored, else value-not-applied. " +
			"Returns the observed effect once the UI settled; warns no-observed-effect. modalPending: a modal dialog " +
			"opened; answer it next.",
		Annotations:       catalog.Annotations{Destructive: true, OpenWorld: true},
		Warnings:          []contract.Code{contract.WarnNoObservedEffect, contract.WarnEffectUnobservable, contract.WarnElementHidden},
		ResultTypeSchemas: elementSchemas,
		Errors: slices.Concat(windowTargetErrors, []contract.Code{contract.CodeActionUnknown, contract.CodeElementNotFound,
			contract.CodePatternUnsupported, contract.CodeElementStale, contract.CodeFocusNotSet, contract.CodeInvokeFaulted,
			contract.CodeAppNotResponding, contract.CodeTargetElevated, contract.CodeValueNotApplied, contract.CodeForegroundNotSet,
			contract.CodeEmergencyStopped}),
		Run: func(ctx context.Context, call *catalog.Call, in *invokeArgs, resp *catalog.Response) (*invokeResult, error) {
			action := platform.ElementAction(in.Action)
			if action == "" {
				action = platform.ActInvoke
			}
			if !slices.Contains(invokeActions, action) {
				return nil, contract.Errorf(contract.CodeActionUnknown, "action %q is not one of %s", in.Action, joinNames(invokeActions))
			}
			if action == platform.ActSetValue && in.Text == nil {
				return nil, contract.Errorf(contract.CodeBadArguments, "action setvalue needs text")
			}
			if err := in.Element.check(); err != nil {
				return nil, err
			}
			via := in.Via
			switch via {
			case "":
				via = viaAuto
			case viaAuto, viaInput, viaAccessibility:
			default:
				return nil, contract.Errorf(contract.CodeBadArguments, "via %q is not auto, input or accessibility", in.Via)
			}
			settle, err := in.duration()
			if err != nil {
				return nil, err
			}
			l, err := locateActionable(ctx, env.Desktop, in.WindowTarget, in.Element, actionNeeds{enabled: true})
			if err != nil {
				return nil, err
			}
			if l.node == nil {
				return nil, contract.Errorf(contract.CodeElementNotFound, "%s (looked for %v; for longer, wait-for first)", l.describeMiss(in.Element), actionableWait)
			}
			if err := ocrRefusal(l.node, action); err != nil {
				return nil, err
			}
			if err := checkOwner(l.window.ProcessID); err != nil {
				return nil, err
			}
			text := ""
			if in.Text != nil {
				text = *in.Text
			}
			res := invokeResult{Action: string(action)}
			if l.window.Handle != 0 {
				w := windowInfo(l.window)
				res.Window = &w
				call.Session.SetTarget(w)
			}
			obs := watchAction(ctx, env.Desktop, l.window, l.node.Ref)
			out, err := deliver(ctx, env, l, in.Element.Ref != "", action, text, via)
			if err != nil {
				obs.stop()
				return nil, err
			}
			res.Invoked, res.ModalPending, res.Via, res.Verified = true, out.modalPending, out.via, out.verified
			eff := obs.settle(ctx, settle, out.modalPending)
			res.Effect = &eff
			if out.recheck != nil {
				if err := out.recheck(ctx); err != nil {
					return nil, err
				}
			}
			// A modal dialog that opened is pending on every path: after input (and in toolkits
			// whose bridge keeps answering) the application stays reachable, but the window that
			// opened it takes no input until it is answered.
			res.ModalPending = res.ModalPending || eff.ModalOpened()
			res.Element = element(l.node)
			if !out.modalPending {
				if el, err := env.Desktop.Element(ctx, l.node.Ref); err == nil {
					res.Element = element(&el.Node)
				}
			}
			if out.via == viaAccessibility && !shown(l.node) && !menuItemRoles[l.node.Role] {
				// An item of a closed menu is hidden by nature; anything else nobody saw change.
				resp.Warnings = append(resp.Warnings, contract.Warn(contract.WarnElementHidden,
					"%s (%s %q) is not shown (a hidden page's or part's, or 0×0): %s went through the accessibility API where "+
						"nobody sees it; if a shown element was meant, find it (index counts shown elements first)",
					l.node.Ref, l.node.Role, l.node.Name, action))
			}
			if !eff.observed() && !res.ModalPending && (res.Verified == nil || !*res.Verified) {
				// (A verified result is the state asked for, seen: setfocus on the element that
				// had the focus changes nothing, and nothing was lost.)
				resp.Warnings = append(resp.Warnings, noEffectWarning(fmt.Sprintf("%s on %s (%s %q)", action, l.node.Ref, l.node.Role, l.node.Name), eff))
			}
			return &res, nil
		},
	})
}

// joinNames lists named values for an error detail.
func joinNames[T ~string](names []T) string {
	s := make([]string, len(names))
	for i, n := range names {
		s[i] = string(n)
	}
	return strings.Join(s, ", ")
}

// actionError maps a failed semantic action onto the contract.
func actionError(err error, action platform.ElementAction, n *platform.Node) error {
	switch {
	case errors.Is(err, platform.ErrUnsupported):
		return contract.Errorf(contract.CodePatternUnsupported, "%s (%s %q) cannot %s: %v", n.Ref, n.Role, n.Name, action, err)
	case errors.Is(err, platform.ErrNotFocused):
		return contract.Errorf(contract.CodeFocusNotSet, "focus did not move to %s (%s %q): %v; click it instead", n.Ref, n.Role, n.Name, err)
	case errors.Is(err, platform.ErrActionFailed):
		return contract.Errorf(contract.CodeInvokeFaulted, "%s on %s (%s %q) failed: %v", action, n.Ref, n.Role, n.Name, err)
	case errors.Is(err, platform.ErrBadValue):
		return contract.Errorf(contract.CodeBadArguments, "%v", err)
	}
	return platformError(err)
}
