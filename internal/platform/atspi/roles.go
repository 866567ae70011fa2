package atspi

import "fmt"

// roleNames is AtspiRole in enumeration order, spelled as atspi_role_get_name and GTK's
// GetRoleName spell them (at-spi2-core 2.46; verified against a live GTK 3 app in the tests).
// GetItems and GetRole report the number, so the name costs no call.
var roleNames = [...]string{
	"invalid", "accelerator label", "alert", "animation", "arrow", "calendar", "canvas",
	"check box", "check menu item", "color chooser", "column header", "combo box",
	"date editor", "desktop icon", "desktop frame", "dial", "dialog", "directory pane",
	"drawing area", "file chooser", "filler", "focus traversable", "font chooser", "frame",
	"glass pane", "html container", "icon", "image", "internal frame", "label",
	"layered pane", "list", "list item", "menu", "menu bar", "menu item", "option pane",
	"page tab", "page tab list", "panel", "password text", "popup menu", "progress bar",
	"push button", "radio button", "radio menu item", "root pane", "row header",
	"scroll bar", "scroll pane", "separator", "slider", "spin button", "split pane",
	"status bar", "table", "table cell", "table column header", "table row header",
	"tearoff menu item", "terminal", "text", "toggle button", "tool bar", "tool tip", "tree",
	"tree table", "unknown", "viewport", "window", "extended", "header", "footer",
	"paragraph", "ruler", "application", "autocomplete", "editbar", "embedded", "entry",
	"chart", "caption", "document frame", "heading", "page", "section", "redundant object",
	"form", "link", "input method window", "table row", "tree item",
	"document spreadsheet", "document presentation", "document text", "document web",
	"document email", "comment", "list box", "grouping", "image map", "notification",
	"info bar", "level bar", "title bar", "block quote", "audio", "video", "definition",
	"article", "landmark", "log", "marquee", "math", "rating", "timer", "static",
	"math fraction", "math root", "subscript", "superscript", "description list",
	"description term", "description value", "footnote", "content deletion",
	"content insertion", "mark", "suggestion", "push button menu",
}

// Role numbers the code looks at.
const (
	roleComboBox     = 11
	rolePasswordText = 40
	roleTableCell    = 56
)

// roleName names an AT-SPI role number. Numbers newer than this table get a stable
// placeholder; the walk asks the application for those (GetRoleName) instead.
func roleName(role uint32) (string, bool) {
	if int(role) < len(roleNames) {
		return roleNames[role], true
	}
	return fmt.Sprintf("role %d", role), false
}

// controlTypes maps AT-SPI role names to UIA-style control types, so agents that know
// Windows UI Automation read Linux trees with the same vocabulary. Roles without a close UIA
// counterpart map to "Custom".
var controlTypes = map[string]string{
	"push button":           "Button",
	"toggle button":         "Button",
	"push button menu":      "SplitButton",
	"arrow":                 "Button",
	"check box":             "CheckBox",
	"radio button":          "RadioButton",
	"entry":                 "Edit",
	"text":                  "Edit",
	"password text":         "Edit",
	"editbar":               "Edit",
	"date editor":           "Edit",
	"label":                 "Text",
	"static":                "Text",
	"caption":               "Text",
	"accelerator label":     "Text",
	"heading":               "Text",
	"paragraph":             "Text",
	"description term":      "Text",
	"description value":     "Text",
	"definition":            "Text",
	"footnote":              "Text",
	"comment":               "Text",
	"timer":                 "Text",
	"marquee":               "Text",
	"math":                  "Text",
	"math fraction":         "Text",
	"math root":             "Text",
	"subscript":             "Text",
	"superscript":           "Text",
	"mark":                  "Text",
	"suggestion":            "Text",
	"content deletion":      "Text",
	"content insertion":     "Text",
	"combo box":             "ComboBox",
	"autocomplete":          "ComboBox",
	"list":                  "List",
	"list box":              "List",
	"description list":      "List",
	"list item":             "ListItem",
	"menu":                  "Menu",
	"popup menu":            "Menu",
	"menu bar":              "MenuBar",
	"menu item":             "MenuItem",
	"check menu item":       "MenuItem",
	"radio menu item":       "MenuItem",
	"tearoff menu item":     "MenuItem",
	"page tab list":         "Tab",
	"page tab":              "TabItem",
	"tree":                  "Tree",
	"tree table":            "Tree",
	"tree item":             "TreeItem",
	"table":                 "Table",
	"document spreadsheet":  "Table",
	"table cell":            "DataItem",
	"table row":             "DataItem",
	"column header":         "HeaderItem",
	"row header":            "HeaderItem",
	"table column header":   "HeaderItem",
	"table row header":      "HeaderItem",
	"header":                "Header",
	"slider":                "Slider",
	"dial":                  "Slider",
	"rating":                "Slider",
	"spin button":           "Spinner",
	"progress bar":          "ProgressBar",
	"level bar":             "ProgressBar",
	"scroll bar":            "ScrollBar",
	"tool bar":              "ToolBar",
	"status bar":            "StatusBar",
	"info bar":              "StatusBar",
	"tool tip":              "ToolTip",
	"frame":                 "Window",
	"dialog":                "Window",
	"window":                "Window",
	"alert":                 "Window",
	"input method window":   "Window",
	"notification":          "Window",
	"application":           "Window",
	"title bar":             "TitleBar",
	"panel":                 "Pane",
	"filler":                "Pane",
	"scroll pane":           "Pane",
	"viewport":              "Pane",
	"split pane":            "Pane",
	"layered pane":          "Pane",
	"root pane":             "Pane",
	"glass pane":            "Pane",
	"option pane":           "Pane",
	"internal frame":        "Pane",
	"desktop frame":         "Pane",
	"directory pane":        "Pane",
	"file chooser":          "Pane",
	"color chooser":         "Pane",
	"font chooser":          "Pane",
	"drawing area":          "Pane",
	"canvas":                "Pane",
	"embedded":              "Pane",
	"ruler":                 "Pane",
	"footer":                "Group",
	"grouping":              "Group",
	"section":               "Group",
	"form":                  "Group",
	"block quote":           "Group",
	"article":               "Group",
	"landmark":              "Group",
	"log":                   "Group",
	"image":                 "Image",
	"icon":                  "Image",
	"desktop icon":          "Image",
	"animation":             "Image",
	"image map":             "Image",
	"chart":                 "Image",
	"link":                  "Hyperlink",
	"document frame":        "Document",
	"document text":         "Document",
	"document web":          "Document",
	"document email":        "Document",
	"document presentation": "Document",
	"html container":        "Document",
	"terminal":              "Document",
	"page":                  "Document",
	"separator":             "Separator",
	"calendar":              "Calendar",
	"audio":                 "Custom",
	"video":                 "Custom",
}

// ControlType returns the UIA-style control type name for an AT-SPI role name ("push button"
// → "Button", "page tab" → "TabItem"); "Custom" for roles with no UIA counterpart.
func ControlType(role string) string {
	if t, ok := controlTypes[role]; ok {
		return t
	}
	return "Custom"
}
