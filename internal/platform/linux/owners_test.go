package linux

import (
	"context"
	"maps"
	"testing"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/atspi"
)

func TestMatchOwners(t *testing.T) {
	win := func(h uint32, title string, pid int) platform.Window {
		return platform.Window{Handle: h, Title: title, ProcessID: pid}
	}
	frame := func(pid int, name string) atspi.Frame { return atspi.Frame{PID: pid, Name: name} }
	for _, tt := range []struct {
		name   string
		ws     []platform.Window
		frames []atspi.Frame
		want   map[uint32]int
	}{
		{"one window, one frame of its title", []platform.Window{win(1, "Editor", 0)},
			[]atspi.Frame{frame(10, "Editor"), frame(11, "Other")}, map[uint32]int{1: 10}},
		{"two windows of one process and one title", []platform.Window{win(1, "Doc", 0), win(2, "Doc", 0)},
			[]atspi.Frame{frame(10, "Doc"), frame(10, "Doc")}, map[uint32]int{1: 10, 2: 10}},
		{"no frame of the title", []platform.Window{win(1, "Terminal", 0)}, []atspi.Frame{frame(10, "Editor")}, map[uint32]int{}},
		{"no title", []platform.Window{win(1, "", 0)}, []atspi.Frame{frame(10, "")}, map[uint32]int{}},
		{"more windows than frames: one is a program without accessibility",
			[]platform.Window{win(1, "Untitled", 0), win(2, "Untitled", 0)}, []atspi.Frame{frame(10, "Untitled")}, map[uint32]int{}},
		{"two processes share the title, neither window known",
			[]platform.Window{win(1, "Scene", 0), win(2, "Scene", 0)}, []atspi.Frame{frame(10, "Scene"), frame(11, "Scene")}, map[uint32]int{}},
		{"two processes share the title, the first window known: the second is the other's",
			[]platform.Window{win(1, "Scene", 10), win(2, "Scene", 0)}, []atspi.Frame{frame(10, "Scene"), frame(11, "Scene")}, map[uint32]int{2: 11}},
		{"the other process has not registered yet",
			[]platform.Window{win(1, "Scene", 10), win(2, "Scene", 0)}, []atspi.Frame{frame(10, "Scene")}, map[uint32]int{}},
		{"a known window whose process has no frame of the title leaves the frame to the other",
			[]platform.Window{win(1, "Scene", 12), win(2, "Scene", 0)}, []atspi.Frame{frame(10, "Scene")}, map[uint32]int{2: 10}},
		{"a window that closed leaves a frame more: nothing matches",
			[]platform.Window{win(2, "Save As", 0)}, []atspi.Frame{frame(10, "Save As"), frame(11, "Save As")}, map[uint32]int{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := matchOwners(tt.ws, tt.frames); !maps.Equal(got, tt.want) {
				t.Errorf("matchOwners = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestOwnersKeepAndRetry: a window keeps the owner it was given, whatever the frames say later;
// one without a match is looked for again only after ownerRetry.
func TestOwnersKeepAndRetry(t *testing.T) {
	var o owners
	searches := 0
	frames := []atspi.Frame{{PID: 10, Name: "A"}}
	search := func(context.Context) ([]atspi.Frame, error) { searches++; return frames, nil }
	ws := []platform.Window{{Handle: 1, Title: "A"}, {Handle: 2, Title: "B"}}
	o.fill(context.Background(), ws, search)
	if ws[0].ProcessID != 10 || ws[1].ProcessID != 0 || searches != 1 {
		t.Fatalf("first fill: %+v after %d searches", ws, searches)
	}
	frames = nil // the application left the bus; the window is still its own
	ws = []platform.Window{{Handle: 1, Title: "A renamed"}, {Handle: 2, Title: "B"}}
	o.fill(context.Background(), ws, search)
	if ws[0].ProcessID != 10 || searches != 1 {
		t.Errorf("second fill: %+v after %d searches; want the kept owner and no search within %v", ws, searches, ownerRetry)
	}
	// A closed window's owner is forgotten: a handle is never reused, but the map must not grow.
	o.fill(context.Background(), nil, search)
	if len(o.known) != 0 || len(o.tried) != 0 {
		t.Errorf("after every window closed: known %v, tried %v", o.known, o.tried)
	}
}
