package ocr

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/sysload"
)

func TestUnavailable(t *testing.T) {
	o := Options{Binary: "/nonexistent/tesseract"}
	if err := Available(o); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Available: %v", err)
	}
	if _, err := Recognize(context.Background(), image.NewRGBA(image.Rect(0, 0, 10, 10)), o); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Recognize: %v", err)
	}
}

// factory is a capture of gtk3-widget-factory's first page (testdata/factory.png); regions are
// in its coordinates.
func factory(t testing.TB) *image.RGBA {
	t.Helper()
	f, err := os.Open("testdata/factory.png")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	src, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, src.Bounds().Dx(), src.Bounds().Dy()))
	draw.Draw(img, img.Bounds(), src, src.Bounds().Min, draw.Src)
	return img
}

func crop(img *image.RGBA, r image.Rectangle) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(out, out.Bounds(), img, r.Min, draw.Src)
	return out
}

var regions = []struct {
	name string
	r    image.Rectangle
	want []string
}{
	{"toggle buttons", image.Rect(387, 57, 531, 220), []string{"togglebutton", "togglebutton", "togglebutton", "togglebutton"}},
	{"check and radio", image.Rect(10, 360, 275, 525), []string{"checkbutton", "radiobutton", "checkbutton", "radiobutton", "checkbutton", "radiobutton", "checkbutton", "radiobutton", "checkbutton", "radiobutton", "checkbutton", "radiobutton"}},
	{"entries", image.Rect(10, 55, 365, 265), []string{"comboboxentry", "comboboxentry", "click", "icon", "to", "change", "mode", "entry", "entry"}},
	{"tabs", image.Rect(10, 580, 335, 615), []string{"page", "1", "page", "2", "page", "3"}},
	{"whole window", image.Rect(0, 0, 1275, 725), []string{"togglebutton", "checkbutton", "radiobutton", "comboboxentry", "inset", "outset", "groove", "ridge", "andrea", "otto", "lorem", "ipsum"}},
	{"paragraph", image.Rect(1077, 325, 1275, 555), []string{"lorem", "ipsum", "dolor", "sit", "consectetur", "adipiscing", "elit.", "nullam", "fringilla,", "commodo", "tortor", "nisi", "id", "elit."}},
}

// recall is the share of want's words (with repeats) found in got.
func recall(got string, want []string) float64 {
	have := map[string]int{}
	for _, w := range strings.Fields(strings.ToLower(got)) {
		have[w]++
	}
	n := 0
	for _, w := range want {
		if have[w] > 0 {
			have[w]--
			n++
		}
	}
	return float64(n) / float64(len(want))
}

func needTesseract(t *testing.T) {
	if err := Available(Options{}); err != nil {
		t.Skip("tesseract-ocr is not installed (make test-deps installs it)")
	}
}

// TestDefaultsReadUILabels holds the defaults to what docs/observation.md promises.
func TestDefaultsReadUILabels(t *testing.T) {
	needTesseract(t)
	img := factory(t)
	for _, rg := range regions {
		t.Run(rg.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), sysload.Scale(30*time.Second)) // tesseract shares the processors with the rest of make test
			defer cancel()
			res, err := Recognize(ctx, crop(img, rg.r), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r := recall(res.Text, rg.want); r < 0.8 {
				t.Errorf("read %.0f%% of the words: %q", r*100, res.Text)
			}
			if res.LineCount == 0 || res.WordCount == 0 {
				t.Errorf("counts %d lines %d words", res.LineCount, res.WordCount)
			}
		})
	}
}

// TestMeasureSettings logs recall and time for page segmentation modes with and without 2x
// upscaling (the main read alone, without the plain pass); the numbers are in
// docs/observation.md. It takes a while, so it runs only when asked:
// MCEC_OCR_MEASURE=1 go test -v -run TestMeasureSettings ./internal/ocr
func TestMeasureSettings(t *testing.T) {
	needTesseract(t)
	if os.Getenv("MCEC_OCR_MEASURE") == "" {
		t.Skip("a measurement; set MCEC_OCR_MEASURE=1 to run it")
	}
	img := factory(t)
	for _, psm := range []int{3, 6, 11} {
		for _, up := range []bool{false, true} {
			limit := -1
			if up {
				limit = 1 << 40
			}
			var line []string
			var total time.Duration
			sum := 0.0
			for _, rg := range regions {
				start := time.Now()
				res, err := Recognize(context.Background(), crop(img, rg.r), Options{PSM: psm, UpscaleMaxPixels: limit, NoPlainPass: true})
				if err != nil {
					t.Fatal(err)
				}
				total += time.Since(start)
				r := recall(res.Text, rg.want)
				sum += r
				line = append(line, fmt.Sprintf("%s %.0f%%", rg.name, r*100))
			}
			t.Logf("psm %2d upscale %-5v: mean %.0f%% in %v (%s)", psm, up, sum/float64(len(regions))*100,
				total.Round(time.Millisecond), strings.Join(line, ", "))
		}
	}
}

func TestDeadline(t *testing.T) {
	needTesseract(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	<-ctx.Done()
	if _, err := Recognize(ctx, factory(t), Options{}); !errors.Is(err, ErrFailed) {
		t.Fatalf("expired deadline: %v", err)
	}
}
