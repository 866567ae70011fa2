package contract

import (
	"encoding/json"
	"fmt"
)

// Category is the closed set of failure classes. Agents branch exhaustively on it; a new failure
// mode maps onto one of the ten values below (and a code narrows it). Category is a struct with
// an unexported field so no other value can be built outside this package; its zero value is
// invalid and refuses to marshal.
type Category struct{ name string }

// The ten categories of the contract, and no others.
var (
	Timeout           = Category{"timeout"}
	AmbiguousSelector = Category{"ambiguous-selector"}
	StaleElement      = Category{"stale-element"}
	NoTarget          = Category{"no-target"}
	InvalidArgument   = Category{"invalid-argument"}
	CaptureBlank      = Category{"capture-blank"}
	Focus             = Category{"focus"}
	Elevation         = Category{"elevation"}
	Foreground        = Category{"foreground"}
	Internal          = Category{"internal"}
)

// Categories lists the closed set in the contract's order.
func Categories() []Category {
	return []Category{Timeout, AmbiguousSelector, StaleElement, NoTarget, InvalidArgument,
		CaptureBlank, Focus, Elevation, Foreground, Internal}
}

// ParseCategory returns the category with that wire name.
func ParseCategory(s string) (Category, bool) {
	for _, c := range Categories() {
		if c.name == s {
			return c, true
		}
	}
	return Category{}, false
}

// String returns the wire name ("" for the invalid zero value).
func (c Category) String() string { return c.name }

// Valid reports whether c is one of the ten categories.
func (c Category) Valid() bool {
	_, ok := ParseCategory(c.name)
	return ok
}

// MarshalJSON writes the wire name; the zero value is an error, never an empty string.
func (c Category) MarshalJSON() ([]byte, error) {
	if !c.Valid() {
		return nil, fmt.Errorf("contract: invalid category %q", c.name)
	}
	return json.Marshal(c.name)
}

// UnmarshalJSON accepts only the ten wire names.
func (c *Category) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	parsed, ok := ParseCategory(s)
	if !ok {
		return fmt.Errorf("contract: unknown category %q", s)
	}
	*c = parsed
	return nil
}
