package wayland

import (
	"testing"

	"github.com/mcec/mcec/internal/platform"
)

func TestOrigin(t *testing.T) {
	area := platform.Rect{X: 100, Y: 34, Width: 1415, Height: 732}
	headerBar := platform.Rect{X: 26, Y: 23, Width: 1415, Height: 47}
	for _, tt := range []struct {
		name     string
		frame    platform.Rect
		children []platform.Rect
		want     platform.Point
		ok       bool
	}{
		{"the client area's size (GTK 4, GTK 3 decorated by sway, Qt)", platform.Rect{Width: 1415, Height: 732}, nil, platform.Point{X: 100, Y: 34}, true},
		// gtk3-widget-factory on sway 1.7, measured.
		{"a shadow, placed by the header bar", platform.Rect{Width: 1467, Height: 784},
			[]platform.Rect{headerBar, {X: 26, Y: 70, Width: 1415, Height: 685}}, platform.Point{X: 74, Y: 11}, true},
		// A child that spans the width lower down is not the client area's top.
		{"a shadow, only the content below the header bar", platform.Rect{Width: 1467, Height: 784},
			[]platform.Rect{{X: 26, Y: 70, Width: 1415, Height: 685}}, platform.Point{}, false},
		{"a shadow, no child spans the area", platform.Rect{Width: 1467, Height: 784}, []platform.Rect{{X: 26, Y: 23, Width: 200, Height: 47}}, platform.Point{}, false},
		{"uneven sides", platform.Rect{Width: 1468, Height: 784}, []platform.Rect{headerBar}, platform.Point{}, false},
		{"smaller than the area", platform.Rect{Width: 1000, Height: 700}, nil, platform.Point{}, false},
		{"no extents", platform.Rect{}, nil, platform.Point{}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := origin(area, tt.frame, tt.children)
			if ok != tt.ok || got != tt.want {
				t.Errorf("origin = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
