package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/framepool"
	"github.com/mcec/mcec/internal/imaging"
	"github.com/mcec/mcec/internal/ocr"
	"github.com/mcec/mcec/internal/platform"
)

// ocrDeadline bounds one tesseract run (a full 1280x800 screen takes about a second idle); it
// stretches with the machine's load like the accessibility deadlines (sysload): beside a second
// make test (load 16 on 2 cores) the same screen took more than 30 s.
const ocrDeadline = 30 * time.Second

type getTextArgs struct {
	WindowTarget
	Region *Region `json:"region,omitempty" jsonschema:"Rectangle to read: absolute screen pixels, or relative to the window when a window target is given. Without region and target: the whole screen."`
	Boxes  string  `json:"boxes,omitempty" jsonschema:"words (default): lines and words with their boxes in absolute screen pixels; lines: lines only; none: the text only (smallest)."`
}

var boxesValues = []string{"words", "lines", "none"}

type getTextResult struct {
	Text      string `json:"text"`
	LineCount int    `json:"lineCount"`
	WordCount int    `json:"wordCount"`
	// Region is what was read: window-relative with a window target, else absolute.
	Region platform.Rect `json:"region"`
	Window *WindowInfo   `json:"window,omitempty"`
	// Lines and Words are in absolute screen pixels, whatever was read, so a click can use
	// them as they are.
	Lines []TextLine `json:"lines,omitempty"`
	Words []TextWord `json:"words,omitempty"`
}

func getTextTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[getTextArgs, getTextResult]{
		Name:  "get-text",
		Title: "Read text from pixels (OCR)",
		Description: "Recognize the text in a window (its own pixels) or a region with Tesseract OCR: text, lineCount, " +
			"wordCount, and lines and words with their boxes in absolute screen pixels (words: confidence 0-100; " +
			"boxes: lines or none for a smaller answer). For apps without an accessibility tree, canvases and images; " +
			"prefer query/find when the tree has the text. A small region reads faster and better than a whole window. " +
			"A blank region fails capture-blank; no readable text fails ocr-no-text.",
		Annotations: catalog.Annotations{ReadOnly: true, Idempotent: true, OpenWorld: true},
		Errors: slices.Concat(windowTargetErrors, []contract.Code{contract.CodeRegionTooLarge, contract.CodeRegionOutOfBounds,
			contract.CodeFrameAllBlack, contract.CodeFrameMostlyBlank, contract.CodeOCRNoText, contract.CodeOCRUnavailable,
			contract.CodeCaptureFailed, contract.CodeCompositorUnsupported}),
		Warnings: []contract.Code{contract.WarnMinimizedWindow, contract.WarnRegionClamped, contract.WarnCaptureFallback},
		Run: func(ctx context.Context, call *catalog.Call, in *getTextArgs, resp *catalog.Response) (*getTextResult, error) {
			boxes := in.Boxes
			if boxes == "" {
				boxes = "words"
			}
			if !slices.Contains(boxesValues, boxes) {
				return nil, contract.Errorf(contract.CodeBadArguments, "boxes %q is not one of %s", in.Boxes, strings.Join(boxesValues, ", "))
			}
			if err := ocr.Available(ocr.Options{}); err != nil {
				return nil, contract.Errorf(contract.CodeOCRUnavailable,
					"OCR needs Tesseract, which is not installed on the mcec host: apt-get install tesseract-ocr (Debian/Ubuntu)")
			}
			src, err := newPixelSource(ctx, env, call, in.WindowTarget, in.Region, resp)
			if err != nil {
				return nil, err
			}
			img, wc, err := src.grab(ctx)
			if err != nil {
				return nil, err
			}
			src.windowWarnings(ctx, wc, resp, "the window was minimized; it was restored to read it")
			region := platform.Rect{Width: img.Bounds().Dx(), Height: img.Bounds().Dy()}
			if src.region != nil {
				region = *src.region
			}
			if blank := imaging.Blank(img); blank.Blank {
				code, what := blankCode(blank)
				return nil, contract.Errorf(code, "the area %+v is %s (%.2f%% one colour): there is no text to read",
					region, what, blank.DominantFraction*100)
			}
			got, err := recognize(ctx, img, fmt.Sprintf("%+v", region))
			// Tesseract read a PNG copy: the frame's buffer can go back to the pool.
			framepool.Release(src.frame)
			if err != nil {
				return nil, err
			}
			if got.WordCount == 0 {
				return nil, contract.Errorf(contract.CodeOCRNoText,
					"no readable text in %+v; capture it to look, or read a tighter region", region)
			}
			res := getTextResult{Text: got.Text, LineCount: got.LineCount, WordCount: got.WordCount, Region: region, Window: src.window}
			if boxes != "none" {
				lines, words := textBoxes(got, src.screenMap())
				res.Lines = lines
				if boxes == "words" {
					res.Words = words
				}
			}
			resp.Observation = observation("get-text", res)
			return &res, nil
		},
	})
}
