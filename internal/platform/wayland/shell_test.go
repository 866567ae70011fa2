package wayland

import (
	"testing"

	"github.com/mcec/mcec/internal/platform"
)

func TestKWinTitle(t *testing.T) {
	for in, want := range map[string]string{
		"Application Class <2>": "Application Class",
		"Editor <12>":           "Editor",
		"a <1>":                 "a <1>",
		"a <b>":                 "a <b>",
		"x < 2>":                "x < 2>",
		"plain":                 "plain",
		"<3>":                   "<3>",
	} {
		if got := kwinTitle(in); got != want {
			t.Errorf("kwinTitle(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestClientAreaOf: a surface inside the frame is the client area (the compositor decorates the
// window); a surface around the frame is a client-side shadow, and the frame is the area.
func TestClientAreaOf(t *testing.T) {
	decorated := shellWindow{Frame: platform.Rect{X: 100, Y: 100, Width: 400, Height: 330}, Buffer: platform.Rect{X: 104, Y: 126, Width: 392, Height: 300}}
	if got, want := clientAreaOf(decorated), (platform.Rect{X: 104, Y: 126, Width: 392, Height: 300}); got != want {
		t.Errorf("decorated: %v, want %v", got, want)
	}
	shadowed := shellWindow{Frame: platform.Rect{X: -67, Y: 34, Width: 1415, Height: 732}, Buffer: platform.Rect{X: -93, Y: 11, Width: 1467, Height: 784}}
	if got, want := clientAreaOf(shadowed), (platform.Rect{X: -67, Y: 34, Width: 1415, Height: 732}); got != want {
		t.Errorf("shadowed: %v, want %v", got, want)
	}
}

// TestShellOrigin: the rules by which a shell's window places its frame, each as measured.
func TestShellOrigin(t *testing.T) {
	c := newShellComp(nil, nil)
	place := func(sw shellWindow, frame platform.Rect) (platform.Point, bool) {
		h := c.handle(sw.ID)
		c.seen[h] = sw
		return c.Origin(platform.Window{Handle: h, Bounds: clientAreaOf(sw)}, frame, nil)
	}
	for _, tt := range []struct {
		name  string
		sw    shellWindow
		frame platform.Rect
		want  platform.Point
		ok    bool
	}{
		{"GTK 3 with its shadow: the surface's size", shellWindow{ID: "a", Frame: platform.Rect{X: 158, Y: 50, Width: 320, Height: 237},
			Buffer: platform.Rect{X: 132, Y: 27, Width: 372, Height: 289}}, platform.Rect{Width: 372, Height: 289}, platform.Point{X: 132, Y: 27}, true},
		{"GTK 4: the frame's size", shellWindow{ID: "b", Frame: platform.Rect{X: 240, Y: 100, Width: 800, Height: 600},
			Buffer: platform.Rect{X: 211, Y: 77, Width: 858, Height: 658}}, platform.Rect{Width: 800, Height: 600}, platform.Point{X: 240, Y: 100}, true},
		{"Qt drawing its decorations on GNOME", shellWindow{ID: "c", Frame: platform.Rect{X: 213, Y: 92, Width: 706, Height: 533},
			Buffer: platform.Rect{X: 213, Y: 92, Width: 706, Height: 533}}, platform.Rect{Width: 700, Height: 500}, platform.Point{X: 216, Y: 122}, true},
		{"no rule", shellWindow{ID: "d", Frame: platform.Rect{X: 0, Y: 0, Width: 500, Height: 400},
			Buffer: platform.Rect{X: 0, Y: 0, Width: 500, Height: 400}}, platform.Rect{Width: 450, Height: 390}, platform.Point{}, false},
		{"X11 program", shellWindow{ID: "e", X11: true, Frame: platform.Rect{X: 10, Y: 10, Width: 100, Height: 100},
			Buffer: platform.Rect{X: 10, Y: 10, Width: 100, Height: 100}}, platform.Rect{X: 10, Y: 10, Width: 100, Height: 100}, platform.Point{}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got platform.Point
			var ok bool
			if tt.sw.X11 {
				got, ok = c.Origin(platform.Window{Handle: c.handle(tt.sw.ID), Server: platform.ServerXWayland}, tt.frame, nil)
			} else {
				got, ok = place(tt.sw, tt.frame)
			}
			if got != tt.want || ok != tt.ok {
				t.Errorf("Origin = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
