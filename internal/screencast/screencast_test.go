package screencast

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/color/palette"
	"image/draw"
	"image/gif"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

func TestClamp(t *testing.T) {
	l := DefaultLimits
	tests := []struct {
		name    string
		in      Options
		want    Options
		clamped bool
	}{
		{"defaults", Options{}, Options{FPS: 5, MaxWidth: 1280}, false},
		{"within", Options{FPS: 10, Duration: 2 * time.Second, MaxWidth: 640}, Options{FPS: 10, Duration: 2 * time.Second, MaxWidth: 640}, false},
		{"fps", Options{FPS: 100}, Options{FPS: 30, MaxWidth: 1280}, true},
		{"duration", Options{Duration: 5 * time.Minute}, Options{FPS: 5, Duration: time.Minute, MaxWidth: 1280}, true},
		{"width", Options{MaxWidth: 4000}, Options{FPS: 5, MaxWidth: 1280}, true},
		{"frames bind first", Options{FPS: 30, Duration: 30 * time.Second}, Options{FPS: 30, Duration: 30 * time.Second, MaxWidth: 1280}, true},
		{"600 frames exactly", Options{FPS: 10, Duration: time.Minute}, Options{FPS: 10, Duration: time.Minute, MaxWidth: 1280}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.in
			changed := l.Clamp(&o)
			if o != tt.want || (len(changed) > 0) != tt.clamped {
				t.Errorf("Clamp(%+v) = %+v, %q; want %+v, clamped=%v", tt.in, o, changed, tt.want, tt.clamped)
			}
		})
	}
}

func TestDelays(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		times []time.Duration
		total time.Duration
		want  []int
	}{
		{[]time.Duration{0, 200 * ms, 400 * ms}, 600 * ms, []int{20, 20, 20}},
		{[]time.Duration{0, 33 * ms, 67 * ms, 100 * ms}, 133 * ms, []int{3, 4, 3, 3}}, // no drift at 30 fps
		{[]time.Duration{0, 5 * ms}, 10 * ms, []int{2, 2}},                            // floor
	}
	for _, tt := range tests {
		if got := delays(tt.times, tt.total); !equalInts(got, tt.want) {
			t.Errorf("delays(%v, %v) = %v, want %v", tt.times, tt.total, got, tt.want)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDiff(t *testing.T) {
	a := solid(40, 30, color.RGBA{10, 20, 30, 255})
	b := copyRGBA(a)
	if d := diff(a, b); !d.Empty() {
		t.Fatalf("identical images differ in %v", d)
	}
	b.Set(5, 7, color.RGBA{255, 0, 0, 255})
	b.Set(12, 20, color.RGBA{0, 255, 0, 255})
	if d := diff(a, b); d != image.Rect(5, 7, 13, 21) {
		t.Fatalf("diff %v", d)
	}
}

func solid(w, h int, c color.RGBA) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(c), image.Point{}, draw.Src)
	return img
}

// uiFrame draws something like a GTK window: a light background, a darker header bar, a blue
// selection, and anti-aliased text in several sizes (the colours a fixed palette gets wrong).
func uiFrame(t testing.TB, withPhoto bool) *image.RGBA {
	t.Helper()
	img := solid(480, 240, color.RGBA{0xf6, 0xf5, 0xf4, 0xff})
	draw.Draw(img, image.Rect(0, 0, 480, 40), image.NewUniform(color.RGBA{0xe1, 0xde, 0xdb, 0xff}), image.Point{}, draw.Src)
	draw.Draw(img, image.Rect(20, 150, 300, 180), image.NewUniform(color.RGBA{0x35, 0x84, 0xe4, 0xff}), image.Point{}, draw.Src)
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	text := func(s string, x, y int, size float64, c color.RGBA) {
		face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 96, Hinting: font.HintingFull})
		if err != nil {
			t.Fatal(err)
		}
		d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: face, Dot: fixed.P(x, y)}
		d.DrawString(s)
	}
	text("gtk3-widget-factory", 20, 28, 11, color.RGBA{0x2e, 0x34, 0x36, 0xff})
	text("checkbutton  togglebutton  radiobutton", 20, 80, 9, color.RGBA{0x2e, 0x34, 0x36, 0xff})
	text("Entry text with some words in it", 20, 120, 10, color.RGBA{0x55, 0x57, 0x53, 0xff})
	text("Selected row", 30, 171, 10, color.RGBA{0xff, 0xff, 0xff, 0xff})
	if withPhoto {
		// A smooth two-dimensional gradient: thousands of colours, as an image or icon would add.
		for y := 150; y < 230; y++ {
			for x := 320; x < 470; x++ {
				img.Set(x, y, color.RGBA{uint8(x - 220), uint8(y), uint8((x + y) / 3), 0xff})
			}
		}
	}
	return img
}

// psnr compares two images of the same size (luma-independent, all channels).
func psnr(a *image.RGBA, b image.Image) float64 {
	var se float64
	n := 0
	bd := a.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			ar, ag, ab, _ := a.At(x, y).RGBA()
			br, bg, bb, _ := b.At(x, y).RGBA()
			for _, d := range []float64{float64(ar>>8) - float64(br>>8), float64(ag>>8) - float64(bg>>8), float64(ab>>8) - float64(bb>>8)} {
				se += d * d
				n++
			}
		}
	}
	if se == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/(se/float64(n)))
}

func TestQuantizeExactColoursAreLossless(t *testing.T) {
	img := solid(300, 200, color.RGBA{0xf6, 0xf5, 0xf4, 0xff})
	for i := range 255 {
		img.Set(i, i%200, color.RGBA{uint8(i), uint8(255 - i), uint8(i * 7), 0xff})
	}
	p := quantize(img)
	if len(p.Palette) > 256 {
		t.Fatalf("palette of %d", len(p.Palette))
	}
	if q := psnr(img, p); !math.IsInf(q, 1) {
		t.Fatalf("a frame of ≤256 colours was not reproduced exactly (PSNR %.1f dB)", q)
	}
}

// TestQuantizeQuality measures the palette choice documented in docs/observation.md: the text
// area of a UI frame with many colours, quantized three ways.
func TestQuantizeQuality(t *testing.T) {
	img := uiFrame(t, true)
	text := image.Rect(0, 0, 480, 140) // header and text rows, no gradient
	ours := quantize(img)

	plan9 := image.NewPaletted(img.Bounds(), palette.Plan9)
	xdraw.FloydSteinberg.Draw(plan9, img.Bounds(), img, image.Point{})
	plain := image.NewPaletted(img.Bounds(), palette.Plan9)
	draw.Draw(plain, img.Bounds(), img, image.Point{}, draw.Src)

	sub := img.SubImage(text).(*image.RGBA)
	got := map[string]float64{"popularity": psnr(sub, ours), "plan9+fs": psnr(sub, plan9), "plan9": psnr(sub, plain)}
	whole := map[string]float64{"popularity": psnr(img, ours), "plan9+fs": psnr(img, plan9), "plan9": psnr(img, plain)}
	t.Logf("text area PSNR: popularity %.1f dB, Plan9+Floyd-Steinberg %.1f dB, Plan9 %.1f dB", got["popularity"], got["plan9+fs"], got["plan9"])
	t.Logf("whole frame PSNR: popularity %.1f dB, Plan9+Floyd-Steinberg %.1f dB, Plan9 %.1f dB", whole["popularity"], whole["plan9+fs"], whole["plan9"])
	if got["popularity"] < got["plan9+fs"]+6 || got["popularity"] < got["plan9"]+6 {
		t.Errorf("the popularity palette is not clearly better on text: %v", got)
	}
	// Flat backgrounds keep their exact colour (no dithering noise).
	if c := ours.At(5, 60).(color.RGBA); c != (color.RGBA{0xf6, 0xf5, 0xf4, 0xff}) {
		t.Errorf("background became %v", c)
	}
}

func BenchmarkQuantize(b *testing.B) {
	img := uiFrame(b, true)
	big := image.NewRGBA(image.Rect(0, 0, 1280, 720))
	xdraw.NearestNeighbor.Scale(big, big.Bounds(), img, img.Bounds(), draw.Src, nil)
	b.ResetTimer()
	for range b.N {
		quantize(big)
	}
}

// fakeSource returns frames of a moving box, counting grabs.
type fakeSource struct {
	n     atomic.Int64
	delay time.Duration
	fail  atomic.Bool
}

func (s *fakeSource) grab(ctx context.Context) (*image.RGBA, error) {
	if s.fail.Load() {
		return nil, errors.New("window closed")
	}
	if s.delay > 0 {
		// Simulates a slow X server; the recorder must skip ticks, not queue them.
		select {
		case <-time.After(s.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	i := int(s.n.Add(1))
	img := solid(64, 48, color.RGBA{0xee, 0xee, 0xee, 0xff})
	draw.Draw(img, image.Rect(i%50, 10, i%50+10, 20), image.NewUniform(color.RGBA{0xc0, 0x10, 0x10, 0xff}), image.Point{}, draw.Src)
	return img, nil
}

func decodeGIF(t *testing.T, path string) *gif.GIF {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("GIF89a")) {
		t.Fatalf("%s does not start with GIF89a: %q", path, b[:6])
	}
	g, err := gif.DecodeAll(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// startClamped clamps o to l, as the manager does, and starts a recording with it.
func startClamped(t *testing.T, grab Grab, o *Options, l Limits) *Recording {
	t.Helper()
	l.Clamp(o)
	rec, err := Start(context.Background(), context.Background(), grab, *o, l)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func TestOneShot(t *testing.T) {
	src := &fakeSource{}
	path := filepath.Join(t.TempDir(), "rec.gif")
	o := Options{FPS: 20, Duration: 500 * time.Millisecond, Path: path}
	rec := startClamped(t, src.grab, &o, DefaultLimits)
	<-rec.Done()
	res := rec.Stop()
	if res.WriteErr != nil || res.StopReason != StopDuration {
		t.Fatalf("result %+v", res)
	}
	// Ten frame times (0, 50, … 450 ms): each got a frame or is counted skipped (a loaded
	// machine does not schedule every tick).
	if res.Frames+res.SkippedTicks != 10 || res.Frames < 2 || res.Duration != 500*time.Millisecond || res.Width != 64 || res.Height != 48 {
		t.Fatalf("result %+v", res)
	}
	g := decodeGIF(t, path)
	if len(g.Image) != res.Frames || g.LoopCount != 0 {
		t.Fatalf("GIF has %d frames (result says %d), loop count %d", len(g.Image), res.Frames, g.LoopCount)
	}
	total := 0
	for _, d := range g.Delay {
		total += d
	}
	if total < 45 || total > 60 {
		t.Errorf("delays add up to %d cs for a 500 ms recording: %v", total, g.Delay)
	}
	// Composing the difference frames gives back the last grabbed frame exactly.
	canvas := image.NewRGBA(image.Rect(0, 0, g.Config.Width, g.Config.Height))
	for _, f := range g.Image {
		draw.Draw(canvas, f.Bounds(), f, f.Bounds().Min, draw.Src)
	}
	src.n.Add(-1)
	last, _ := src.grab(context.Background())
	if !bytes.Equal(canvas.Pix, last.Pix) {
		t.Error("the composed GIF differs from the last frame")
	}
	if st, err := os.Stat(path); err != nil || int(st.Size()) != res.Bytes {
		t.Errorf("file: %v, %d bytes vs %d", err, st.Size(), res.Bytes)
	}
}

func TestMaxWidthDownscales(t *testing.T) {
	src := &fakeSource{}
	o := Options{FPS: 10, Duration: 200 * time.Millisecond, MaxWidth: 32, Path: filepath.Join(t.TempDir(), "r.gif")}
	rec := startClamped(t, src.grab, &o, DefaultLimits)
	if res := rec.Stop(); res.Width != 32 || res.Height != 24 {
		t.Fatalf("%+v", res)
	}
}

func TestLimitsStopTheLoop(t *testing.T) {
	tests := []struct {
		name   string
		limits Limits
		reason string
	}{
		{"frames", Limits{MaxFPS: 30, MaxDuration: time.Minute, MaxFrames: 3, MaxWidth: 1280, MaxBytes: 1 << 30}, StopMaxFrames},
		{"duration", Limits{MaxFPS: 30, MaxDuration: 150 * time.Millisecond, MaxFrames: 600, MaxWidth: 1280, MaxBytes: 1 << 30}, StopMaxDur},
		{"memory", Limits{MaxFPS: 30, MaxDuration: time.Minute, MaxFrames: 600, MaxWidth: 1280, MaxBytes: 64*48 + 2000}, StopMaxBytes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{FPS: 30, Path: filepath.Join(t.TempDir(), "r.gif")}
			rec := startClamped(t, (&fakeSource{}).grab, &o, tt.limits)
			select {
			case <-rec.Done():
			case <-time.After(10 * time.Second):
				t.Fatal("the recording did not stop at its limit")
			}
			if res := rec.Stop(); res.StopReason != tt.reason || res.WriteErr != nil {
				t.Fatalf("%+v", res)
			}
		})
	}
}

func TestSlowGrabSkipsTicks(t *testing.T) {
	src := &fakeSource{delay: 120 * time.Millisecond} // slower than the 50 ms interval
	o := Options{FPS: 20, Duration: 700 * time.Millisecond, Path: filepath.Join(t.TempDir(), "r.gif")}
	rec := startClamped(t, src.grab, &o, DefaultLimits)
	<-rec.Done()
	res := rec.Stop()
	if res.Frames > 8 || res.SkippedTicks == 0 {
		t.Fatalf("slow grabs: %d frames, %d skipped ticks", res.Frames, res.SkippedTicks)
	}
}

func TestGrabFailureEndsTheRecording(t *testing.T) {
	src := &fakeSource{}
	o := Options{FPS: 20, Path: filepath.Join(t.TempDir(), "r.gif")}
	rec := startClamped(t, src.grab, &o, DefaultLimits)
	src.fail.Store(true)
	<-rec.Done()
	if res := rec.Stop(); res.StopReason != StopGrabFailed || res.Frames < 1 || res.StopDetail == "" || res.WriteErr != nil {
		t.Fatalf("%+v", res)
	}

	src.fail.Store(true)
	if _, err := Start(context.Background(), context.Background(), src.grab, o, DefaultLimits); !errors.Is(err, ErrNoFrames) {
		t.Fatalf("first grab failing: %v", err)
	}
}

func TestWriteFailure(t *testing.T) {
	o := Options{FPS: 10, Duration: 100 * time.Millisecond, Path: filepath.Join(t.TempDir(), "no", "such", "dir", "r.gif")}
	rec := startClamped(t, (&fakeSource{}).grab, &o, DefaultLimits)
	if res := rec.Stop(); res.WriteErr == nil {
		t.Fatalf("%+v", res)
	}
}

func TestManager(t *testing.T) {
	m := NewManager(Limits{MaxFPS: 30, MaxDuration: time.Minute, MaxFrames: 3, MaxWidth: 1280, MaxBytes: 1 << 30})
	defer m.Close()
	dir := t.TempDir()
	opts := func(name string) Options {
		o := Options{FPS: 30, Path: filepath.Join(dir, name)}
		m.Limits().Clamp(&o)
		return o
	}
	ctx := context.Background()

	if _, err := m.Take(); !errors.Is(err, ErrNone) {
		t.Fatalf("Take on an empty slot: %v", err)
	}
	// A running recording blocks another.
	slow := &fakeSource{}
	m2 := NewManager(DefaultLimits)
	defer m2.Close()
	running, _, err := m2.Begin(ctx, slow.grab, Options{FPS: 5, MaxWidth: 1280, Path: filepath.Join(dir, "run.gif")})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := m2.Begin(ctx, slow.grab, Options{FPS: 5, MaxWidth: 1280, Path: filepath.Join(dir, "x.gif")}); !errors.Is(err, ErrInProgress) {
		t.Fatalf("second Begin: %v", err)
	}
	if res, err := m2.Take(); err != nil || res.StopReason != StopRequested || res.File != running.opts.Path {
		t.Fatalf("Take: %+v %v", res, err)
	}

	// A recording that ends at a limit is returned once by the next Take.
	rec, _, err := m.Begin(ctx, (&fakeSource{}).grab, opts("a.gif"))
	if err != nil {
		t.Fatal(err)
	}
	<-rec.Done()
	res, err := m.Take()
	if err != nil || res.StopReason != StopMaxFrames || res.Frames != 3 {
		t.Fatalf("Take after the limit: %+v %v", res, err)
	}
	if _, err := m.Take(); !errors.Is(err, ErrNone) {
		t.Fatalf("second Take: %v", err)
	}

	// An unfetched one is discarded by the next Begin.
	first, _, err := m.Begin(ctx, (&fakeSource{}).grab, opts("b.gif"))
	if err != nil {
		t.Fatal(err)
	}
	<-first.Done()
	_, discarded, err := m.Begin(ctx, (&fakeSource{}).grab, opts("c.gif"))
	if err != nil || discarded != first {
		t.Fatalf("Begin over an unfetched recording: discarded %v, %v", discarded, err)
	}
	if res, err := m.Take(); err != nil || res.File != filepath.Join(dir, "c.gif") {
		t.Fatalf("Take: %+v %v", res, err)
	}
}

func TestManagerCloseWritesTheRunningRecording(t *testing.T) {
	m := NewManager(DefaultLimits)
	path := filepath.Join(t.TempDir(), "r.gif")
	if _, _, err := m.Begin(context.Background(), (&fakeSource{}).grab, Options{FPS: 5, MaxWidth: 1280, Path: path}); err != nil {
		t.Fatal(err)
	}
	m.Close()
	decodeGIF(t, path)
	if _, _, err := m.Begin(context.Background(), (&fakeSource{}).grab, Options{FPS: 5, MaxWidth: 1280, Path: path}); err == nil {
		t.Fatal("Begin after Close succeeded")
	}
}
