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
)

// Query limits (PRODUCT.md §8).
const (
	defaultMaxDepth    = 6
	defaultMaxNodes    = 1000
	maxMaxNodes        = 20000
	defaultMaxChildren = 200
	defaultTimeBudget  = 2000 // ms
	maxTimeBudget      = 30000
)

type queryArgs struct {
	WindowTarget
	MaxDepth    *int `json:"maxDepth,omitempty" jsonschema:"Levels below the window's frame to return, unnamed layout containers not counted (default 6)."`
	MaxNodes    *int `json:"maxNodes,omitempty" jsonschema:"Nodes to return at most (default 1000)."`
	MaxChildren *int `json:"maxChildren,omitempty" jsonschema:"Children listed of any one node (default 200); a node with more says childCount."`
	TimeBudget  *int `json:"timeBudget,omitempty" jsonschema:"Milliseconds the walk may take before it returns what it has (default 2000)."`
}

// treeLimits checks query's limit arguments and fills in the defaults.
func (in *queryArgs) treeLimits() (platform.TreeLimits, error) {
	limits := platform.TreeLimits{MaxDepth: defaultMaxDepth, MaxNodes: defaultMaxNodes, MaxChildren: defaultMaxChildren,
		Budget: defaultTimeBudget * time.Millisecond}
	if in.MaxDepth != nil {
		if *in.MaxDepth < 0 {
			return limits, contract.Errorf(contract.CodeBadArguments, "maxDepth must be 0 or more, got %d", *in.MaxDepth)
		}
		limits.MaxDepth = *in.MaxDepth
	}
	if in.MaxNodes != nil {
		if *in.MaxNodes < 1 || *in.MaxNodes > maxMaxNodes {
			return limits, contract.Errorf(contract.CodeBadArguments, "maxNodes must be 1 to %d, got %d", maxMaxNodes, *in.MaxNodes)
		}
		limits.MaxNodes = *in.MaxNodes
	}
	if in.MaxChildren != nil {
		if *in.MaxChildren < 1 || *in.MaxChildren > maxMaxNodes {
			return limits, contract.Errorf(contract.CodeBadArguments, "maxChildren must be 1 to %d, got %d", maxMaxNodes, *in.MaxChildren)
		}
		limits.MaxChildren = *in.MaxChildren
	}
	if in.TimeBudget != nil {
		if *in.TimeBudget < 1 || *in.TimeBudget > maxTimeBudget {
			return limits, contract.Errorf(contract.CodeBadArguments, "timeBudget must be 1 to %d ms, got %d", maxTimeBudget, *in.TimeBudget)
		}
		limits.Budget = time.Duration(*in.TimeBudget) * time.Millisecond
	}
	return limits, nil
}

// truncationWarning names the limits that actually cut the tree and how to get past each.
func truncationWarning(t platform.Tree, l platform.TreeLimits) contract.Warning {
	var parts []string
	for _, by := range t.TruncatedBy {
		switch by {
		case platform.LimitMaxDepth:
			parts = append(parts, fmt.Sprintf("maxDepth %d (nodes with childCount have more below)", l.MaxDepth))
		case platform.LimitMaxNodes:
			parts = append(parts, fmt.Sprintf("maxNodes %d", l.MaxNodes))
		case platform.LimitMaxChildren:
			parts = append(parts, fmt.Sprintf("maxChildren %d (nodes with childCount list only the first)", l.MaxChildren))
		case platform.LimitTime:
			parts = append(parts, fmt.Sprintf("the %v time budget (the application answers slowly)", l.Budget))
		}
	}
	return contract.Warn(contract.WarnTreeTruncated, "tree clipped by %s; raise that limit, query a smaller window, or find the element",
		strings.Join(parts, ", "))
}

type queryResult struct {
	Window    WindowInfo `json:"window"`
	NodeCount int        `json:"nodeCount"`
	Truncated bool       `json:"truncated"`
	Tree      *Element   `json:"tree"`
}

// querySummary is what the session keeps of a query: enough to debug a later failure, without
// repeating a thousand-node tree in every error.
type querySummary struct {
	Window    WindowInfo `json:"window"`
	NodeCount int        `json:"nodeCount"`
	Truncated bool       `json:"truncated"`
}

func queryTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[queryArgs]{
		Name:  "query",
		Title: "Read the accessibility tree",
		Description: "Return the accessibility tree of the target window's application frame: every node with ref, " +
			"controlType, role, name, absolute bounds, state flags and children. Bounded by maxDepth (6; unnamed layout " +
			"containers not counted), maxNodes (1000), maxChildren (200) and timeBudget (2000 ms); a clipped tree says " +
			"truncated, cut nodes say childCount, and tree-truncated names the limit. Prefer it to capture.",
		Annotations:       catalog.Annotations{ReadOnly: true, Idempotent: true, OpenWorld: true},
		Result:            queryResult{},
		ResultTypeSchemas: elementSchemas,
		Errors: slices.Concat(windowTargetErrors, []contract.Code{contract.CodeNoAccessibleTree, contract.CodeTreeNotReady, contract.CodeFrameAmbiguous, contract.CodeAppNotResponding,
			contract.CodeTargetElevated, contract.CodeAtspiUnavailable}),
		Warnings: []contract.Code{contract.WarnTreeTruncated, contract.WarnTreeSkeleton, contract.WarnSecretMasked},
		Run: func(ctx context.Context, call *catalog.Call, in *queryArgs) (*catalog.Response, error) {
			limits, err := in.treeLimits()
			if err != nil {
				return nil, err
			}
			w, err := resolveWindow(ctx, env.Desktop, in.WindowTarget)
			if err != nil {
				return nil, err
			}
			call.Session.SetTarget(windowInfo(w))
			tree, err := env.Desktop.Tree(ctx, w, limits)
			if err != nil {
				return nil, platformError(err)
			}
			res := queryResult{Window: windowInfo(w), NodeCount: tree.NodeCount, Truncated: tree.Truncated, Tree: element(tree.Root)}
			resp := &catalog.Response{Result: res,
				Observation: observation("query", querySummary{Window: res.Window, NodeCount: res.NodeCount, Truncated: res.Truncated})}
			if tree.Truncated {
				resp.Warnings = append(resp.Warnings, truncationWarning(tree, limits))
			}
			if tree.Skeleton != "" {
				resp.Warnings = append(resp.Warnings, contract.Warn(contract.WarnTreeSkeleton, "%s", tree.Skeleton))
			}
			if tree.SecretsMasked > 0 {
				resp.Warnings = append(resp.Warnings, contract.Warn(contract.WarnSecretMasked,
					"%d password field(s): their text is withheld", tree.SecretsMasked))
			}
			return resp, nil
		},
	})
}
