package traceview

import (
	"encoding/json"
	"fmt"
	"strings"
)

// effect is the part of an acting tool's result.effect the timeline shows (the shape is
// internal/tools' Effect, read here as recorded JSON).
type effect struct {
	SettledMs *int64 `json:"settledMs"`
	Settled   bool   `json:"settled"`
	Focus     *struct {
		From, To *node
	} `json:"focus"`
	Target        *change                     `json:"target"`
	Changed       []change                    `json:"changed"`
	ChangedMore   int                         `json:"changedMore"`
	Added         int                         `json:"added"`
	Removed       int                         `json:"removed"`
	WindowsOpened []window                    `json:"windowsOpened"`
	WindowsClosed []window                    `json:"windowsClosed"`
	Foreground    *struct{ From, To *window } `json:"foreground"`
	Window        *struct {
		From, To struct {
			X, Y, Width, Height int
			State               []string
			Title               *string
		}
	} `json:"window"`
	Clipboard *struct {
		Length int
		Same   bool
	} `json:"clipboard"`
	Pixels *struct{ X, Y, Width, Height, Changed int } `json:"pixels"`
}

type node struct{ Ref, Role, Name string }

func (n *node) String() string {
	if n == nil {
		return "nothing"
	}
	if n.Name != "" {
		return fmt.Sprintf("%s %q", n.Role, n.Name)
	}
	return n.Role
}

type change struct {
	node
	Value  *string
	Was    *struct{ Name, Value *string }
	States string
}

func (c change) String() string {
	parts := []string{c.node.String()}
	if c.Was != nil && c.Was.Name != nil {
		parts = append(parts, fmt.Sprintf("name was %q", *c.Was.Name))
	}
	if c.Value != nil {
		v := fmt.Sprintf("value %q", *c.Value)
		if c.Was != nil && c.Was.Value != nil {
			v += fmt.Sprintf(" (was %q)", *c.Was.Value)
		}
		parts = append(parts, v)
	}
	if c.States != "" {
		parts = append(parts, "states "+c.States)
	}
	return strings.Join(parts, ", ")
}

type window struct {
	Title string
	Modal bool
}

func (w *window) String() string {
	if w == nil {
		return "none"
	}
	s := fmt.Sprintf("%q", w.Title)
	if w.Modal {
		s += " (modal)"
	}
	return s
}

const noChange = "no change observed"

// effectLines says what a call's effect observed, one change a line: the tree diff of the
// window (its elements that changed, appeared and went), the focus, windows and pixels.
func effectLines(result json.RawMessage) []string {
	var r struct {
		Effect *effect `json:"effect"`
	}
	if json.Unmarshal(result, &r) != nil || r.Effect == nil {
		return nil
	}
	e := r.Effect
	var out []string
	add := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	if f := e.Focus; f != nil {
		add("focus: %s → %s", f.From, f.To)
	}
	if e.Target != nil {
		add("target: %s", e.Target)
	}
	for _, c := range e.Changed {
		add("changed: %s", c)
	}
	if e.ChangedMore > 0 {
		add("changed: %d more", e.ChangedMore)
	}
	if e.Added > 0 || e.Removed > 0 {
		add("elements: +%d appeared, −%d went", e.Added, e.Removed)
	}
	for _, w := range e.WindowsOpened {
		add("window opened: %s", &w)
	}
	for _, w := range e.WindowsClosed {
		add("window closed: %s", &w)
	}
	if f := e.Foreground; f != nil {
		add("active window: %s → %s", f.From, f.To)
	}
	if w := e.Window; w != nil {
		add("window: %dx%d at (%d,%d) %v → %dx%d at (%d,%d) %v", w.From.Width, w.From.Height, w.From.X, w.From.Y, w.From.State,
			w.To.Width, w.To.Height, w.To.X, w.To.Y, w.To.State)
		if w.To.Title != nil {
			add("window title: %q", *w.To.Title)
		}
	}
	if c := e.Clipboard; c != nil {
		add("clipboard reads back %d characters (same: %v)", c.Length, c.Same)
	}
	if p := e.Pixels; p != nil {
		add("pixels: %d changed in %dx%d at (%d,%d)", p.Changed, p.Width, p.Height, p.X, p.Y)
	}
	if len(out) == 0 {
		out = append(out, noChange)
	}
	if e.SettledMs != nil {
		s := fmt.Sprintf("watched %d ms", *e.SettledMs)
		if !e.Settled {
			s += ", still changing when the wait ended"
		}
		out = append(out, s)
	}
	return out
}
