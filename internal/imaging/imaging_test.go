package imaging

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
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

// TestBlankNoise: on a frame small enough to be read whole, BlankNoise odd pixels are noise and
// one more is content.
func TestBlankNoise(t *testing.T) {
	for _, tt := range []struct {
		odd  int
		want bool
	}{{0, true}, {1, true}, {BlankNoise, true}, {BlankNoise + 1, false}} {
		img := solid(64, 64, color.RGBA{255, 255, 255, 255})
		for i := range tt.odd {
			img.Set(7*i%64, 5*i%64, color.RGBA{0, 0, 0, 255})
		}
		got := Blank(img)
		if got.Blank != tt.want {
			t.Errorf("%d odd pixels: %+v, want blank=%v", tt.odd, got, tt.want)
		}
		if (got.DominantFraction == 1) != (tt.odd == 0) {
			t.Errorf("%d odd pixels: dominant fraction %v (1 only when no pixel differs)", tt.odd, got.DominantFraction)
		}
	}
}

// drawText writes lines of glyph-like text in 8x13 cells, as a terminal does: each character is
// a seven-segment figure of 1-pixel strokes chosen by the low bits of its code, about as much ink
// as a real font. Characters whose code sets none of bits 0, 3 and 4 ("bdf") have ink in the
// lower 5 rows only, like lower-case letters without ascenders.
func drawText(img *image.RGBA, x0, y0 int, lines []string, c color.RGBA) {
	hline := func(x, y int) {
		for i := 1; i <= 5; i++ {
			img.SetRGBA(x+i, y, c)
		}
	}
	vline := func(x, y int) {
		for i := 0; i <= 4; i++ {
			img.SetRGBA(x, y+i, c)
		}
	}
	for l, line := range lines {
		for i, ch := range []byte(line) {
			x, y := x0+8*i, y0+13*l
			seg := ch
			if seg&0x7f == 0 {
				seg = 2
			}
			if seg&1 != 0 {
				hline(x, y+2)
			}
			if seg&2 != 0 {
				hline(x, y+6)
			}
			if seg&4 != 0 {
				hline(x, y+10)
			}
			if seg&8 != 0 {
				vline(x+1, y+2)
			}
			if seg&16 != 0 {
				vline(x+5, y+2)
			}
			if seg&32 != 0 {
				vline(x+1, y+6)
			}
			if seg&64 != 0 {
				vline(x+5, y+6)
			}
		}
	}
}

// TestBlankTerminal: a terminal showing two short lines is 99.9 % one colour and still not
// blank, wherever the lines fall between sampled rows and whatever the frame size; the same
// frame without text, or with a 1-pixel cursor, is.
func TestBlankTerminal(t *testing.T) {
	black, white := color.RGBA{0, 0, 0, 255}, color.RGBA{255, 255, 255, 255}
	// 1280x800 and 1920x1080 read every fourth row (the widest step), 484x316 every row.
	for _, size := range []image.Point{{1280, 800}, {1920, 1080}, {484, 316}} {
		uniform := solid(size.X, size.Y, black)
		if got := Blank(uniform); !got.Blank || !got.DominantIsDark || got.DominantFraction != 1 {
			t.Errorf("%v uniform: %+v, want blank and dark", size, got)
		}
		img := solid(size.X, size.Y, black)
		img.SetRGBA(size.X/3, size.Y/2, white)
		if got := Blank(img); !got.Blank {
			t.Errorf("%v with a 1-pixel cursor: %+v, want blank", size, got)
		}
		for dy := range 2 * blankMaxRowStep {
			for _, text := range [][]string{{"hello", "world"}, {"bdf"}} {
				copy(img.Pix, uniform.Pix)
				drawText(img, 2, 2+dy, text, white)
				if got := Blank(img); got.Blank || got.DominantFraction < 0.99 {
					t.Errorf("%v, text %q %d px down: %+v, want not blank at >= 99%% one colour", size, text, 2+dy, got)
				}
			}
		}
	}
	// Dark text on white is the same.
	img := solid(1280, 800, white)
	drawText(img, 2, 2, []string{"$ ls", "a"}, black)
	if got := Blank(img); got.Blank {
		t.Errorf("dark text on white: %+v, want not blank", got)
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

// BenchmarkBlankTerminal is the common case of a capture: a frame that is nearly one colour.
func BenchmarkBlankTerminal(b *testing.B) {
	img := solid(1280, 800, color.RGBA{0, 0, 0, 255})
	drawText(img, 2, 2, []string{"hello", "world"}, color.RGBA{255, 255, 255, 255})
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

// blankReference is Blank written plainly, one pixel at a time with a map.
func blankReference(img *image.RGBA) (best, total int, dominant uint16) {
	b := img.Bounds()
	sy := min(blankMaxRowStep, max(1, (b.Dx()*b.Dy()+blankBudget-1)/blankBudget))
	counts := map[uint16]int{}
	for y := b.Min.Y; y < b.Max.Y; y += sy {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := img.RGBAAt(x, y)
			counts[uint16(c.R>>3)<<10|uint16(c.G>>3)<<5|uint16(c.B>>3)]++
			total++
		}
	}
	for k, n := range counts {
		if n > best || (n == best && k < dominant) {
			best, dominant = n, k
		}
	}
	return best, total, dominant
}

// TestBlankMatchesReference compares the word-at-a-time counting with blankReference on
// sub-images of odd sizes and offsets, with runs, noise and few colours.
func TestBlankMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	palette := []color.RGBA{{0, 0, 0, 255}, {255, 255, 255, 255}, {7, 3, 1, 9}, {200, 10, 60, 255}}
	for i := range 60 {
		// Up to 900x500: above blankBudget, so rows are skipped too.
		w, h := 1+rng.IntN(900), 1+rng.IntN(500)
		full := solid(w+5, h+3, palette[rng.IntN(len(palette))])
		for range rng.IntN(3000) {
			full.SetRGBA(rng.IntN(w+5), rng.IntN(h+3), palette[rng.IntN(len(palette))])
		}
		r := image.Rect(rng.IntN(5), rng.IntN(3), 0, 0)
		r.Max = r.Min.Add(image.Pt(w, h))
		img := full.SubImage(r).(*image.RGBA)
		best, total, dominant := blankReference(img)
		got := Blank(img)
		want := BlankCheck{
			Blank:            total-best <= BlankNoise,
			DominantFraction: math.Floor(float64(best)/float64(total)*10000) / 10000,
			DominantIsDark:   max(dominant>>10&31, dominant>>5&31, dominant&31)<<3 <= darkMax,
		}
		if got != want {
			t.Fatalf("case %d (%v of %v): %+v, reference %+v", i, r, full.Bounds(), got, want)
		}
	}
}
