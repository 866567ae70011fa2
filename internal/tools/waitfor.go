package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/progress"
)

// defaultWaitTimeout is wait-for's timeout when none is given (PRODUCT.md §8).
const defaultWaitTimeout = 5000

var waitConditions = []string{"appears", "disappears", "enabled", "focused", "value", "contains"}

type waitForArgs struct {
	WindowTarget
	Element   *ElementSelector `json:"element,omitempty" jsonschema:"The element to wait on inside the target window (a ref needs no window)."`
	Condition string           `json:"condition,omitempty" jsonschema:"appears (default), disappears, enabled, focused, value (the element's text/value equals text), or contains (it holds text: one command's output on a terminal's screen)."`
	Text      string           `json:"text,omitempty" jsonschema:"With condition value or contains: the expected text or value, or the part of it to wait for."`
	Timeout   *int             `json:"timeout,omitempty" jsonschema:"Milliseconds to wait (default 5000)."`
	Format    string           `json:"format,omitempty" jsonschema:"json (default) or outline: the element, and what was last seen on a timeout, as outline lines."`
}

type waitForResult struct {
	findResult
	Condition string `json:"condition"`
}

func waitForTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[waitForArgs, waitForResult]{
		Name:  "wait-for",
		Title: "Wait for an element condition",
		Description: "Wait until an element appears (default), disappears, is enabled, is focused, or has a value equal to " +
			"text (value) or holding it (contains). Woken by accessibility and window events, so it returns within milliseconds of the change. The " +
			"target window may appear during the wait. A miss fails timeout/wait-condition-timeout saying what was last seen.",
		Annotations:       catalog.Annotations{ReadOnly: true, Idempotent: true, OpenWorld: true},
		ResultTypeSchemas: elementSchemas,
		Errors: slices.Concat(windowTargetErrors, []contract.Code{contract.CodeWaitConditionTimeout, contract.CodeUnknownCondition,
			contract.CodeElementNotFound, contract.CodeAppNotResponding, contract.CodeOCRUnavailable, contract.CodeCaptureFailed}),
		Warnings: []contract.Code{contract.WarnTreeTruncated},
		Run: func(ctx context.Context, call *catalog.Call, in *waitForArgs, resp *catalog.Response) (*waitForResult, error) {
			cond := in.Condition
			if cond == "" {
				cond = "appears"
			}
			if !slices.Contains(waitConditions, cond) {
				return nil, contract.Errorf(contract.CodeUnknownCondition, "condition %q is not one of %s", in.Condition, strings.Join(waitConditions, ", "))
			}
			if err := in.Element.check(); err != nil {
				return nil, err
			}
			if err := checkFormat(in.Format); err != nil {
				return nil, err
			}
			in.Element.outline = in.Format == "outline"
			if (cond == "value" || cond == "contains") && in.Text == "" {
				return nil, contract.Errorf(contract.CodeBadArguments, "condition %s needs text: the expected value", cond)
			}
			timeout := defaultWaitTimeout
			if in.Timeout != nil {
				timeout = *in.Timeout
			}
			if err := checkTimeout(timeout); err != nil {
				return nil, err
			}

			var (
				last     located
				lastErr  error
				finished bool // an attempt ran to its end: last says what it saw
			)
			check := func(ctx context.Context) (bool, int, error) {
				l, err := locate(ctx, env.Desktop, in.WindowTarget, in.Element)
				if err != nil && (ctx.Err() != nil || nearDeadline(ctx)) {
					return false, l.window.ProcessID, err // cut short by the wait's deadline: keep what was last seen
				}
				last, lastErr, finished = l, err, true
				if cond == "disappears" && isGone(err) {
					return true, l.window.ProcessID, nil
				}
				if err != nil {
					return false, l.window.ProcessID, err
				}
				ok := holds(cond, in.Text, l)
				if !ok && progress.Tracked(ctx) {
					progress.Seen(ctx, lastSeen(l, nil, in.Element, in.Format))
				}
				return ok, l.window.ProcessID, nil
			}
			ok, stats, err := waitFor(ctx, env.Desktop, time.Duration(timeout)*time.Millisecond,
				"waiting until "+in.Element.String()+" "+conditionGoal(cond, in.Text), check)
			if ok {
				res := findResponse(call, findResult{Waited: &stats}, last, in.Format, resp)
				return &waitForResult{findResult: *res, Condition: cond}, nil
			}
			var ce *contract.Error
			if err != nil && (!transient(err) || (errors.As(err, &ce) && ce.Code == contract.CodeAppNotResponding)) {
				return nil, err
			}
			seen := lastSeen(last, lastErr, in.Element, in.Format)
			if !finished {
				seen = "no attempt finished within the timeout (the application answered too slowly to look at the window once); a longer timeout gives it time"
			}
			return nil, contract.Errorf(contract.CodeWaitConditionTimeout, "after %d ms, %s %s: %s",
				stats.WaitedMs, in.Element, conditionText(cond, in.Text), seen)
		},
	})
}

// holds evaluates a condition on a successful attempt.
func holds(cond, text string, l located) bool {
	n := l.node
	switch cond {
	case "appears":
		return n != nil
	case "disappears":
		return n == nil
	case "enabled":
		return n != nil && (n.States["enabled"] || n.States["sensitive"])
	case "focused":
		return n != nil && n.States["focused"]
	case "value":
		return n != nil && n.Value != nil && *n.Value == text
	case "contains":
		return n != nil && n.Value != nil && strings.Contains(*n.Value, text)
	}
	return false
}

// isGone reports errors that mean the element (or its window) no longer exists.
func isGone(err error) bool {
	var ce *contract.Error
	if !errors.As(err, &ce) {
		return false
	}
	return ce.Code == contract.CodeElementStale || ce.Code == contract.CodeWindowClosed || ce.Code == contract.CodeWindowNotFound
}

func conditionText(cond, text string) string {
	switch cond {
	case "appears":
		return "did not appear"
	case "disappears":
		return "did not disappear"
	case "enabled":
		return "did not become enabled"
	case "focused":
		return "did not get focus"
	case "contains":
		return fmt.Sprintf("did not come to hold %q", text)
	default:
		return fmt.Sprintf("did not get the value %q", text)
	}
}

// conditionGoal says what a wait waits for, for its progress reports.
func conditionGoal(cond, text string) string {
	switch cond {
	case "appears":
		return "appears"
	case "disappears":
		return "disappears"
	case "enabled":
		return "is enabled"
	case "focused":
		return "has the focus"
	case "contains":
		return fmt.Sprintf("holds %q", text)
	default:
		return fmt.Sprintf("has the value %q", text)
	}
}

// lastSeen describes the last attempt, so the agent knows what was there instead.
func lastSeen(l located, err error, sel *ElementSelector, format string) string {
	switch {
	case err != nil:
		return "last attempt: " + err.Error()
	case l.node == nil:
		return "last seen: " + l.describeMiss(sel)
	case format == "outline":
		return "last seen: " + outlineLine(l.node, true)
	}
	n := l.node
	var states []string
	for s, on := range n.States {
		if on {
			states = append(states, s)
		}
	}
	slices.Sort(states)
	value := "none"
	if n.Value != nil {
		value = fmt.Sprintf("%q", *n.Value)
	}
	return fmt.Sprintf("last seen: ref=%s role=%q name=%q value=%s states=[%s]", n.Ref, n.Role, n.Name, value, strings.Join(states, " "))
}
