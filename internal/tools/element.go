package tools

import (
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcec/mcec/internal/platform"
)

// elementSchemas stands in for Element in result schemas: it is recursive (children), which
// schema inference cannot express.
var elementSchemas = map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[Element](): {Type: "object",
	Description: "element: ref, controlType, role, name, bounds, state flags, children"}}

// Element is the node JSON of query (and later find): identity, bounds in absolute screen
// pixels, the state flags agents branch on, and children.
type Element struct {
	Ref          string   `json:"ref"`
	ControlType  string   `json:"controlType"`
	Role         string   `json:"role"`
	Name         string   `json:"name"`
	AutomationID string   `json:"automationId,omitempty"`
	Description  string   `json:"description,omitempty"`
	X            *int     `json:"x,omitempty"`
	Y            *int     `json:"y,omitempty"`
	Width        *int     `json:"width,omitempty"`
	Height       *int     `json:"height,omitempty"`
	IsEnabled    bool     `json:"isEnabled"`
	IsOffscreen  bool     `json:"isOffscreen"`
	IsFocused    bool     `json:"isFocused"`
	Value        *string  `json:"value,omitempty"`
	IsSelected   *bool    `json:"isSelected,omitempty"`
	ToggleState  string   `json:"toggleState,omitempty"`
	IsExpanded   *bool    `json:"isExpanded,omitempty"`
	Actions      []string `json:"actions,omitempty"`
	// Source is "ocr" for an element found on screen by OCR (screenText), not in the tree.
	Source string `json:"source,omitempty"`
	// ChildCount is how many children the element has when fewer are listed (a limit cut them).
	ChildCount int        `json:"childCount,omitempty"`
	Children   []*Element `json:"children,omitempty"`
}

// toggleRoles are the roles whose checked state is a toggle state.
var toggleRoles = map[string]bool{
	"check box": true, "toggle button": true, "radio button": true,
	"check menu item": true, "radio menu item": true, "switch": true,
}

// element converts a platform node (and its subtree). Bounds are omitted when the backend has
// none (hidden or component-less nodes) rather than reported as bogus numbers.
func element(n *platform.Node) *Element {
	st := n.States
	e := &Element{
		Ref: n.Ref, ControlType: n.ControlType, Role: n.Role, Name: n.Name,
		AutomationID: n.AutomationID, Description: n.Description,
		IsEnabled: st["enabled"] || st["sensitive"], IsOffscreen: !st["showing"], IsFocused: st["focused"],
		Value: n.Value, Actions: n.Actions, ChildCount: n.ChildCount,
	}
	if isOCRRef(n.Ref) {
		e.Source = "ocr"
	}
	if b := n.Bounds; b != nil {
		x, y, w, h := b.X, b.Y, b.Width, b.Height
		e.X, e.Y, e.Width, e.Height = &x, &y, &w, &h
	}
	if st["selectable"] {
		sel := st["selected"]
		e.IsSelected = &sel
	}
	if st["expandable"] {
		exp := st["expanded"]
		e.IsExpanded = &exp
	}
	if toggleRoles[n.Role] || st["checkable"] {
		switch {
		case st["indeterminate"]:
			e.ToggleState = "indeterminate"
		case st["checked"] || st["pressed"]:
			e.ToggleState = "on"
		default:
			e.ToggleState = "off"
		}
	}
	if len(n.Children) > 0 {
		e.Children = make([]*Element, len(n.Children))
		for i, c := range n.Children {
			e.Children[i] = element(c)
		}
	}
	return e
}
