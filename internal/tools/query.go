package tools

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/sysload"
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
	Ref         string `json:"ref,omitempty" jsonschema:"Root the tree at this element (a ref from query or find) instead of the window's frame; needs no window."`
	Format      string `json:"format,omitempty" jsonschema:"json (default): node objects; outline: one line per node, ref role \"name\" = \"value\" (x,y wxh) {states}, a quarter of the tokens."`
	Since       string `json:"since,omitempty" jsonschema:"last: only what changed since this session's previous query of the same window (or ref): added, removed, changed."`
	MaxDepth    *int   `json:"maxDepth,omitempty" jsonschema:"Levels below the window's frame to return, unnamed layout containers not counted (default 6)."`
	MaxNodes    *int   `json:"maxNodes,omitempty" jsonschema:"Nodes to return at most (default 1000)."`
	MaxChildren *int   `json:"maxChildren,omitempty" jsonschema:"Children listed of any one node (default 200); a node with more says childCount."`
	TimeBudget  *int   `json:"timeBudget,omitempty" jsonschema:"Milliseconds the walk may take before it returns what it has (default 2000, up to 4x that on a loaded machine)."`
}

// treeLimits checks query's limit arguments and fills in the defaults.
func (in *queryArgs) treeLimits() (platform.TreeLimits, error) {
	// The default time budget stretches with the machine's load (sysload): the same tree takes
	// longer to read on a loaded machine (beside a second make test, Chromium's 240-node page was
	// cut at 2 s), and an agent that gave no budget wants the tree, not a part of it.
	limits := platform.TreeLimits{MaxDepth: defaultMaxDepth, MaxNodes: defaultMaxNodes, MaxChildren: defaultMaxChildren,
		Budget: sysload.Scale(defaultTimeBudget * time.Millisecond)}
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
	// Window is left out of diffs and "unchanged": the session's previous query of it said it,
	// and a one-field diff should cost a few dozen tokens.
	Window    *WindowInfo `json:"window,omitempty"`
	NodeCount int         `json:"nodeCount"`
	Truncated bool        `json:"truncated"`
	// Format is "json" (Tree) or "outline" (Outline); Sent is "tree", or with since:"last"
	// "diff" (Diff), "unchanged", or "tree" when there was nothing to compare with or most of it
	// changed.
	Format  string    `json:"format"`
	Sent    string    `json:"sent"`
	Tree    *Element  `json:"tree,omitempty"`
	Outline string    `json:"outline,omitempty"`
	Diff    *treeDiff `json:"diff,omitempty"`
}

// querySummary is what the session keeps of a query: enough to debug a later failure, without
// repeating a thousand-node tree in every error.
type querySummary struct {
	Window    WindowInfo `json:"window"`
	NodeCount int        `json:"nodeCount"`
	Truncated bool       `json:"truncated"`
}

func queryTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[queryArgs, queryResult]{
		Name:  "query",
		Title: "Read the accessibility tree",
		Description: "The accessibility tree of the target window's frame: nodes with ref, controlType, role, name, " +
			"bounds, states, children. Bounded by maxDepth (6), maxNodes (1000), maxChildren (200), timeBudget (2000 ms); " +
			"a clipped tree says truncated and names the limit. format outline: one line per node, a quarter of the " +
			"tokens; since last: only what changed since your last query of it; ref: one element's subtree.",
		Annotations:       catalog.Annotations{ReadOnly: true, Idempotent: true, OpenWorld: true},
		ResultTypeSchemas: elementSchemas,
		Errors: slices.Concat(windowTargetErrors, []contract.Code{contract.CodeNoAccessibleTree, contract.CodeTreeNotReady, contract.CodeFrameAmbiguous, contract.CodeAppNotResponding,
			contract.CodeTargetElevated, contract.CodeAtspiUnavailable}),
		Warnings: []contract.Code{contract.WarnTreeTruncated, contract.WarnTreeSkeleton, contract.WarnSecretMasked},
		Run: func(ctx context.Context, call *catalog.Call, in *queryArgs, resp *catalog.Response) (*queryResult, error) {
			limits, err := in.treeLimits()
			if err != nil {
				return nil, err
			}
			if in.Format != "" && in.Format != "json" && in.Format != "outline" {
				return nil, contract.Errorf(contract.CodeBadArguments, "format %q is not json or outline", in.Format)
			}
			if in.Since != "" && in.Since != "last" {
				return nil, contract.Errorf(contract.CodeBadArguments, "since %q is not last", in.Since)
			}
			w, tree, err := queryTree(ctx, env, in, limits)
			if err != nil {
				return nil, err
			}
			wi := windowInfo(w)
			call.Session.SetTarget(wi)
			res := queryResult{Window: &wi, NodeCount: tree.NodeCount, Truncated: tree.Truncated,
				Format: cmp.Or(in.Format, "json"), Sent: "tree"}
			key := "query:" + cmp.Or(in.Ref, fmt.Sprint(w.Handle))
			if in.Since == "last" {
				// The previous tree is kept whole and compared only when a diff is asked for: most
				// queries never are.
				if prev, ok := call.Session.Memo(key).(*platform.Node); ok {
					res.Diff, res.Sent = diffTrees(treeLines(prev), treeLines(tree.Root), tree.Root, res.Format)
				}
			}
			call.Session.SetMemo(key, tree.Root)
			if res.Sent != "tree" {
				res.Window = nil
			}
			if res.Sent == "tree" {
				if res.Format == "outline" {
					if in.Ref != "" {
						res.Outline = outlineListed(tree.Root)
					} else {
						res.Outline = outline(tree.Root)
					}
				} else {
					res.Tree = element(tree.Root)
				}
			}
			resp.Observation = observation("query", querySummary{Window: wi, NodeCount: res.NodeCount, Truncated: res.Truncated})
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
			return &res, nil
		},
	})
}

// queryTree walks the window's frame, or the subtree under ref (in the window of its process).
func queryTree(ctx context.Context, env *Env, in *queryArgs, limits platform.TreeLimits) (platform.Window, platform.Tree, error) {
	if in.Ref != "" {
		l, err := locateRef(ctx, env.Desktop, in.WindowTarget, &ElementSelector{Ref: in.Ref})
		if err != nil {
			return platform.Window{}, platform.Tree{}, err
		}
		t, err := env.Desktop.Subtree(ctx, in.Ref, limits)
		if err != nil {
			return l.window, t, platformError(err)
		}
		return l.window, t, nil
	}
	ctx = primeTrees(ctx, env.Desktop)
	w, err := resolveWindow(ctx, env.Desktop, in.WindowTarget)
	if err != nil {
		return w, platform.Tree{}, err
	}
	t, err := env.Desktop.Tree(ctx, w, limits)
	if err != nil {
		return w, t, platformError(err)
	}
	return w, t, nil
}

// primeTrees lets a backend that mirrors trees start the check a mirrored answer needs while
// the window is looked up (platform.TreePrimer).
func primeTrees(ctx context.Context, d any) context.Context {
	if p, ok := d.(platform.TreePrimer); ok {
		return p.PrimeTrees(ctx)
	}
	return ctx
}
