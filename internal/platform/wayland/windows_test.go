package wayland

import (
	"testing"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/wayland/swayipc"
)

func TestClientArea(t *testing.T) {
	// A view with a border and a title bar: the client area is the container's rectangle moved
	// by the view's offset in it.
	n := &swayipc.Node{Rect: swayipc.Rect{X: 10, Y: 20, Width: 404, Height: 329}, WindowRect: swayipc.Rect{X: 2, Y: 27, Width: 400, Height: 300}}
	if got, want := clientArea(n), (platform.Rect{X: 12, Y: 47, Width: 400, Height: 300}); got != want {
		t.Errorf("clientArea = %+v, want %+v", got, want)
	}
	// mcec's desktop: no border, the rectangles coincide.
	n = &swayipc.Node{Rect: swayipc.Rect{X: 480, Y: 300, Width: 320, Height: 200}, WindowRect: swayipc.Rect{Width: 320, Height: 200}}
	if got, want := clientArea(n), (platform.Rect{X: 480, Y: 300, Width: 320, Height: 200}); got != want {
		t.Errorf("clientArea = %+v, want %+v", got, want)
	}
}

func TestCovered(t *testing.T) {
	at := func(id int64, x, y, w, h int, hidden bool) view {
		return view{View: swayipc.View{Node: &swayipc.Node{ID: id, Rect: swayipc.Rect{X: x, Y: y, Width: w, Height: h},
			WindowRect: swayipc.Rect{Width: w, Height: h}}, Scratchpad: hidden}}
	}
	area := platform.Rect{X: 0, Y: 0, Width: 100, Height: 100}
	views := []view{at(1, 50, 50, 100, 100, false), at(2, 0, 0, 100, 100, false), at(3, 200, 200, 10, 10, false), at(4, 0, 0, 100, 100, true)}
	if covered(2, area, views) {
		t.Error("window 2 is covered by a window below it or a hidden one")
	}
	if !covered(1, platform.Rect{X: 50, Y: 50, Width: 100, Height: 100}, views) {
		t.Error("window 1 is not covered by window 2 above it")
	}
}

func TestDensify(t *testing.T) {
	got := platform.Densify([]platform.Point{{X: 0, Y: 0}, {X: 20, Y: 0}}, 8)
	want := []platform.Point{{X: 0, Y: 0}, {X: 7, Y: 0}, {X: 13, Y: 0}, {X: 20, Y: 0}}
	if len(got) != len(want) {
		t.Fatalf("densify = %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("densify = %v, want %v", got, want)
		}
	}
}
