// Package ocr reads text out of pixels with Tesseract, run as a process with a deadline (the PNG
// goes in on stdin, the words come back on stdout as TSV, with their boxes). No cgo: Tesseract
// is a Debian package (tesseract-ocr), looked up on PATH at each call.
package ocr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	xdraw "golang.org/x/image/draw"

	"github.com/mcec/mcec/internal/imaging"
)

// ErrUnavailable is returned when the tesseract program cannot be found.
var ErrUnavailable = errors.New("tesseract is not installed (Debian: apt-get install tesseract-ocr)")

// ErrFailed is returned when tesseract ran but failed.
var ErrFailed = errors.New("tesseract failed")

// Options tune one recognition.
type Options struct {
	// Binary is the program to run; "" means tesseract on PATH.
	Binary string
	// Language is a tesseract language code; "" means eng.
	Language string
	// PSM is tesseract's page segmentation mode; 0 means 11 (sparse text), which reads UI
	// layouts, where labels are scattered and not in paragraphs, best (see docs/observation.md).
	PSM int
	// UpscaleMaxPixels: images of at most this many pixels are upscaled 2x before recognition
	// (UI text is 9–12 px high; Tesseract reads best at 20–30). 0 means DefaultUpscaleMaxPixels;
	// negative never upscales.
	UpscaleMaxPixels int
	// StripMinPixels: larger images (as read, after any upscale) are read in two strips at
	// once. 0 means DefaultStripMinPixels; negative never splits.
	StripMinPixels int
	// NoPlainPass skips the plain pass: an upscaled image is also read at its own size with
	// Tesseract's default page segmentation, at once, for the labels the upscaled read drops
	// (plain.go).
	NoPlainPass bool
}

// DefaultUpscaleMaxPixels bounds the 2x upscale: a 1280x800 screen is still upscaled (about 0.7 s
// more for a whole window, see docs/observation.md); a 4K screen is not.
const DefaultUpscaleMaxPixels = 2_000_000

// Result is the recognized text, with the boxes of its lines and words.
type Result struct {
	Text      string // lines joined by \n, words by a space; lines without a letter or digit dropped
	LineCount int
	WordCount int // len(Words)
	Lines     []Line
	// Words are the fields with a letter or digit, line by line in Tesseract's order (the plain
	// pass's lines placed among them by height, see plain.go).
	Words    []Word
	Upscaled bool
}

// Available reports whether tesseract can be run.
func Available(o Options) error {
	_, err := exec.LookPath(binary(o))
	if err != nil {
		return ErrUnavailable
	}
	return nil
}

func binary(o Options) string {
	if o.Binary != "" {
		return o.Binary
	}
	return "tesseract"
}

// Recognize runs tesseract on img under ctx. Boxes in the result are relative to img's top left
// (img.Bounds().Min).
func Recognize(ctx context.Context, img *image.RGBA, o Options) (Result, error) {
	bin, err := exec.LookPath(binary(o))
	if err != nil {
		return Result{}, ErrUnavailable
	}
	scale := 1
	limit := o.UpscaleMaxPixels
	if limit == 0 {
		limit = DefaultUpscaleMaxPixels
	}
	orig := img
	if b := img.Bounds(); b.Dx()*b.Dy() <= limit {
		img = upscale2x(img)
		scale = 2
	}
	plain := scale > 1 && !o.NoPlainPass
	lang := o.Language
	if lang == "" {
		lang = "eng"
	}
	psm := o.PSM
	if psm == 0 {
		psm = 11
	}
	// The tsv config gives each word's box and confidence; the text is rebuilt from its words,
	// so one run answers both.
	args := []string{"stdin", "stdout", "-l", lang, "--psm", strconv.Itoa(psm), "tsv"}

	parts := strips(img.Bounds(), o.StripMinPixels)
	// One answer per strip, then the plain pass's, if any.
	outs := make([]string, len(parts)+1)
	errs := make([]error, len(parts)+1)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	read := func(i int, a []string, im *image.RGBA) {
		wg.Go(func() {
			outs[i], errs[i] = run(sctx, bin, a, im)
			if errs[i] != nil {
				cancel() // the other answers are no use alone
			}
		})
	}
	for i, p := range parts {
		read(i, args, imaging.Crop(img, p.r))
	}
	if plain {
		read(len(parts), []string{"stdin", "stdout", "-l", lang, "--psm", strconv.Itoa(plainPSM), "tsv"}, orig)
	}
	wg.Wait()
	if ctx.Err() != nil {
		return Result{}, fmt.Errorf("%w: %w", ErrFailed, ctx.Err())
	}
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) { // canceled: another read failed
			return Result{}, err
		}
	}
	var rows []tsvRow
	origin := img.Bounds().Min
	for i, p := range parts {
		for _, row := range parseRows(outs[i]) {
			row.box = row.box.Add(p.r.Min.Sub(origin))
			// Each strip keeps the fields centred in its own half: one the cut runs through is
			// whole, and centred, in the other strip's overlap.
			if cy := origin.Y + (row.box.Min.Y+row.box.Max.Y)/2; cy < p.own0 || cy >= p.own1 {
				continue
			}
			row.line = strconv.Itoa(i) + "/" + row.line
			rows = append(rows, row)
		}
	}
	if plain { // its boxes are in orig's pixels from its top left already
		rows = addPlain(rows, parseRows(outs[len(parts)]), scale)
	}
	res := assemble(rows, scale)
	res.Upscaled = scale > 1
	return res, nil
}

// DefaultStripMinPixels: images read (after any upscale) of more pixels than this are read as two
// horizontal strips by two tesseract processes at once, which costs little when the cores are busy
// and nearly halves a large read when one is free (docs/observation.md has the numbers).
const DefaultStripMinPixels = 1_500_000

// stripOverlap is how far (in pixels of the image read) each strip reaches past the middle:
// words up to twice as tall lie whole in the strip that owns their centre.
const stripOverlap = 64

// strip is one part of an image to read: r, and the rows (own0 to own1) whose fields it keeps.
type strip struct {
	r          image.Rectangle
	own0, own1 int
}

// strips splits b into two overlapping horizontal halves when it is large (limit: 0 means
// DefaultStripMinPixels, negative never splits), else returns b whole. Horizontal, because text
// runs in lines: the cut crosses one row of text, not every line.
func strips(b image.Rectangle, limit int) []strip {
	if limit == 0 {
		limit = DefaultStripMinPixels
	}
	if limit < 0 || b.Dx()*b.Dy() <= limit || b.Dy() < 8*stripOverlap {
		return []strip{{b, b.Min.Y, b.Max.Y}}
	}
	mid := b.Min.Y + b.Dy()/2
	return []strip{
		{image.Rect(b.Min.X, b.Min.Y, b.Max.X, mid+stripOverlap), b.Min.Y, mid},
		{image.Rect(b.Min.X, mid-stripOverlap, b.Max.X, b.Max.Y), mid, b.Max.Y},
	}
}

// run feeds one image to tesseract and returns its TSV.
func run(ctx context.Context, bin string, args []string, img *image.RGBA) (string, error) {
	png, err := imaging.EncodePNG(img)
	if err != nil {
		return "", fmt.Errorf("%w: encode PNG: %v", ErrFailed, err)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	// One thread: OpenMP threads make small images slower, and calls run concurrently anyway.
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	cmd.Stdin = bytes.NewReader(png)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("%w: %v: %s", ErrFailed, err, lastLine(stderr.String()))
	}
	return out.String(), nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// upscale2x doubles img's size with a Catmull-Rom kernel, which keeps glyph edges sharp.
func upscale2x(img *image.RGBA) *image.RGBA {
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, 2*b.Dx(), 2*b.Dy()))
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), img, b, xdraw.Src, nil)
	return dst
}
