package tools

import (
	"context"
	"slices"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
)

type findArgs struct {
	WindowTarget
	Element *ElementSelector `json:"element,omitempty" jsonschema:"The element to find inside the target window (a ref needs no window)."`
	Timeout int              `json:"timeout,omitempty" jsonschema:"Milliseconds to keep looking (default 0: one attempt). A miss is still ok, with found false."`
	Format  string           `json:"format,omitempty" jsonschema:"json (default) or outline: the element, and the candidates when several match, as outline lines."`
}

type findResult struct {
	Found   bool     `json:"found"`
	Element *Element `json:"element,omitempty"`
	// Outline is the element's outline line, instead of Element, with format "outline".
	Outline string `json:"outline,omitempty"`
	// Path names the element's ancestors from the window's frame down ("role \"name\"").
	Path   []string    `json:"path,omitempty"`
	Window *WindowInfo `json:"window,omitempty"`
	// Waited is present when a timeout was given.
	Waited *WaitStats `json:"waited,omitempty"`
}

func findTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[findArgs, findResult]{
		Name:  "find",
		Title: "Find an element",
		Description: "Find one element in the target window by selector ({by, value} or {name, nameContains, role, " +
			"automationId, text, ref, index}). A miss is ok with found:false; several matches fail selector-matched-N " +
			"listing candidates. With timeout, keeps looking (woken by accessibility events) until it appears.",
		Annotations:       catalog.Annotations{ReadOnly: true, Idempotent: true, OpenWorld: true},
		ResultTypeSchemas: elementSchemas,
		Errors: slices.Concat(windowTargetErrors, []contract.Code{contract.CodeElementStale, contract.CodeElementNotFound,
			contract.CodeNoAccessibleTree, contract.CodeTreeNotReady, contract.CodeFrameAmbiguous, contract.CodeAppNotResponding, contract.CodeOCRUnavailable, contract.CodeCaptureFailed}),
		Warnings: []contract.Code{contract.WarnTreeTruncated},
		Run: func(ctx context.Context, call *catalog.Call, in *findArgs, resp *catalog.Response) (*findResult, error) {
			if err := in.Element.check(); err != nil {
				return nil, err
			}
			if err := checkTimeout(in.Timeout); err != nil {
				return nil, err
			}
			if err := checkFormat(in.Format); err != nil {
				return nil, err
			}
			in.Element.outline = in.Format == "outline"
			var (
				last located
				res  findResult
			)
			attempt := func(ctx context.Context) (bool, int, error) {
				l, err := locate(ctx, env.Desktop, in.WindowTarget, in.Element)
				if err != nil {
					return false, l.window.ProcessID, err
				}
				last = l
				return l.node != nil, l.window.ProcessID, nil
			}
			if in.Timeout == 0 {
				if _, _, err := attempt(ctx); err != nil {
					return nil, err
				}
			} else {
				_, stats, err := waitFor(ctx, env.Desktop, time.Duration(in.Timeout)*time.Millisecond,
					"finding "+in.Element.String(), attempt)
				res.Waited = &stats
				if err != nil { // a window that never appeared, an app that never answered
					return nil, err
				}
			}
			return findResponse(call, res, last, in.Format, resp), nil
		},
	})
}

// checkFormat accepts the observation formats.
func checkFormat(format string) error {
	if format != "" && format != "json" && format != "outline" {
		return contract.Errorf(contract.CodeBadArguments, "format %q is not json or outline", format)
	}
	return nil
}

// findResponse builds find's (and wait-for's) result from the last attempt, and its observation
// and warnings in resp.
func findResponse(call *catalog.Call, res findResult, l located, format string, resp *catalog.Response) *findResult {
	if l.window.Handle != 0 {
		w := windowInfo(l.window)
		res.Window = &w
		call.Session.SetTarget(w)
	}
	if l.node != nil {
		res.Found = true
		if format == "outline" {
			res.Outline = outlineLine(l.node, true)
		} else {
			res.Element = element(l.node)
		}
		res.Path = l.path
		resp.Observation = observation("element", res)
	}
	if len(l.truncatedBy) > 0 {
		resp.Warnings = append(resp.Warnings, contract.Warn(contract.WarnTreeTruncated,
			"%s; target a smaller window or a more specific selector", l.searchCut()))
	}
	return &res
}
