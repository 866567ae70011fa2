package atspi

import (
	"context"
	"strings"

	"github.com/mcec/mcec/internal/platform"
)

// Mnemonic names (bridge.mnemonicNames). GTK 4.8 names a widget whose label uses an underline
// mnemonic from the raw label as well: a button "_Mnemo Mnemo" (the raw label, then the text
// its label child shows), "7 7" (gnome-calculator's digits, whose labels use-underline and
// have none), a check box "_Check me". An agent looks for what the screen shows. So where the
// name is the shown text's raw label, alone or followed by the shown text, and a label child
// shows that text, the element takes the shown text. Any other name is left as it is: a
// button really labelled "Bye Bye" has no child showing "Bye".

// unmnemonic is name with the raw label dropped, given the text shown is shown; name when
// name is not made so. A nameless button takes the text its label shows: GTK 4.8 names no
// button whose label uses markup (gnome-calculator's "π", "x²"), where a button is named by
// its content.
func unmnemonic(name, shown string) string {
	if shown == "" || name == shown {
		return name
	}
	if name == "" {
		return shown
	}
	raw, rest, doubled := strings.Cut(name, " "+shown)
	switch {
	case doubled && rest == "" && raw != "" && stripMnemonic(raw) == shown:
		return shown
	case strings.Contains(name, "_") && stripMnemonic(name) == shown:
		return shown
	}
	return name
}

// stripMnemonic is label as GTK shows it: an underscore marks the next character ("__" is
// one underscore).
func stripMnemonic(label string) string {
	var b strings.Builder
	for i := 0; i < len(label); i++ {
		if label[i] == '_' && i+1 < len(label) {
			i++
		}
		b.WriteByte(label[i])
	}
	return b.String()
}

// mnemonicSuspect reports a name that may carry a raw mnemonic label, or a button's missing
// one: worth a look at the element's label child when it was read alone.
func mnemonicSuspect(role, name string) bool {
	if name == "" {
		return contentNamed[role]
	}
	if strings.Contains(name, "_") {
		return true
	}
	half, rest, ok := strings.Cut(name, " ")
	return ok && half == rest
}

// contentNamed are the roles named by their content, which GTK 4.8 leaves nameless when their
// label uses markup.
var contentNamed = map[string]bool{"push button": true, "toggle button": true, "check box": true, "radio button": true,
	"menu item": true, "check menu item": true, "radio menu item": true}

// shownLabel is the name of the first label among children.
func shownLabel(children []*platform.Node) string {
	for _, k := range children {
		if k.Role == "label" {
			return k.Name
		}
	}
	return ""
}

// childLabel is the name of the first label among the first few children of r (an element
// read alone), or "".
func (c *Client) childLabel(ctx context.Context, r objRef) string {
	refs, _, _, err := c.children(ctx, r)
	if err != nil {
		return ""
	}
	for _, k := range refs[:min(len(refs), 3)] {
		o, err := c.inspect(ctx, k, withProps)
		if err == nil && o.role() == "label" {
			return strings.TrimSpace(o.n.info.name)
		}
	}
	return ""
}
