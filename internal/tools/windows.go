package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/progress"
)

var windowConditions = []string{"appears", "disappears", "foreground"}

type windowsArgs struct {
	Window    string `json:"window,omitempty" mcec:"nonempty" jsonschema:"Only windows whose title contains this, case-insensitive."`
	Handle    uint32 `json:"handle,omitempty" mcec:"nonempty" jsonschema:"Only the window with this handle (X11 window id, sway container id, or a number KWin windows get in order)."`
	Process   string `json:"process,omitempty" mcec:"nonempty" jsonschema:"Only windows of this process name, case-insensitive."`
	PID       int    `json:"pid,omitempty" mcec:"nonempty" jsonschema:"Only windows of this process id."`
	ClassName string `json:"className,omitempty" mcec:"nonempty" jsonschema:"Only windows of this WM_CLASS class, case-insensitive."`
	Condition string `json:"condition,omitempty" jsonschema:"Wait until a matching window appears (default with timeout), disappears, or is in the foreground."`
	Timeout   int    `json:"timeout,omitempty" jsonschema:"Milliseconds to wait for the condition (0: list once). Needs a filter."`
}

type windowsResult struct {
	Condition string       `json:"condition,omitempty"`
	Satisfied *bool        `json:"satisfied,omitempty"`
	Count     int          `json:"count"`
	Windows   []WindowInfo `json:"windows"`
	// WaitedFor is the milliseconds a wait took; with LastObservedWindows (every window seen at the
	// last check) it is present when the wait timed out.
	WaitedFor           *int64        `json:"waitedFor,omitempty"`
	LastObservedWindows *[]WindowInfo `json:"lastObservedWindows,omitempty"`
	Waited              *WaitStats    `json:"waited,omitempty"`
}

func windowsTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[windowsArgs, windowsResult]{
		Name:  "windows",
		Title: "List or wait for windows",
		Description: "List top-level windows (bottom to top) with handle, title, className, processName, processId, " +
			"bounds, state (unplaced: the compositor does not tell where it is), transientFor, type (dialog, normal…) and, on Wayland, " +
			"server (wayland, or xwayland for an X11 program); filters narrow the list. With condition/timeout " +
			"and a filter, waits (woken by window " +
			"events) until a matching window appears, disappears or is in the foreground; a timed-out wait is still " +
			"ok, with satisfied:false and lastObservedWindows.",
		Annotations: catalog.Annotations{ReadOnly: true, Idempotent: true, OpenWorld: true},
		Errors:      []contract.Code{contract.CodeWindowsNoCriteria, contract.CodeUnknownCondition, contract.CodeBadArguments},
		Run: func(ctx context.Context, call *catalog.Call, in *windowsArgs, resp *catalog.Response) (*windowsResult, error) {
			filter := WindowTarget{Window: in.Window, Handle: in.Handle, Process: in.Process, PID: in.PID, ClassName: in.ClassName}
			if in.Condition == "" && in.Timeout == 0 {
				ws, err := env.Desktop.Windows(ctx)
				if err != nil {
					return nil, platformError(err)
				}
				res := windowsResult{Windows: infos(filter.filter(ws))}
				res.Count = len(res.Windows)
				resp.Observation = observation("windows", res)
				return &res, nil
			}
			return waitWindows(ctx, env, in, filter, resp)
		},
	})
}

func waitWindows(ctx context.Context, env *Env, in *windowsArgs, filter WindowTarget, resp *catalog.Response) (*windowsResult, error) {
	cond := in.Condition
	if cond == "" {
		cond = "appears"
	}
	if !slices.Contains(windowConditions, cond) {
		return nil, contract.Errorf(contract.CodeUnknownCondition, "condition %q is not one of %s", in.Condition, strings.Join(windowConditions, ", "))
	}
	if filter.empty() {
		return nil, contract.Errorf(contract.CodeWindowsNoCriteria, "a windows wait needs a filter: window, handle, process, pid or className")
	}
	if err := checkTimeout(in.Timeout); err != nil {
		return nil, err
	}
	var all, matched []platform.Window
	check := func(ctx context.Context) (bool, int, error) {
		ws, err := env.Desktop.Windows(ctx)
		if err != nil {
			return false, 0, platformError(err)
		}
		all, matched = ws, filter.filter(ws)
		if progress.Tracked(ctx) {
			progress.Seen(ctx, fmt.Sprintf("last seen: %d windows, %d matching", len(all), len(matched)))
		}
		switch cond {
		case "disappears":
			return len(matched) == 0, 0, nil
		case "foreground":
			return slices.ContainsFunc(matched, func(w platform.Window) bool { return w.Focused }), 0, nil
		default:
			return len(matched) > 0, 0, nil
		}
	}
	var (
		ok    bool
		stats WaitStats
		err   error
	)
	if in.Timeout == 0 {
		ok, _, err = check(ctx)
		stats.Checks = 1
	} else {
		ok, stats, err = waitFor(ctx, env.Desktop, time.Duration(in.Timeout)*time.Millisecond,
			"waiting until a window "+filter.String()+" "+windowGoal(cond), check)
	}
	if err == nil && !ok && ctx.Err() != nil {
		err = context.Cause(ctx) // cut short by the caller, not a wait that did not hold
	}
	if err != nil {
		return nil, err
	}
	res := windowsResult{Condition: cond, Satisfied: &ok, Windows: infos(matched), Waited: &stats}
	res.Count = len(res.Windows)
	if !ok {
		res.WaitedFor = &stats.WaitedMs
		seen := infos(all)
		res.LastObservedWindows = &seen
	}
	resp.Observation = observation("windows", res)
	return &res, nil
}

func infos(ws []platform.Window) []WindowInfo {
	out := make([]WindowInfo, 0, len(ws))
	for _, w := range ws {
		out = append(out, windowInfo(w))
	}
	return out
}

// windowGoal says what a windows wait waits for, for its progress reports.
func windowGoal(cond string) string {
	switch cond {
	case "disappears":
		return "is gone"
	case "foreground":
		return "is in the foreground"
	}
	return "appears"
}
