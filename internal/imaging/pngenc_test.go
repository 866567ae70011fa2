package imaging

import (
	"bytes"
	"hash/adler32"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math/rand/v2"
	"os"
	"testing"
)

// widgetFactory is a full-screen capture of gtk3-widget-factory on the 1280x800 test desktop.
func widgetFactory(tb testing.TB) *image.RGBA {
	tb.Helper()
	b, err := os.ReadFile("testdata/widget-factory.png")
	if err != nil {
		tb.Fatal(err)
	}
	src, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		tb.Fatal(err)
	}
	img := image.NewRGBA(src.Bounds())
	draw.Draw(img, img.Bounds(), src, image.Point{}, draw.Src)
	return img
}

func randomOpaque(r *rand.Rand, w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(r.UintN(256))
		if i%4 == 3 {
			img.Pix[i] = 0xff
		}
	}
	return img
}

// checkDecodes decodes b with image/png and compares every pixel with img.
func checkDecodes(t *testing.T, img *image.RGBA, b []byte) {
	t.Helper()
	dec, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("image/png cannot decode it: %v", err)
	}
	bounds := img.Bounds()
	if dec.Bounds().Dx() != bounds.Dx() || dec.Bounds().Dy() != bounds.Dy() {
		t.Fatalf("decoded %v, want %dx%d", dec.Bounds(), bounds.Dx(), bounds.Dy())
	}
	got := image.NewRGBA(image.Rect(0, 0, bounds.Dx(), bounds.Dy()))
	draw.Draw(got, got.Bounds(), dec, dec.Bounds().Min, draw.Src)
	for y := range bounds.Dy() {
		o := img.PixOffset(bounds.Min.X, bounds.Min.Y+y)
		want, row := img.Pix[o:o+4*bounds.Dx()], got.Pix[y*got.Stride:y*got.Stride+4*bounds.Dx()]
		if !bytes.Equal(row, want) {
			for x := 0; x < len(row); x += 4 {
				if !bytes.Equal(row[x:x+4], want[x:x+4]) {
					t.Fatalf("pixel %d,%d = %v, want %v", x/4, y, row[x:x+4], want[x:x+4])
				}
			}
		}
	}
}

func TestEncodePNGPixelIdentical(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	shot := widgetFactory(t)
	screen := screenLike()
	sub := Crop(shot, image.Rect(101, 57, 700, 433)) // non-zero origin, stride wider than the row
	tests := []struct {
		name string
		img  *image.RGBA
	}{
		{"widget factory", shot},
		{"screen-like", screen},
		{"crop of the widget factory", sub},
		{"random 1x1", randomOpaque(r, 1, 1)},
		{"random 1x300", randomOpaque(r, 1, 300)},
		{"random 300x1", randomOpaque(r, 300, 1)},
		{"random 257x129", randomOpaque(r, 257, 129)},
		{"random 600x400", randomOpaque(r, 600, 400)},
		{"solid", solid(640, 480, color.RGBA{12, 34, 56, 255})},
	}
	for _, tt := range tests {
		for _, f := range []byte{filterNone, filterSub, filterUp} {
			for _, strips := range []int{0, 1, 3, 7} {
				o := pngOptions{filter: f, level: defaultPNG.level, strips: strips}
				b, ok, err := encodeOpaque(tt.img, o)
				if err != nil || !ok {
					t.Fatalf("%s: encode: ok=%v err=%v", tt.name, ok, err)
				}
				t.Run("", func(t *testing.T) { checkDecodes(t, tt.img, b) })
			}
		}
		b, err := EncodePNG(tt.img)
		if err != nil {
			t.Fatal(err)
		}
		checkDecodes(t, tt.img, b)
	}
}

func TestEncodePNGTranslucentFallsBack(t *testing.T) {
	img := solid(40, 30, color.RGBA{200, 100, 50, 255})
	// The last pixel, in the last strip's last row, transparent (which round-trips exactly
	// through image/png's non-premultiplied colour, unlike partial alpha).
	copy(img.Pix[len(img.Pix)-4:], []byte{0, 0, 0, 0})
	if _, ok, err := encodeOpaque(img, pngOptions{filter: filterUp, level: 1, strips: 3}); ok || err != nil {
		t.Fatalf("translucent image encoded as RGB: ok=%v err=%v", ok, err)
	}
	b, err := EncodePNG(img)
	if err != nil {
		t.Fatal(err)
	}
	checkDecodes(t, img, b)
}

func TestEncodePNGEmpty(t *testing.T) {
	if _, err := EncodePNG(image.NewRGBA(image.Rect(0, 0, 0, 5))); err == nil {
		t.Fatal("an empty image encoded")
	}
}

func TestAdler32Combine(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 5552, 65521, 65522, 200000} {
		a, b := make([]byte, r.IntN(100000)), make([]byte, n)
		for i := range a {
			a[i] = byte(r.UintN(256))
		}
		for i := range b {
			b[i] = 0xff
		}
		want := adler32.Checksum(append(append([]byte(nil), a...), b...))
		if got := adler32Combine(adler32.Checksum(a), adler32.Checksum(b), int64(len(b))); got != want {
			t.Errorf("len %d+%d: %08x, want %08x", len(a), len(b), got, want)
		}
	}
}

// TestPNGSizeWidgetFactory guards the size the fast writer pays for its speed: at most 25% over
// image/png at BestSpeed on a real screenshot (≈ 10% when the filter was chosen).
func TestPNGSizeWidgetFactory(t *testing.T) {
	img := widgetFactory(t)
	ours, err := EncodePNG(img)
	if err != nil {
		t.Fatal(err)
	}
	var std bytes.Buffer
	if err := pngEncoder.Encode(&std, img); err != nil {
		t.Fatal(err)
	}
	t.Logf("widget factory 1280x800: %d bytes, image/png BestSpeed %d bytes", len(ours), std.Len())
	if len(ours) > std.Len()*5/4 {
		t.Errorf("PNG is %d bytes, more than 25%% over image/png's %d", len(ours), std.Len())
	}
}

// FuzzEncodePNG encodes arbitrary opaque pixels with every filter and strip count and checks that
// image/png decodes them back unchanged.
func FuzzEncodePNG(f *testing.F) {
	f.Add(uint8(3), uint8(2), byte(1), uint8(2), []byte{1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add(uint8(1), uint8(1), byte(2), uint8(1), []byte{0xff})
	f.Add(uint8(17), uint8(9), byte(0), uint8(4), []byte("screenshot-like repeated text rows"))
	f.Fuzz(func(t *testing.T, w, h uint8, filter byte, strips uint8, pix []byte) {
		if w == 0 || h == 0 || len(pix) == 0 {
			return
		}
		img := image.NewRGBA(image.Rect(0, 0, int(w), int(h)))
		for i := range img.Pix {
			img.Pix[i] = pix[i%len(pix)] ^ byte(i/len(pix))
			if i%4 == 3 {
				img.Pix[i] = 0xff
			}
		}
		o := pngOptions{filter: filter % 3, level: defaultPNG.level, strips: int(strips % 9)}
		b, ok, err := encodeOpaque(img, o)
		if err != nil || !ok {
			t.Fatalf("encode: ok=%v err=%v", ok, err)
		}
		checkDecodes(t, img, b)
	})
}

func BenchmarkEncodePNGWidgetFactory(b *testing.B) {
	img := widgetFactory(b)
	b.SetBytes(int64(len(img.Pix)))
	for b.Loop() {
		if _, err := EncodePNG(img); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodePNGStdlib is the image/png path the writer replaced, for comparison.
func BenchmarkEncodePNGStdlib(b *testing.B) {
	img := widgetFactory(b)
	b.SetBytes(int64(len(img.Pix)))
	for b.Loop() {
		var buf bytes.Buffer
		if err := pngEncoder.Encode(&buf, img); err != nil {
			b.Fatal(err)
		}
	}
}

// filterRow works two pixels at a time with a one-pixel tail: a translucent pixel anywhere in a
// row must be seen, whatever the filter.
func TestFilterRowSeesEveryAlpha(t *testing.T) {
	for w := 1; w <= 7; w++ {
		for x := range w {
			for _, f := range []byte{filterNone, filterSub, filterUp} {
				img := solid(w, 2, color.RGBA{1, 2, 3, 255})
				img.Pix[img.PixOffset(x, 1)+3] = 0x7f
				if _, ok, err := encodeOpaque(img, pngOptions{filter: f, level: 1, strips: 1}); ok || err != nil {
					t.Errorf("width %d, x %d, filter %d: ok=%v err=%v", w, x, f, ok, err)
				}
			}
		}
	}
}
