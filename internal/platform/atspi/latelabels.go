package atspi

import (
	"context"
	"strings"

	"github.com/mcec/mcec/internal/platform"
)

// Late labels (bridge.lateLabels). Chromium names a check box or radio button inside a
// <label> from the label's text when it first describes the box, and does not name it again
// when the text arrives later: the HTML parser may yield between `<input>` and the text that
// follows it (it does on a loaded machine), and scripts add text as they please. The box then
// stays nameless, with no labelled-by relation, and the text shows as a static text right
// after it. The box takes that text, as the page shows it to a person and as Chromium names
// the same markup when the text is there in time.

// lateLabelled reports whether n is a nameless check box or radio button, the only controls
// whose label text follows them.
func lateLabelled(n *platform.Node) bool {
	return n.Name == "" && (n.Role == "check box" || n.Role == "radio button")
}

// nameLateLabels names each nameless check box or radio button among siblings from the static
// text right after it.
func nameLateLabels(siblings []*platform.Node) {
	for i, n := range siblings[:max(len(siblings)-1, 0)] {
		if next := siblings[i+1]; lateLabelled(n) && next.Role == "static" {
			n.Name = strings.TrimSpace(next.Name)
		}
	}
}

// lateLabel is the name a nameless box at index-1 of parent takes: the text of the static text
// at index, or "" when there is none (or the application does not answer).
func (c *Client) lateLabel(ctx context.Context, parent objRef, index int32) string {
	next, _, err := c.childAt(ctx, parent, index)
	if err != nil || next.null() {
		return ""
	}
	o, err := c.inspect(ctx, next, withProps)
	if err != nil || o.role() != "static" {
		return ""
	}
	return strings.TrimSpace(o.n.info.name)
}
