// Package calldesc says in a few words what a tool call did and where on the screen it acted,
// from its arguments and result, for the people who watch calls (the console's narration) and
// review them (the trace viewer). It reads only identifying arguments, so text an agent typed or
// set never reaches what it returns.
package calldesc

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ActsOnScreen reports whether tool's results say where on the screen it acted.
func ActsOnScreen(tool string) bool {
	switch tool {
	case "click", "drag", "invoke", "focus":
		return true
	}
	return false
}

// Where reads where a call acted from its result (a decoded value or raw JSON), in screen
// coordinates: the point a click landed (at) or a drag ended (to), and the rectangle of the
// element acted on (invoke, focus) as x, y, width, height.
func Where(result any) (point *[2]int, box *[4]int) {
	b, ok := result.(json.RawMessage)
	if !ok {
		var err error
		if b, err = json.Marshal(result); err != nil {
			return nil, nil
		}
	}
	var r struct {
		At      *[2]int `json:"at"`
		To      *[2]int `json:"to"`
		Element *struct {
			X, Y, Width, Height *int
		} `json:"element"`
	}
	if json.Unmarshal(b, &r) != nil {
		return nil, nil
	}
	point = r.At
	if point == nil {
		point = r.To
	}
	if e := r.Element; e != nil && e.X != nil && e.Y != nil && e.Width != nil && e.Height != nil && *e.Width > 0 && *e.Height > 0 {
		box = &[4]int{*e.X, *e.Y, *e.Width, *e.Height}
	}
	return point, box
}

// Describe names a call's action and target from its identifying arguments only: the action,
// the element's role and name (or ref), and the window, process or pid.
func Describe(args json.RawMessage) (action, target string) {
	var a struct {
		Action  string `json:"action"`
		Window  any    `json:"window"`
		Process string `json:"process"`
		PID     int    `json:"pid"`
		Handle  int    `json:"handle"`
		Element *struct {
			Ref  string `json:"ref"`
			Name string `json:"name"`
			Role string `json:"role"`
		} `json:"element"`
	}
	if json.Unmarshal(args, &a) != nil {
		return "", ""
	}
	var parts []string
	if e := a.Element; e != nil {
		switch {
		case e.Name != "" && e.Role != "":
			parts = append(parts, fmt.Sprintf("%s %q", e.Role, Clip(e.Name)))
		case e.Name != "":
			parts = append(parts, fmt.Sprintf("%q", Clip(e.Name)))
		case e.Role != "":
			parts = append(parts, e.Role)
		case e.Ref != "":
			parts = append(parts, "ref "+Clip(e.Ref))
		}
	}
	switch {
	case a.Window != nil:
		parts = append(parts, fmt.Sprintf("in window %v", Clip(fmt.Sprint(a.Window))))
	case a.Process != "":
		parts = append(parts, "in "+Clip(a.Process))
	case a.PID != 0:
		parts = append(parts, fmt.Sprintf("in pid %d", a.PID))
	case a.Handle != 0:
		parts = append(parts, fmt.Sprintf("in window 0x%x", a.Handle))
	}
	return Clip(a.Action), strings.Join(parts, " ")
}

// Clip keeps a name short enough for one line.
func Clip(s string) string {
	const max = 60
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}
