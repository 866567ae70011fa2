package atspi

import (
	"errors"
	"testing"

	"github.com/mcec/mcec/internal/platform"
)

// frame builds a top-level candidate for the matcher.
func frame(role uint32, name string, ext *platform.Rect, relative bool, states ...int) frameCandidate {
	var b stateBits
	for _, s := range states {
		b[s/32] |= 1 << (s % 32)
	}
	return frameCandidate{node: &node{info: &objInfo{role: role, name: name, states: b}, extents: ext}, relative: relative}
}

const (
	roleDialogNum = 16 // "dialog" in roleNames
	roleFrameNum  = 23 // "frame"
)

func TestFrameRoleNumbers(t *testing.T) {
	if roleNames[roleDialogNum] != "dialog" || roleNames[roleFrameNum] != "frame" {
		t.Fatalf("role table moved: %q %q", roleNames[roleDialogNum], roleNames[roleFrameNum])
	}
}

func TestMatchFrame(t *testing.T) {
	win := platform.Rect{X: 100, Y: 100, Width: 800, Height: 600}
	main := platform.Window{Handle: 1, Title: "Form", Type: "normal", Bounds: win}
	dialog := platform.Window{Handle: 2, Title: "Message", Type: "dialog", TransientFor: 1, Focused: true,
		Bounds: platform.Rect{X: 300, Y: 250, Width: 300, Height: 120}}

	t.Run("geometry decides between nameless frames", func(t *testing.T) {
		exact := frame(roleFrameNum, "", &win, false, stateShowing)
		csd := frame(roleFrameNum, "", &platform.Rect{X: 74, Y: 74, Width: 852, Height: 652}, false, stateShowing)
		other := frame(roleFrameNum, "", &platform.Rect{X: 0, Y: 0, Width: 300, Height: 200}, false, stateShowing)
		hidden := frame(roleFrameNum, "", nil, false)
		w := platform.Window{Bounds: win}
		if !(frameScore(exact, w) > frameScore(csd, w) && frameScore(csd, w) > frameScore(other, w) &&
			frameScore(other, w) > frameScore(hidden, w)) {
			t.Errorf("scores: exact %v csd %v other %v hidden %v", frameScore(exact, w), frameScore(csd, w),
				frameScore(other, w), frameScore(hidden, w))
		}
		got, err := matchFrame([]frameCandidate{hidden, other, csd}, w, nil)
		if err != nil || got != csd.node {
			t.Errorf("matchFrame = %v, %v; want the CSD frame", got, err)
		}
	})

	t.Run("no rectangles: title and kind, dialog open (Swing)", func(t *testing.T) {
		mainF := frame(roleFrameNum, "Form", nil, false, stateShowing)
		dlgF := frame(roleDialogNum, "Message", nil, false, stateShowing, stateActive)
		frames := []frameCandidate{mainF, dlgF}
		if got, err := matchFrame(frames, main, []platform.Window{dialog}); err != nil || got != mainF.node {
			t.Errorf("main window → %v, %v; want the main frame", got, err)
		}
		if got, err := matchFrame(frames, dialog, []platform.Window{main}); err != nil || got != dlgF.node {
			t.Errorf("dialog → %v, %v; want the dialog frame", got, err)
		}
	})

	t.Run("window-relative extents: sizes (GTK 4)", func(t *testing.T) {
		at0 := func(w, h int) *platform.Rect { return &platform.Rect{Width: w, Height: h} }
		mainF := frame(roleFrameNum, "", at0(800, 600), true, stateShowing)
		dlgF := frame(roleDialogNum, "", at0(300, 120), true, stateShowing, stateActive)
		frames := []frameCandidate{dlgF, mainF}
		if got, err := matchFrame(frames, main, []platform.Window{dialog}); err != nil || got != mainF.node {
			t.Errorf("main window → %v, %v; want the main frame", got, err)
		}
		if got, err := matchFrame(frames, dialog, []platform.Window{main}); err != nil || got != dlgF.node {
			t.Errorf("dialog → %v, %v; want the dialog frame", got, err)
		}
	})

	t.Run("indistinguishable frames fail loudly", func(t *testing.T) {
		a := frame(roleFrameNum, "Untitled", nil, false, stateShowing)
		b := frame(roleFrameNum, "Untitled", nil, false, stateShowing)
		w := platform.Window{Handle: 7, Title: "Untitled", Type: "normal"}
		_, err := matchFrame([]frameCandidate{a, b}, w, nil)
		if !errors.Is(err, platform.ErrFrameAmbiguous) {
			t.Fatalf("err = %v, want ErrFrameAmbiguous", err)
		}
		// The other window of the process claims one of them: then the match is clear.
		other := platform.Window{Handle: 8, Title: "Untitled", Type: "normal", Focused: true}
		b.node.info.states[stateActive/32] |= 1 << (stateActive % 32)
		if got, err := matchFrame([]frameCandidate{a, b}, w, []platform.Window{other}); err != nil || got != a.node {
			t.Errorf("with the other window claiming the active frame: %v, %v", got, err)
		}
	})

	t.Run("a lone frame is the window's", func(t *testing.T) {
		f := frame(roleFrameNum, "something else", nil, false)
		if got, err := matchFrame([]frameCandidate{f}, main, nil); err != nil || got != f.node {
			t.Errorf("got %v, %v", got, err)
		}
	})

	t.Run("no frame fits among several", func(t *testing.T) {
		a := frame(roleFrameNum, "Alpha", &platform.Rect{X: 0, Y: 0, Width: 10, Height: 10}, false)
		b := frame(roleFrameNum, "Beta", &platform.Rect{X: 0, Y: 0, Width: 10, Height: 10}, false)
		if got, err := matchFrame([]frameCandidate{a, b}, main, nil); err != nil || got != nil {
			t.Errorf("got %v, %v; want no match", got, err)
		}
	})
}
