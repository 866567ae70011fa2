package imaging

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"golang.org/x/image/draw"
)

// xDownscale is the previous implementation, x/image/draw's BiLinear kernel: the reference the
// specialised shrinker is compared with, and the baseline of its benchmark.
func xDownscale(img *image.RGBA, w, h int) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.BiLinear.Scale(dst, dst.Bounds(), img, img.Bounds(), draw.Src, nil)
	return dst
}

// outSize is Downscale's output size formula, for calling the reference with the same size.
func outSize(b image.Rectangle, maxWidth int, scale float64) (int, int) {
	f := 1.0
	if scale > 0 && scale < 1 {
		f = scale
	}
	if maxWidth > 0 && float64(b.Dx())*f > float64(maxWidth) {
		f = float64(maxWidth) / float64(b.Dx())
	}
	if f >= 1 {
		return b.Dx(), b.Dy()
	}
	return max(1, int(math.Round(float64(b.Dx())*f))), max(1, int(math.Round(float64(b.Dy())*f)))
}

func randomImage(w, h int, seed uint64, opaque bool) *image.RGBA {
	rng := rand.New(rand.NewPCG(seed, 1))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		a := uint8(255)
		if !opaque {
			a = uint8(rng.IntN(256))
		}
		// Premultiplied: colour never exceeds alpha.
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = uint8(rng.IntN(int(a)+1)), uint8(rng.IntN(int(a)+1)), uint8(rng.IntN(int(a)+1)), a
	}
	return img
}

func gradient(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetRGBA(x, y, color.RGBA{uint8(x * 255 / max(1, w-1)), uint8(y * 255 / max(1, h-1)), uint8((x + y) % 256), 255})
		}
	}
	return img
}

// lines is white with 1-pixel black lines, horizontal and vertical: the worst case for aliasing.
func lines(w, h int) *image.RGBA {
	img := solid(w, h, color.RGBA{255, 255, 255, 255})
	for y := range h {
		for x := range w {
			if x%7 == 3 || y%5 == 1 {
				img.SetRGBA(x, y, color.RGBA{0, 0, 0, 255})
			}
		}
	}
	return img
}

// diff returns the largest and the mean absolute per-channel difference of two same-size images.
func diff(t *testing.T, a, b *image.RGBA) (maxAbs int, mean float64) {
	t.Helper()
	if a.Bounds().Size() != b.Bounds().Size() {
		t.Fatalf("sizes differ: %v vs %v", a.Bounds(), b.Bounds())
	}
	w, h := a.Bounds().Dx(), a.Bounds().Dy()
	var sum int
	for y := range h {
		pa := a.Pix[a.PixOffset(a.Rect.Min.X, a.Rect.Min.Y+y):][:4*w]
		pb := b.Pix[b.PixOffset(b.Rect.Min.X, b.Rect.Min.Y+y):][:4*w]
		for i := range pa {
			d := int(pa[i]) - int(pb[i])
			if d < 0 {
				d = -d
			}
			sum += d
			maxAbs = max(maxAbs, d)
		}
	}
	return maxAbs, float64(sum) / float64(4*w*h)
}

// Tolerances against x/image: the fixed-point weights and the 8.8 intermediate rows differ from
// x/image's float64 by well under one 8-bit level, which can flip a truncation.
const (
	maxDiffAllowed  = 2
	meanDiffAllowed = 0.5
)

func TestDownscaleMatchesXImage(t *testing.T) {
	wf := widgetFactory(t)
	sub := Crop(wf, image.Rect(101, 57, 101+333, 57+211)) // non-zero origin, odd size
	images := []struct {
		name string
		img  *image.RGBA
	}{
		{"widget-factory", wf},
		{"widget-factory crop", sub},
		{"screen-like", screenLike()},
		{"random opaque", randomImage(257, 173, 1, true)},
		{"random alpha", randomImage(199, 121, 2, false)},
		{"random alpha crop", Crop(randomImage(300, 200, 3, false), image.Rect(17, 33, 290, 171))},
		{"gradient", gradient(321, 203)},
		{"lines", lines(640, 401)},
		{"one row", lines(500, 1)},
		{"one column", lines(1, 500)},
		{"2x2", randomImage(2, 2, 4, false)},
	}
	factors := []struct {
		maxWidth int
		scale    float64
	}{
		{0, 0.5}, {0, 0.33}, {0, 0.75}, {0, 0.9}, {0, 0.1}, {0, 0.999},
		{101, 0}, {1, 0}, {3, 0.5},
	}
	worstMax, worstMean := 0, 0.0
	for _, im := range images {
		for _, f := range factors {
			w, h := outSize(im.img.Bounds(), f.maxWidth, f.scale)
			got := Downscale(im.img, f.maxWidth, f.scale)
			if got == im.img { // factor 1: returned as is, as before
				continue
			}
			if got.Rect != image.Rect(0, 0, w, h) {
				t.Fatalf("%s %+v: bounds %v, want %dx%d", im.name, f, got.Rect, w, h)
			}
			m, mean := diff(t, got, xDownscale(im.img, w, h))
			worstMax, worstMean = max(worstMax, m), max(worstMean, mean)
			if m > maxDiffAllowed || mean > meanDiffAllowed {
				t.Errorf("%s %+v (%dx%d → %dx%d): max diff %d, mean %.3f vs x/image", im.name, f,
					im.img.Bounds().Dx(), im.img.Bounds().Dy(), w, h, m, mean)
			}
			for i := 0; i < len(got.Pix); i += 4 {
				if p := got.Pix[i : i+4]; p[0] > p[3] || p[1] > p[3] || p[2] > p[3] {
					t.Fatalf("%s %+v: pixel %v not premultiplied", im.name, f, p)
				}
			}
		}
	}
	t.Logf("worst difference vs x/image: max %d, mean %.4f", worstMax, worstMean)
}

func TestDownscaleFlatStaysFlat(t *testing.T) {
	// Exact weight sums: a uniform image, opaque or translucent, keeps its colour at every factor.
	for _, c := range []color.RGBA{{10, 20, 30, 255}, {255, 255, 255, 255}, {40, 0, 80, 128}, {0, 0, 0, 0}} {
		img := solid(997, 613, c)
		for _, mw := range []int{1, 2, 333, 500, 996} {
			got := Downscale(img, mw, 0)
			for i := 0; i < len(got.Pix); i += 4 {
				if p := got.Pix[i : i+4]; p[0] != c.R || p[1] != c.G || p[2] != c.B || p[3] != c.A {
					t.Fatalf("%v maxWidth %d: pixel %d is %v", c, mw, i/4, p)
				}
			}
		}
	}
}

func TestDownscaleEmpty(t *testing.T) {
	img := image.NewRGBA(image.Rect(5, 5, 5, 9))
	got := Downscale(img, 0, 0.5)
	if got.Rect != image.Rect(0, 0, 1, 2) {
		t.Fatalf("bounds %v", got.Rect)
	}
}

func FuzzDownscale(f *testing.F) {
	f.Add(uint16(1280), uint16(800), uint16(640), 0.0, uint16(0), uint16(0), uint64(1))
	f.Add(uint16(7), uint16(3), uint16(0), 0.33, uint16(2), uint16(1), uint64(2))
	f.Add(uint16(1), uint16(1), uint16(1), 0.5, uint16(0), uint16(0), uint64(3))
	f.Add(uint16(300), uint16(2), uint16(1), 0.9, uint16(5), uint16(0), uint64(4))
	f.Fuzz(func(t *testing.T, w, h, maxWidth uint16, scale float64, ox, oy uint16, seed uint64) {
		sw, sh := int(w%700), int(h%700)
		x0, y0 := int(ox%50), int(oy%50)
		full := randomImage(x0+sw+3, y0+sh+2, seed, seed%2 == 0)
		img := Crop(full, image.Rect(x0, y0, x0+sw, y0+sh))
		before := append([]uint8(nil), full.Pix...)
		got := Downscale(img, int(maxWidth%1000), scale)
		if string(before) != string(full.Pix) {
			t.Fatal("source modified")
		}
		wantW, wantH := outSize(img.Bounds(), int(maxWidth%1000), scale)
		if got.Bounds().Dx() != wantW || got.Bounds().Dy() != wantH {
			t.Fatalf("%v maxWidth %d scale %v: got %v, want %dx%d", img.Bounds(), maxWidth%1000, scale, got.Bounds(), wantW, wantH)
		}
		if got != img && (wantW > max(1, sw) || wantH > max(1, sh)) {
			t.Fatalf("upscaled %v to %v", img.Bounds(), got.Bounds())
		}
		if got != img && sw > 0 && sh > 0 {
			if m, mean := diff(t, got, xDownscale(img, wantW, wantH)); m > maxDiffAllowed || mean > meanDiffAllowed {
				t.Fatalf("%v → %dx%d: max diff %d, mean %.3f vs x/image", img.Bounds(), wantW, wantH, m, mean)
			}
		}
	})
}

func BenchmarkDownscaleHalfXImage(b *testing.B) {
	img := screenLike()
	for b.Loop() {
		xDownscale(img, 640, 400)
	}
}

func BenchmarkDownscaleWidgetFactory(b *testing.B) {
	img := widgetFactory(b)
	for _, s := range []float64{0.5, 0.75} {
		w, h := outSize(img.Bounds(), 0, s)
		b.Run("new/"+strconv.FormatFloat(s, 'g', -1, 64), func(b *testing.B) {
			for b.Loop() {
				downscaleRGBA(img, w, h)
			}
		})
		b.Run("ximage/"+strconv.FormatFloat(s, 'g', -1, 64), func(b *testing.B) {
			for b.Loop() {
				xDownscale(img, w, h)
			}
		})
	}
}
