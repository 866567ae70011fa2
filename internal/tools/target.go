package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/platform"
)

// WindowTarget is the window selector every window-targeting tool embeds. All given fields must
// match; at least one is required.
type WindowTarget struct {
	Window     string `json:"window,omitempty" mcec:"nonempty" jsonschema:"Window title substring, case-insensitive."`
	Handle     uint32 `json:"handle,omitempty" mcec:"nonempty" jsonschema:"Window handle from windows."`
	Process    string `json:"process,omitempty" mcec:"nonempty" jsonschema:"Process name, case-insensitive."`
	PID        int    `json:"pid,omitempty" mcec:"nonempty" jsonschema:"Owning process id."`
	ClassName  string `json:"className,omitempty" mcec:"nonempty" jsonschema:"WM_CLASS class, case-insensitive."`
	Foreground bool   `json:"foreground,omitempty" jsonschema:"Only the active (focused) window."`
}

// empty reports whether no selector field is set.
func (t WindowTarget) empty() bool {
	return t.Window == "" && t.Handle == 0 && t.Process == "" && t.PID == 0 && t.ClassName == "" && !t.Foreground
}

// matches reports whether w satisfies every field that is set.
func (t WindowTarget) matches(w platform.Window) bool {
	return (t.Window == "" || strings.Contains(strings.ToLower(w.Title), strings.ToLower(t.Window))) &&
		(t.Handle == 0 || w.Handle == t.Handle) &&
		(t.Process == "" || strings.EqualFold(w.ProcessName, t.Process)) &&
		(t.PID == 0 || w.ProcessID == t.PID) &&
		(t.ClassName == "" || strings.EqualFold(w.ClassName, t.ClassName)) &&
		(!t.Foreground || w.Focused)
}

// String describes the selector for error details.
func (t WindowTarget) String() string {
	var parts []string
	add := func(k string, v any) { parts = append(parts, fmt.Sprintf("%s=%v", k, v)) }
	if t.Window != "" {
		add("window", fmt.Sprintf("%q", t.Window))
	}
	if t.Handle != 0 {
		add("handle", t.Handle)
	}
	if t.Process != "" {
		add("process", fmt.Sprintf("%q", t.Process))
	}
	if t.PID != 0 {
		add("pid", t.PID)
	}
	if t.ClassName != "" {
		add("className", fmt.Sprintf("%q", t.ClassName))
	}
	if t.Foreground {
		add("foreground", true)
	}
	return strings.Join(parts, " ")
}

// filter returns the windows t matches.
func (t WindowTarget) filter(ws []platform.Window) []platform.Window {
	var out []platform.Window
	for _, w := range ws {
		if t.matches(w) {
			out = append(out, w)
		}
	}
	return out
}

// windowTargetErrors are the codes window resolution can produce (selector-matched-N aside).
var windowTargetErrors = []contract.Code{contract.CodeBadArguments, contract.CodeWindowNotFound, contract.CodeWindowClosed}

// maxCandidates bounds how many windows an ambiguous-selector detail lists.
const maxCandidates = 5

// candidateNameMax bounds each candidate's name in that list: enough to tell a label from its field.
const candidateNameMax = 40

// resolveWindow finds exactly one window for t, or fails with the contract's codes: no selector
// is bad-arguments, no match window-not-found (window-closed for a handle that no longer exists),
// several matches selector-matched-N listing the candidates.
func resolveWindow(ctx context.Context, d platform.WindowReader, t WindowTarget) (platform.Window, error) {
	if t.empty() {
		return platform.Window{}, contract.Errorf(contract.CodeBadArguments,
			"a window target is required: give window, handle, process, pid, className or foreground")
	}
	ws, err := d.Windows(ctx)
	if err != nil {
		return platform.Window{}, platformError(err)
	}
	matched := t.filter(ws)
	switch len(matched) {
	case 1:
		return matched[0], nil
	case 0:
		if t.Handle != 0 && !handleListed(ws, t.Handle) {
			return platform.Window{}, contract.Errorf(contract.CodeWindowClosed,
				"no window with handle %d exists (it was closed); list windows again", t.Handle)
		}
		return platform.Window{}, contract.Errorf(contract.CodeWindowNotFound,
			"no window matches %s; %d windows are open (call windows to see them)", t, len(ws))
	default:
		var b strings.Builder
		fmt.Fprintf(&b, "%s matched %d windows; refine with handle, pid, process or className:", t, len(matched))
		for i, w := range matched {
			if i == maxCandidates {
				fmt.Fprintf(&b, " …and %d more", len(matched)-maxCandidates)
				break
			}
			fmt.Fprintf(&b, " [handle=%d title=%q process=%s pid=%d]", w.Handle, w.Title, w.ProcessName, w.ProcessID)
		}
		return platform.Window{}, contract.Errorf(contract.SelectorMatched(len(matched)), "%s", b.String())
	}
}

func handleListed(ws []platform.Window, h uint32) bool {
	for _, w := range ws {
		if w.Handle == h {
			return true
		}
	}
	return false
}

// WindowInfo is the window JSON every tool returns.
type WindowInfo struct {
	Handle      uint32   `json:"handle"`
	Title       string   `json:"title"`
	ClassName   string   `json:"className,omitempty"`
	ProcessName string   `json:"processName,omitempty"`
	ProcessID   int      `json:"processId,omitempty"`
	X           int      `json:"x"`
	Y           int      `json:"y"`
	Width       int      `json:"width"`
	Height      int      `json:"height"`
	State       []string `json:"state"`
	// TransientFor (WM_TRANSIENT_FOR) and Type (_NET_WM_WINDOW_TYPE) tell a dialog from its
	// main window.
	TransientFor uint32 `json:"transientFor,omitempty"`
	Type         string `json:"type,omitempty"`
	// Server says what serves the window on a Wayland desktop: "wayland", or "xwayland" for an
	// X11 program under the compositor; absent on an X11 desktop.
	Server string `json:"server,omitempty"`
}

// windowInfo converts a platform window. State lists "minimized", "maximized" or "fullscreen"
// (or "normal" when none applies), plus "focused" for the active window and "unplaced" for one
// whose place the compositor does not tell (its x, y, width and height are then 0).
func windowInfo(w platform.Window) WindowInfo {
	var state []string
	switch {
	case w.Minimized:
		state = append(state, "minimized")
	case w.Fullscreen:
		state = append(state, "fullscreen")
	case w.Maximized:
		state = append(state, "maximized")
	default:
		state = append(state, "normal")
	}
	if w.Focused {
		state = append(state, "focused")
	}
	if w.Bounds.Empty() {
		state = append(state, "unplaced")
	}
	return WindowInfo{
		Handle: w.Handle, Title: w.Title, ClassName: w.ClassName, ProcessName: w.ProcessName,
		ProcessID: w.ProcessID, X: w.Bounds.X, Y: w.Bounds.Y, Width: w.Bounds.Width, Height: w.Bounds.Height,
		State: state, TransientFor: w.TransientFor, Type: w.Type, Server: w.Server,
	}
}
