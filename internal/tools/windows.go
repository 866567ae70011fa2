package tools

import (
	"context"

	"github.com/mcec/mcec/internal/catalog"
)

type windowsArgs struct {
	Window    string `json:"window,omitempty" jsonschema:"Only windows whose title contains this, case-insensitive."`
	Process   string `json:"process,omitempty" jsonschema:"Only windows of this process name, case-insensitive."`
	PID       int    `json:"pid,omitempty" jsonschema:"Only windows of this process id."`
	ClassName string `json:"className,omitempty" jsonschema:"Only windows of this WM_CLASS class, case-insensitive."`
}

type windowsResult struct {
	Count   int          `json:"count"`
	Windows []WindowInfo `json:"windows"`
}

func windowsTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[windowsArgs]{
		Name:  "windows",
		Title: "List windows",
		Description: "List top-level windows (bottom to top) with handle, title, className, processName, " +
			"processId, bounds and state. Optional filters narrow the list. Cheap: call it first.",
		Annotations: catalog.Annotations{ReadOnly: true, Idempotent: true, OpenWorld: true},
		Result:      windowsResult{},
		Run: func(ctx context.Context, call *catalog.Call, in *windowsArgs) (*catalog.Response, error) {
			ws, err := env.Desktop.Windows(ctx)
			if err != nil {
				return nil, platformError(err)
			}
			filter := WindowTarget{Window: in.Window, Process: in.Process, PID: in.PID, ClassName: in.ClassName}
			res := windowsResult{Windows: []WindowInfo{}}
			for _, w := range filter.filter(ws) {
				res.Windows = append(res.Windows, windowInfo(w))
			}
			res.Count = len(res.Windows)
			return &catalog.Response{Result: res, Observation: observation("windows", res)}, nil
		},
	})
}
