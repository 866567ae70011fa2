package imaging

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
)

func solid(w, h int, c color.RGBA) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return img
}

func TestBlank(t *testing.T) {
	black := color.RGBA{0, 0, 0, 255}
	white := color.RGBA{255, 255, 255, 255}
	striped := solid(200, 100, white)
	for y := 0; y < 100; y++ {
		for x := 0; x < 200; x += 10 {
			striped.Set(x, y, black)
			striped.Set(x+1, y, black)
			striped.Set(x+2, y, black)
			striped.Set(x+3, y, black)
		}
	}
	nearlyBlack := solid(100, 100, color.RGBA{3, 5, 2, 255}) // quantizes to black
	tests := []struct {
		name      string
		img       *image.RGBA
		wantBlank bool
		wantDark  bool
	}{
		{"black", solid(300, 200, black), true, true},
		{"white", solid(300, 200, white), true, false},
		{"nearly black noise", nearlyBlack, true, true},
		{"grey", solid(64, 64, color.RGBA{128, 128, 128, 255}), true, false},
		{"striped", striped, false, false},
		{"1x1", solid(1, 1, white), true, false},
		{"huge dims sampled", solid(4000, 10, black), true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Blank(tt.img)
			if got.Blank != tt.wantBlank || (tt.wantBlank && got.DominantIsDark != tt.wantDark) {
				t.Errorf("Blank = %+v, want blank=%v dark=%v", got, tt.wantBlank, tt.wantDark)
			}
			if got.DominantFraction <= 0 || got.DominantFraction > 1 {
				t.Errorf("fraction %v", got.DominantFraction)
			}
		})
	}
}

func TestBlankThresholdEdge(t *testing.T) {
	// 64x64 grid on a 64x64 image samples every pixel: 40 odd pixels of 4096 = 0.99023 dominant → blank;
	// 41 → 0.98999 → not blank.
	for _, tt := range []struct {
		odd  int
		want bool
	}{{40, true}, {41, false}} {
		img := solid(64, 64, color.RGBA{255, 255, 255, 255})
		for i := range tt.odd {
			img.Set(i%64, i/64, color.RGBA{0, 0, 0, 255})
		}
		if got := Blank(img); got.Blank != tt.want {
			t.Errorf("%d odd pixels: %+v, want blank=%v", tt.odd, got, tt.want)
		}
	}
}

func TestDownscale(t *testing.T) {
	img := solid(1280, 800, color.RGBA{10, 20, 30, 255})
	tests := []struct {
		maxWidth     int
		scale        float64
		wantW, wantH int
	}{
		{0, 0, 1280, 800},
		{2000, 0, 1280, 800}, // never upscale
		{640, 0, 640, 400},
		{0, 0.5, 640, 400},
		{0, 1, 1280, 800},
		{320, 0.5, 320, 200}, // the smaller wins
		{1, 0, 1, 1},
	}
	for _, tt := range tests {
		got := Downscale(img, tt.maxWidth, tt.scale)
		if got.Bounds().Dx() != tt.wantW || got.Bounds().Dy() != tt.wantH {
			t.Errorf("Downscale(%d, %v) = %v, want %dx%d", tt.maxWidth, tt.scale, got.Bounds(), tt.wantW, tt.wantH)
		}
		if c := got.RGBAAt(got.Bounds().Dx()/2, got.Bounds().Dy()/2); c != (color.RGBA{10, 20, 30, 255}) {
			t.Errorf("colour changed: %v", c)
		}
	}
}

func TestEncodePNGRoundTrip(t *testing.T) {
	img := solid(33, 17, color.RGBA{200, 100, 50, 255})
	b, err := EncodePNG(img)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if dec.Bounds() != img.Bounds() {
		t.Fatalf("bounds %v", dec.Bounds())
	}
	r, g, bl, _ := dec.At(5, 5).RGBA()
	if r>>8 != 200 || g>>8 != 100 || bl>>8 != 50 {
		t.Fatalf("pixel %d %d %d", r>>8, g>>8, bl>>8)
	}
	if crop := Crop(img, image.Rect(30, 10, 50, 50)); crop.Bounds() != image.Rect(30, 10, 33, 17) {
		t.Fatalf("crop %v", crop.Bounds())
	}
}

func screenLike() *image.RGBA {
	img := solid(1280, 800, color.RGBA{240, 240, 240, 255})
	for y := 0; y < 800; y += 3 {
		for x := (y * 7) % 13; x < 1280; x += 11 {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 80, 255})
		}
	}
	return img
}

func BenchmarkBlank(b *testing.B) {
	img := screenLike()
	for b.Loop() {
		Blank(img)
	}
}

func BenchmarkEncodePNG(b *testing.B) {
	img := screenLike()
	for b.Loop() {
		if _, err := EncodePNG(img); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDownscaleHalf(b *testing.B) {
	img := screenLike()
	for b.Loop() {
		Downscale(img, 640, 0)
	}
}
