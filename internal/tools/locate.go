package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/platform"
)

// searchLimits bound the walk behind a selector search: deep and wide enough for real
// applications, bounded so a huge list cannot stall the server.
var searchLimits = platform.TreeLimits{MaxDepth: 64, MaxNodes: 20000}

// located is the outcome of one attempt to find an element.
type located struct {
	window platform.Window
	node   *platform.Node // nil when nothing matched
	// searched is how many nodes the attempt looked at (0 for a ref).
	searched  int
	truncated bool
}

// locate finds the element sel names, in the window target names (a ref needs no window). It
// returns located.node == nil for a miss, and contract errors for ambiguity, bad arguments,
// stale refs and closed windows.
func locate(ctx context.Context, d platform.Desktop, target WindowTarget, sel *ElementSelector) (located, error) {
	if sel.Ref != "" {
		return locateRef(ctx, d, target, sel)
	}
	w, err := resolveWindow(ctx, d, target)
	if err != nil {
		return located{}, err
	}
	tree, err := d.Tree(ctx, w, searchLimits)
	if err != nil {
		return located{window: w}, platformError(err)
	}
	n, err := sel.pick(sel.search(tree.Root))
	if err != nil {
		return located{window: w}, err
	}
	return located{window: w, node: shallow(n), searched: tree.NodeCount, truncated: tree.Truncated}, nil
}

// locateRef re-reads a ref directly. A target window, when given, must own the element.
func locateRef(ctx context.Context, d platform.Desktop, target WindowTarget, sel *ElementSelector) (located, error) {
	el, err := d.Element(ctx, sel.Ref)
	if err != nil {
		if errors.Is(err, platform.ErrBadRef) {
			return located{}, contract.Errorf(contract.CodeBadArguments, "element.ref %q is not a ref from query or find", sel.Ref)
		}
		return located{}, platformError(err)
	}
	var w platform.Window
	if target.empty() {
		ws, err := d.Windows(ctx)
		if err != nil {
			return located{}, platformError(err)
		}
		for _, x := range ws {
			if x.ProcessID == el.PID {
				w = x
				break
			}
		}
	} else {
		if w, err = resolveWindow(ctx, d, target); err != nil {
			return located{}, err
		}
		if w.ProcessID != el.PID {
			return located{window: w}, contract.Errorf(contract.CodeElementNotFound,
				"element.ref %q belongs to process %d, not to the target window's process %d", sel.Ref, el.PID, w.ProcessID)
		}
	}
	n := el.Node
	if !sel.matches(&n) {
		return located{window: w}, nil // the ref lives but no longer satisfies the other fields
	}
	return located{window: w, node: &n}, nil
}

// shallow copies a node without its children: find and wait-for report one element.
func shallow(n *platform.Node) *platform.Node {
	if n == nil {
		return nil
	}
	c := *n
	c.Children = nil
	return &c
}

// describeMiss says what an attempt saw, for details.
func (l located) describeMiss(sel *ElementSelector) string {
	if sel.Ref != "" {
		return fmt.Sprintf("%s does not match any more", sel)
	}
	s := fmt.Sprintf("no element matched %s among %d nodes of window %d %q", sel, l.searched, l.window.Handle, l.window.Title)
	if l.truncated {
		s += fmt.Sprintf(" (search stopped at %d nodes)", searchLimits.MaxNodes)
	}
	return s
}
