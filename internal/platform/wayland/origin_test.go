package wayland

import (
	"testing"

	"github.com/mcec/mcec/internal/platform"
)

// TestOriginXWayland: an X11 program's extents are taken as they are where its frame lies on its
// window, and not at all where it does not (a Swing dialog under sway's Xwayland, measured).
func TestOriginXWayland(t *testing.T) {
	var s sway
	w := platform.Window{Server: platform.ServerXWayland, Bounds: platform.Rect{X: 509, Y: 355, Width: 262, Height: 90}}
	if o, ok := s.Origin(w, w.Bounds, nil); !ok || o != (platform.Point{}) {
		t.Errorf("a frame on its window: %v, %v; want the X coordinates as they are", o, ok)
	}
	if _, ok := s.Origin(w, platform.Rect{X: 939, Y: 625, Width: 262, Height: 90}, nil); ok {
		t.Error("a frame off its window placed its objects")
	}
}

func TestOrigin(t *testing.T) {
	area := platform.Rect{X: 100, Y: 34, Width: 1415, Height: 732}
	headerBar := platform.Rect{X: 26, Y: 23, Width: 1415, Height: 47}
	for _, tt := range []struct {
		name     string
		area     platform.Rect // the window's client area; zero: area
		frame    platform.Rect
		children []platform.Rect
		want     platform.Point
		ok       bool
	}{
		{"the client area's size (GTK 4, GTK 3 decorated by sway, Qt)", platform.Rect{}, platform.Rect{Width: 1415, Height: 732}, nil, platform.Point{X: 100, Y: 34}, true},
		// gtk3-widget-factory on sway 1.7, measured.
		{"a shadow, placed by the header bar", platform.Rect{}, platform.Rect{Width: 1467, Height: 784},
			[]platform.Rect{headerBar, {X: 26, Y: 70, Width: 1415, Height: 685}}, platform.Point{X: 74, Y: 11}, true},
		// Chromium 156 on sway, measured: the client view is the frame's great-grandchild.
		{"a shadow, placed by Chromium's client view", platform.Rect{X: 131, Y: 31, Width: 1018, Height: 738}, platform.Rect{Width: 1050, Height: 780},
			[]platform.Rect{{Width: 1050, Height: 780}, {Width: 1050, Height: 780}, {X: 1002, Y: 10, Width: 32, Height: 40}, {X: 16, Y: 10, Width: 1018, Height: 738}},
			platform.Point{X: 131 - 16, Y: 31 - 10}, true},
		// A child that spans the width lower down is not the client area's top.
		{"a shadow, only the content below the header bar", platform.Rect{}, platform.Rect{Width: 1467, Height: 784},
			[]platform.Rect{{X: 26, Y: 70, Width: 1415, Height: 685}}, platform.Point{}, false},
		{"a shadow, no child spans the area", platform.Rect{}, platform.Rect{Width: 1467, Height: 784}, []platform.Rect{{X: 26, Y: 23, Width: 200, Height: 47}}, platform.Point{}, false},
		{"uneven sides", platform.Rect{}, platform.Rect{Width: 1468, Height: 784}, []platform.Rect{headerBar}, platform.Point{}, false},
		{"smaller than the area", platform.Rect{}, platform.Rect{Width: 1000, Height: 700}, nil, platform.Point{}, false},
		{"no extents", platform.Rect{}, platform.Rect{}, nil, platform.Point{}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.area
			if a.Empty() {
				a = area
			}
			got, ok := origin(a, tt.frame, tt.children)
			if ok != tt.ok || got != tt.want {
				t.Errorf("origin = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
