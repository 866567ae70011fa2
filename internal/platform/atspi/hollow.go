package atspi

import (
	"context"
	"fmt"
	"time"

	"github.com/mcec/mcec/internal/platform"
)

// Hollow Chromium frames. A Chromium (or Electron) window's frame holds its whole views tree:
// caption buttons, toolbar, tabs and the page's document. For a moment while Chromium rebuilds
// that tree the frame holds only empty panels; a walk then is the frame and one or two
// nameless panels, complete and untruncated. It was seen on a loaded machine on a private
// GNOME desktop (TestReach/Chromium-GNOME, three times), right after the page's button had
// been found in the same window, and the walks a moment later were whole again. A healthy
// Chromium window always shows some control (a views dialog its buttons, a browser its
// toolbar and page), so a hollow walk is waited out, bounded, rather than handed to an agent as
// what the window shows.

// hollowWait bounds the wait for a hollow Chromium frame to fill (stretched with the machine's
// load); hollowPoll is the pause between walks.
const (
	hollowWait = 2 * time.Second
	hollowPoll = 100 * time.Millisecond
)

// structuralRoles are the roles of nodes that only hold others; a walk of nothing else shows
// no content.
var structuralRoles = map[string]bool{
	"frame": true, "window": true, "panel": true, "filler": true, "unknown": true,
	"redundant object": true, "invalid": true,
}

// hollow reports a complete walk of a Chromium frame that holds children but no content.
// A frame with no children at all is the other skeleton (renderer accessibility off), which
// waiting does not fill; a truncated walk may have stopped above the content.
func hollow(b bridge, t platform.Tree) bool {
	if !b.chromium() || t.Truncated || t.Root == nil || len(t.Root.Children) == 0 {
		return false
	}
	return onlyStructure(t.Root)
}

func onlyStructure(n *platform.Node) bool {
	if !structuralRoles[n.Role] {
		return false
	}
	for _, c := range n.Children {
		if !onlyStructure(c) {
			return false
		}
	}
	return true
}

// fillHollow walks the window again while its Chromium frame is hollow, until it shows
// content, hollowWait passes or ctx ends. A frame still hollow then is answered with a
// Skeleton note that says so, never as the window's content.
func (c *Client) fillHollow(ctx context.Context, win platform.Window, limits platform.TreeLimits, t platform.Tree) (platform.Tree, error) {
	start := time.Now()
	wait := time.NewTimer(c.stretch(hollowWait))
	defer wait.Stop()
	for {
		select {
		case <-ctx.Done():
		case <-wait.C:
		case <-time.After(hollowPoll):
			next, isHollow, err := c.treeOnce(ctx, win, limits)
			if err != nil {
				return platform.Tree{}, err
			}
			t = next
			if !isHollow {
				c.log.Debug("atspi: a hollow Chromium frame filled", "pid", win.ProcessID, "after", time.Since(start))
				return t, nil
			}
			continue
		}
		break
	}
	t.Skeleton = fmt.Sprintf("the Chromium window %q showed only empty panels for %v (it rebuilds its accessibility tree "+
		"now and then, or its content is not there yet); query again, or use capture and pixel input",
		win.Title, time.Since(start).Round(100*time.Millisecond))
	return t, nil
}
