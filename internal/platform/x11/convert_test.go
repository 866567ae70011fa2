package x11

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"testing"

	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/platform"
)

// Pixel layouts other than Xvfb's are checked here against hand-built rows.
func TestConvert(t *testing.T) {
	rgb565 := pixelFormat{bpp: 16, pad: 32, r: newChannel(0xf800), g: newChannel(0x07e0), b: newChannel(0x001f)}
	tests := []struct {
		name string
		f    pixelFormat
		w    int
		src  []byte
		want []color.RGBA
	}{
		{"32 bpp BGRX fast", pixelFormat{bpp: 32, pad: 32, r: newChannel(0xff0000), g: newChannel(0xff00), b: newChannel(0xff), fast: true},
			2, []byte{0x30, 0x20, 0x10, 0x99, 0xcc, 0xbb, 0xaa, 0x00},
			[]color.RGBA{{0x10, 0x20, 0x30, 0xff}, {0xaa, 0xbb, 0xcc, 0xff}}},
		{"32 bpp MSB first", pixelFormat{bpp: 32, pad: 32, msbFirst: true, r: newChannel(0xff0000), g: newChannel(0xff00), b: newChannel(0xff)},
			1, []byte{0x00, 0x10, 0x20, 0x30},
			[]color.RGBA{{0x10, 0x20, 0x30, 0xff}}},
		{"32 bpp RGBX masks", pixelFormat{bpp: 32, pad: 32, r: newChannel(0xff), g: newChannel(0xff00), b: newChannel(0xff0000)},
			1, []byte{0x10, 0x20, 0x30, 0x00},
			[]color.RGBA{{0x10, 0x20, 0x30, 0xff}}},
		{"24 bpp packed, padded row", pixelFormat{bpp: 24, pad: 32, r: newChannel(0xff0000), g: newChannel(0xff00), b: newChannel(0xff)},
			1, []byte{0x30, 0x20, 0x10, 0xee}, // 3 bytes + 1 pad byte
			[]color.RGBA{{0x10, 0x20, 0x30, 0xff}}},
		{"16 bpp 565", rgb565,
			3, []byte{0x00, 0xf8, 0xe0, 0x07, 0x1f, 0x00, 0x00, 0x00}, // 3 pixels + pad to 32 bits
			[]color.RGBA{{0xff, 0, 0, 0xff}, {0, 0xff, 0, 0xff}, {0, 0, 0xff, 0xff}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f.stride(tt.w); got != len(tt.src) {
				t.Fatalf("stride(%d) = %d, want %d", tt.w, got, len(tt.src))
			}
			img := image.NewRGBA(image.Rect(0, 0, tt.w, 2))
			tt.f.convert(img, 1, tt.src, tt.w, 1)
			for x, want := range tt.want {
				if got := img.RGBAAt(x, 1); got != want {
					t.Errorf("pixel %d = %v, want %v", x, got, want)
				}
				if got := img.RGBAAt(x, 0); got != (color.RGBA{}) {
					t.Errorf("row 0 touched: %v", got)
				}
			}
		})
	}
}

func TestSubtract(t *testing.T) {
	area := func(rs []image.Rectangle) int {
		n := 0
		for _, r := range rs {
			n += r.Dx() * r.Dy()
		}
		return n
	}
	full := image.Rect(0, 0, 100, 50)
	tests := []struct {
		name string
		cuts []image.Rectangle
		area int
	}{
		{"nothing", nil, 5000},
		{"disjoint", []image.Rectangle{image.Rect(200, 200, 300, 300)}, 5000},
		{"hole", []image.Rectangle{image.Rect(10, 10, 20, 20)}, 4900},
		{"right half then left half", []image.Rectangle{image.Rect(50, 0, 100, 50), image.Rect(0, 0, 50, 50)}, 0},
		{"overlapping cuts", []image.Rectangle{image.Rect(0, 0, 60, 60), image.Rect(40, -5, 120, 30)}, 40 * 20},
		{"covering", []image.Rectangle{image.Rect(-1, -1, 101, 51)}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := []image.Rectangle{full}
			for _, c := range tt.cuts {
				rs = subtract(rs, c)
			}
			if got := area(rs); got != tt.area {
				t.Errorf("area %d, want %d (%v)", got, tt.area, rs)
			}
			for i := range rs {
				for j := i + 1; j < len(rs); j++ {
					if rs[i].Overlaps(rs[j]) {
						t.Errorf("%v overlaps %v", rs[i], rs[j])
					}
				}
			}
		})
	}
}

func TestIsLocalDisplay(t *testing.T) {
	for display, want := range map[string]bool{
		":0": true, ":1.0": true, "unix:0": true, "localhost:10.0": true, "127.0.0.1:0": true,
		"/tmp/launch-x/org.xquartz:0": true, "unix/:3": true,
		"example.org:0": false, "tcp/example.org:1": false, "10.0.0.2:0": false, "garbage": false,
	} {
		if got := isLocalDisplay(display); got != want {
			t.Errorf("isLocalDisplay(%q) = %v, want %v", display, got, want)
		}
	}
}

func TestXerr(t *testing.T) {
	wrapped := fmt.Errorf("%w: already converted", platform.ErrWindowClosed)
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"bad window", xproto.WindowError{NiceName: "Window"}, platform.ErrWindowClosed},
		{"bad drawable", xproto.DrawableError{NiceName: "Drawable"}, platform.ErrWindowClosed},
		{"bad match", xproto.MatchError{NiceName: "Match"}, platform.ErrCaptureFailed},
		{"connection gone", io.EOF, platform.ErrDisplayUnavailable},
		{"already converted", wrapped, platform.ErrWindowClosed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := xerr(tt.err, platform.ErrCaptureFailed, "doing %s", "it")
			if !errors.Is(got, tt.want) {
				t.Errorf("xerr(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
	if xerr(wrapped, platform.ErrCaptureFailed, "x") != wrapped {
		t.Error("a converted error was wrapped again")
	}
}

func BenchmarkConvertFast(b *testing.B) {
	f := pixelFormat{bpp: 32, pad: 32, r: newChannel(0xff0000), g: newChannel(0xff00), b: newChannel(0xff), fast: true}
	src := make([]byte, 1280*800*4)
	dst := image.NewRGBA(image.Rect(0, 0, 1280, 800))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		f.convert(dst, 0, src, 1280, 800)
	}
}

// The fast BGRX path must match the generic one on every width (it works two pixels at a time).
func TestConvertFastMatchesGeneric(t *testing.T) {
	fast := pixelFormat{bpp: 32, pad: 32, r: newChannel(0xff0000), g: newChannel(0xff00), b: newChannel(0xff), fast: true}
	slow := fast
	slow.fast = false
	for w := 1; w <= 9; w++ {
		const rows = 3
		src := make([]byte, fast.stride(w)*rows)
		for i := range src {
			src[i] = byte(i*37 + w)
		}
		a, b := image.NewRGBA(image.Rect(0, 0, w, rows)), image.NewRGBA(image.Rect(0, 0, w, rows))
		fast.convert(a, 0, src, w, rows)
		slow.convert(b, 0, src, w, rows)
		if string(a.Pix) != string(b.Pix) {
			t.Errorf("width %d: fast %v, generic %v", w, a.Pix, b.Pix)
		}
	}
}

// convertParallel splits big strips into bands: the result must be convert's.
func TestConvertParallelMatches(t *testing.T) {
	f := pixelFormat{bpp: 32, pad: 32, r: newChannel(0xff0000), g: newChannel(0xff00), b: newChannel(0xff), fast: true}
	for _, sz := range []struct{ w, h int }{{1280, 800}, {1021, 517}, {3, 2}} {
		src := make([]byte, f.stride(sz.w)*sz.h)
		for i := range src {
			src[i] = byte(i*131 + i>>9)
		}
		a, b := image.NewRGBA(image.Rect(0, 0, sz.w, sz.h+5)), image.NewRGBA(image.Rect(0, 0, sz.w, sz.h+5))
		f.convertParallel(a, 5, src, sz.w, sz.h)
		f.convert(b, 5, src, sz.w, sz.h)
		if string(a.Pix) != string(b.Pix) {
			t.Errorf("%dx%d: parallel conversion differs", sz.w, sz.h)
		}
	}
}
