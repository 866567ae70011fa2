package atspi

import "github.com/mcec/mcec/internal/platform"

// stateNames is AtspiStateType in enumeration order (at-spi2-core atspi-constants.h); bit i of
// the two-word state set that GetState and GetItems return is stateNames[i].
var stateNames = [...]string{
	"invalid", "active", "armed", "busy", "checked", "collapsed", "defunct", "editable",
	"enabled", "expandable", "expanded", "focusable", "focused", "has-tooltip", "horizontal",
	"iconified", "modal", "multi-line", "multiselectable", "opaque", "pressed", "resizable",
	"selectable", "selected", "sensitive", "showing", "single-line", "stale", "transient",
	"vertical", "visible", "manages-descendants", "indeterminate", "required", "truncated",
	"animated", "invalid-entry", "supports-autocompletion", "selectable-text", "is-default",
	"visited", "checkable", "has-popup", "read-only",
}

// State numbers the code looks at.
const (
	stateActive             = 1
	stateDefunct            = 6
	stateEditable           = 7
	stateEnabled            = 8
	stateExpandable         = 9
	stateExpanded           = 10
	stateFocusable          = 11
	stateFocused            = 12
	stateSensitive          = 24
	stateShowing            = 25
	stateSingleLine         = 26
	stateVisible            = 30
	stateManagesDescendants = 31
)

// stateBits is the raw two-word AT-SPI state set.
type stateBits [2]uint32

func bitsFrom(words []uint32) stateBits {
	var b stateBits
	copy(b[:], words)
	return b
}

func (b stateBits) has(state int) bool { return b[state/32]&(1<<(state%32)) != 0 }

// set names the states in b; bits newer than this table are left out rather than invented.
func (b stateBits) set() platform.StateSet {
	s := make(platform.StateSet, 8)
	for i, name := range stateNames {
		if i > 0 && b.has(i) {
			s[name] = true
		}
	}
	return s
}
