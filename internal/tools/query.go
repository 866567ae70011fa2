package tools

import (
	"context"
	"slices"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/platform"
)

// Query limits (PRODUCT.md §8).
const (
	defaultMaxDepth = 6
	defaultMaxNodes = 1000
	maxMaxNodes     = 20000
)

type queryArgs struct {
	WindowTarget
	MaxDepth *int `json:"maxDepth,omitempty" jsonschema:"Levels below the window's frame to return (default 6)."`
	MaxNodes *int `json:"maxNodes,omitempty" jsonschema:"Nodes to return at most (default 1000)."`
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
			"controlType, role, name, absolute bounds, state flags and children. Bounded by maxDepth (6) and " +
			"maxNodes (1000); a clipped tree says truncated and warns tree-truncated. Prefer it to capture.",
		Annotations:       catalog.Annotations{ReadOnly: true, Idempotent: true, OpenWorld: true},
		Result:            queryResult{},
		ResultTypeSchemas: elementSchemas,
		Errors: slices.Concat(windowTargetErrors, []contract.Code{contract.CodeNoAccessibleTree, contract.CodeFrameAmbiguous, contract.CodeAppNotResponding,
			contract.CodeTargetElevated, contract.CodeAtspiUnavailable}),
		Warnings: []contract.Code{contract.WarnTreeTruncated, contract.WarnSecretMasked},
		Run: func(ctx context.Context, call *catalog.Call, in *queryArgs) (*catalog.Response, error) {
			limits := platform.TreeLimits{MaxDepth: defaultMaxDepth, MaxNodes: defaultMaxNodes}
			if in.MaxDepth != nil {
				if *in.MaxDepth < 0 {
					return nil, contract.Errorf(contract.CodeBadArguments, "maxDepth must be 0 or more, got %d", *in.MaxDepth)
				}
				limits.MaxDepth = *in.MaxDepth
			}
			if in.MaxNodes != nil {
				if *in.MaxNodes < 1 || *in.MaxNodes > maxMaxNodes {
					return nil, contract.Errorf(contract.CodeBadArguments, "maxNodes must be 1 to %d, got %d", maxMaxNodes, *in.MaxNodes)
				}
				limits.MaxNodes = *in.MaxNodes
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
				resp.Warnings = append(resp.Warnings, contract.Warn(contract.WarnTreeTruncated,
					"tree clipped at maxDepth %d / maxNodes %d; query a deeper limit or target a smaller window", limits.MaxDepth, limits.MaxNodes))
			}
			if tree.SecretsMasked > 0 {
				resp.Warnings = append(resp.Warnings, contract.Warn(contract.WarnSecretMasked,
					"%d password field(s): their text is withheld", tree.SecretsMasked))
			}
			return resp, nil
		},
	})
}
