package tools

import (
	"image"
	"testing"
)

func TestPixelChangeSignificant(t *testing.T) {
	for _, tt := range []struct {
		name string
		p    *PixelChange
		want bool
	}{
		{"none", nil, false},
		{"an I-beam cursor blinking", &PixelChange{Width: 1, Height: 17, Changed: 17}, false},
		{"an underline cursor", &PixelChange{Width: 9, Height: 2, Changed: 18}, false},
		{"a terminal's block cursor", &PixelChange{Width: 9, Height: 18, Changed: 162}, false},
		{"a check mark", &PixelChange{Width: 7, Height: 7, Changed: 21}, true},
		{"a typed character and the cursor's move", &PixelChange{Width: 18, Height: 18, Changed: 200}, true},
		{"a menu drawn over the window", &PixelChange{Width: 180, Height: 240, Changed: 43200}, true},
	} {
		if got := tt.p.significant(); got != tt.want {
			t.Errorf("%s: significant = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestDiffBox(t *testing.T) {
	a, b := image.NewRGBA(image.Rect(0, 0, 20, 10)), image.NewRGBA(image.Rect(0, 0, 20, 10))
	if _, n := diffBox(a, b); n != 0 {
		t.Fatalf("equal images differ in %d pixels", n)
	}
	b.Pix[(3*b.Stride)+5*4] = 5 // within the tolerance
	if _, n := diffBox(a, b); n != 0 {
		t.Fatalf("a change within the tolerance counted: %d", n)
	}
	for _, p := range []image.Point{{2, 1}, {7, 4}} {
		b.Pix[p.Y*b.Stride+p.X*4+1] = 200
	}
	box, n := diffBox(a, b)
	if n != 2 || box != image.Rect(2, 1, 8, 5) {
		t.Errorf("box %v n %d, want (2,1)-(8,5) and 2", box, n)
	}
}
