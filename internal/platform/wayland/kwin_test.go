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
