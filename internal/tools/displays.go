package tools

import (
	"context"

	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/platform"
)

type displaysArgs struct{}

type displayInfo struct {
	Index       int           `json:"index"`
	Primary     bool          `json:"primary"`
	Name        string        `json:"name"`
	Bounds      platform.Rect `json:"bounds"`
	WorkingArea platform.Rect `json:"workingArea"`
	DPI         float64       `json:"dpi"`
	Scale       float64       `json:"scale"`
}

type displaysResult struct {
	Count         int           `json:"count"`
	VirtualBounds platform.Rect `json:"virtualBounds"`
	Displays      []displayInfo `json:"displays"`
}

func displaysTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[displaysArgs, displaysResult]{
		Name:        "displays",
		Title:       "List displays",
		Description: "List monitors with bounds, working area, DPI and scale, and the virtual screen bounds.",
		Annotations: catalog.Annotations{ReadOnly: true, Idempotent: true},
		Run: func(ctx context.Context, call *catalog.Call, in *displaysArgs, resp *catalog.Response) (*displaysResult, error) {
			ds, err := env.Desktop.Displays(ctx)
			if err != nil {
				return nil, platformError(err)
			}
			res := displaysResult{VirtualBounds: ds.VirtualBounds, Displays: []displayInfo{}}
			for _, m := range ds.Monitors {
				res.Displays = append(res.Displays, displayInfo{Index: m.Index, Primary: m.Primary, Name: m.Name,
					Bounds: m.Bounds, WorkingArea: m.WorkingArea, DPI: m.DPI, Scale: m.Scale})
			}
			res.Count = len(res.Displays)
			return &res, nil
		},
	})
}
