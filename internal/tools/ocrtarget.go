package tools

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"strconv"
	"strings"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/framepool"
	"github.com/mcec/mcec/internal/imaging"
	"github.com/mcec/mcec/internal/ocr"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/progress"
	"github.com/mcec/mcec/internal/sysload"
)

// TextWord is one word get-text read, in absolute screen pixels.
type TextWord struct {
	Text       string `json:"text"`
	X          int    `json:"x"`
	Y          int    `json:"y"`
	Width      int    `json:"width"`
	Height     int    `json:"height"`
	Confidence int    `json:"confidence"`
}

// TextLine is one line get-text read, in absolute screen pixels.
type TextLine struct {
	Text   string `json:"text"`
	X      int    `json:"x"`
	Y      int    `json:"y"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

// screenMap takes an OCR'd image's pixels to absolute screen pixels: the image's top left sits
// at origin, and one image pixel is sx by sy screen pixels (1 unless a window's pixels come at
// another scale than its bounds).
type screenMap struct {
	origin image.Point
	sx, sy float64
}

func (m screenMap) rect(r image.Rectangle) platform.Rect {
	x0 := m.origin.X + int(math.Floor(float64(r.Min.X)*m.sx))
	y0 := m.origin.Y + int(math.Floor(float64(r.Min.Y)*m.sy))
	x1 := m.origin.X + int(math.Ceil(float64(r.Max.X)*m.sx))
	y1 := m.origin.Y + int(math.Ceil(float64(r.Max.Y)*m.sy))
	return platform.Rect{X: x0, Y: y0, Width: x1 - x0, Height: y1 - y0}
}

// screenMap says where the last grab lies on screen: the region itself, or the window's bounds
// (the crop offset added), scaled when the window's pixels do not match its bounds.
func (s *pixelSource) screenMap() screenMap {
	if s.handle == 0 {
		return screenMap{origin: image.Pt(s.rect.X, s.rect.Y), sx: 1, sy: 1}
	}
	m := screenMap{origin: image.Pt(s.window.X, s.window.Y), sx: 1, sy: 1}
	if f := s.frame; f != nil && f.Bounds().Dx() > 0 && f.Bounds().Dy() > 0 && s.window.Width > 0 && s.window.Height > 0 {
		m.sx = float64(s.window.Width) / float64(f.Bounds().Dx())
		m.sy = float64(s.window.Height) / float64(f.Bounds().Dy())
	}
	if s.crop {
		m.origin.X += int(math.Round(float64(s.rect.X) * m.sx))
		m.origin.Y += int(math.Round(float64(s.rect.Y) * m.sy))
	}
	return m
}

// textBoxes converts a recognition's lines and words to screen pixels.
func textBoxes(res ocr.Result, m screenMap) ([]TextLine, []TextWord) {
	lines := make([]TextLine, len(res.Lines))
	for i, l := range res.Lines {
		r := m.rect(l.Box)
		lines[i] = TextLine{Text: l.Text, X: r.X, Y: r.Y, Width: r.Width, Height: r.Height}
	}
	words := make([]TextWord, len(res.Words))
	for i, w := range res.Words {
		r := m.rect(w.Box)
		words[i] = TextWord{Text: w.Text, X: r.X, Y: r.Y, Width: r.Width, Height: r.Height, Confidence: w.Confidence}
	}
	return lines, words
}

// recognize runs Tesseract under the OCR deadline, mapping its failures onto the contract.
func recognize(ctx context.Context, img *image.RGBA, what string) (ocr.Result, error) {
	deadline := sysload.Scale(ocrDeadline)
	octx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	b := img.Bounds()
	octx, stop := progress.Track(octx, fmt.Sprintf("reading the text of %s by OCR (%dx%d px)", what, b.Dx(), b.Dy()), deadline)
	defer stop()
	got, err := ocr.Recognize(octx, img, ocr.Options{})
	if errors.Is(err, ocr.ErrUnavailable) {
		return got, contract.Errorf(contract.CodeOCRUnavailable, "OCR needs Tesseract, which is not installed on the mcec host: apt-get install tesseract-ocr (Debian/Ubuntu)")
	}
	if err != nil {
		return got, contract.Errorf(contract.CodeCaptureFailed, "OCR of %s: %v", what, err)
	}
	return got, nil
}

// ocrRefPrefix marks the refs of text found by OCR, which name a place on screen and no
// accessible object.
const ocrRefPrefix = "ocr:"

// ocrRole is the role of a pseudo-element found by OCR.
const ocrRole = "ocr text"

// isOCRRef reports a ref that names text found by OCR.
func isOCRRef(ref string) bool { return strings.HasPrefix(ref, ocrRefPrefix) }

// ocrRef spells a match as a ref: its absolute box and the text read there, so the ref can be
// checked again later ("ocr:120,40,64,18:Save").
func ocrRef(r platform.Rect, text string) string {
	return fmt.Sprintf("%s%d,%d,%d,%d:%s", ocrRefPrefix, r.X, r.Y, r.Width, r.Height, text)
}

// parseOCRRef reads a ref ocrRef made.
func parseOCRRef(ref string) (platform.Rect, string, bool) {
	box, text, ok := strings.Cut(strings.TrimPrefix(ref, ocrRefPrefix), ":")
	f := strings.Split(box, ",")
	if !ok || !isOCRRef(ref) || len(f) != 4 || strings.TrimSpace(text) == "" {
		return platform.Rect{}, "", false
	}
	var n [4]int
	for i, s := range f {
		v, err := strconv.Atoi(s)
		if err != nil {
			return platform.Rect{}, "", false
		}
		n[i] = v
	}
	if n[2] <= 0 || n[3] <= 0 {
		return platform.Rect{}, "", false
	}
	return platform.Rect{X: n[0], Y: n[1], Width: n[2], Height: n[3]}, text, true
}

// ocrNode is the pseudo-element for a match: showing, with bounds, and nothing an accessibility
// call could act on. OCR sees no states, so none but showing are claimed.
func ocrNode(m ocr.Match, r platform.Rect) *platform.Node {
	return &platform.Node{
		Ref: ocrRef(r, m.Text), Role: ocrRole, ControlType: "Text", Name: m.Text,
		Description: fmt.Sprintf("found by OCR (confidence %d), not in the accessibility tree: click it; invoke cannot act on it; states unknown", m.Confidence),
		Bounds:      &r,
		States:      platform.StateSet{"showing": true, "visible": true},
	}
}

// ocrRefusal is the error for an accessibility action on text found by OCR (nil for other
// elements): it has no object to act on, only a place to click.
func ocrRefusal(n *platform.Node, action platform.ElementAction) error {
	if n == nil || !isOCRRef(n.Ref) {
		return nil
	}
	at := ""
	if n.Bounds != nil {
		at = fmt.Sprintf(" at %d,%d %dx%d", n.Bounds.X, n.Bounds.Y, n.Bounds.Width, n.Bounds.Height)
	}
	return contract.Errorf(contract.CodePatternUnsupported,
		"%q%s was found by OCR and is no accessible object, so it cannot %s: click it instead (click at {screenText: %q} or at its ref)",
		n.Name, at, action, n.Name)
}

// ocrArea is what a screenText search read: the recognition, where its image lies on screen,
// and a phrase for details ("window 123 \"xterm\"", "the screen").
type ocrArea struct {
	res   ocr.Result
	m     screenMap
	what  string
	blank bool
}

// readArea captures the window (the whole screen when w is zero) and reads it. A blank image
// is not read: it has no text.
func readArea(ctx context.Context, d desktopReader, w *platform.Window, screen *platform.Rect) (ocrArea, error) {
	s := &pixelSource{d: d, handle: w.Handle}
	area := ocrArea{what: "the screen"}
	if w.Handle != 0 {
		info := windowInfo(*w)
		s.window = &info
		area.what = fmt.Sprintf("window %d %q", w.Handle, w.Title)
	} else if screen != nil {
		s.rect = *screen
		area.what = fmt.Sprintf("the screen at %d,%d %dx%d", screen.X, screen.Y, screen.Width, screen.Height)
	} else {
		ds, err := d.Displays(ctx)
		if err != nil {
			return area, platformError(err)
		}
		s.rect = ds.VirtualBounds
	}
	img, wc, err := s.grab(ctx)
	if err != nil {
		return area, err
	}
	defer framepool.Release(s.frame) // the PNG Tesseract reads is a copy
	if wc.Restored {
		// A minimized window was restored to read it: its bounds are where it is now.
		if w2, err := d.Window(ctx, w.Handle); err == nil {
			*w = w2
			info := windowInfo(w2)
			s.window = &info
		}
	}
	area.m = s.screenMap()
	if imaging.Blank(img).Blank {
		area.blank = true
		return area, nil
	}
	area.res, err = recognize(ctx, img, area.what)
	return area, err
}

// locateText resolves a screenText selector through OCR of the target window (the whole
// screen without one): every run of words that reads as the phrase is a candidate, in reading
// order, and index or uniqueness picks one as a pseudo-element.
func locateText(ctx context.Context, d desktopReader, target WindowTarget, sel *ElementSelector) (located, error) {
	var w platform.Window
	if !target.empty() {
		var err error
		if w, err = resolveWindow(ctx, d, target); err != nil {
			return located{}, err
		}
	}
	area, err := readArea(ctx, d, &w, nil)
	if err != nil {
		return located{window: w}, err
	}
	matches := area.res.Find(sel.ScreenText)
	l := located{window: w, searched: len(area.res.Words)}
	var pick *ocr.Match
	switch {
	case sel.Index != nil && *sel.Index < len(matches):
		pick = &matches[*sel.Index]
	case sel.Index == nil && len(matches) == 1:
		pick = &matches[0]
	case sel.Index == nil && len(matches) > 1:
		return l, ambiguousText(sel, area, matches)
	}
	if pick == nil {
		l.miss = describeTextMiss(sel, area, len(matches))
		return l, nil
	}
	l.node = ocrNode(*pick, area.m.rect(pick.Box))
	return l, nil
}

// ambiguousText is selector-matched-N listing where each candidate was read.
func ambiguousText(sel *ElementSelector, area ocrArea, ms []ocr.Match) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s was read %d times in %s (OCR); add index (0-%d, in reading order) or a longer phrase:", sel, len(ms), area.what, len(ms)-1)
	for i, m := range ms {
		if i == maxCandidates {
			fmt.Fprintf(&b, " …and %d more", len(ms)-maxCandidates)
			break
		}
		r := area.m.rect(m.Box)
		fmt.Fprintf(&b, " [%d %q at %d,%d %dx%d]", i, m.Text, r.X, r.Y, r.Width, r.Height)
	}
	return contract.Errorf(contract.SelectorMatched(len(ms)), "%s", b.String())
}

// closestShown bounds how many near readings a miss lists.
const closestShown = 5

// describeTextMiss says what OCR read instead: the nearest runs of words, so a misread ("5ave")
// or a different label is visible at once.
func describeTextMiss(sel *ElementSelector, area ocrArea, found int) string {
	switch {
	case area.blank:
		return fmt.Sprintf("no text matched %s: %s is blank (one colour), so OCR had nothing to read", sel, area.what)
	case found > 0:
		return fmt.Sprintf("%s: OCR read the text only %d times in %s (index counts from 0)", sel, found, area.what)
	case len(area.res.Words) == 0:
		return fmt.Sprintf("no text matched %s: OCR read no words in %s", sel, area.what)
	}
	var near []string
	for _, m := range area.res.Closest(sel.ScreenText, closestShown) {
		r := area.m.rect(m.Box)
		near = append(near, fmt.Sprintf("%q at %d,%d", m.Text, r.X, r.Y))
	}
	return fmt.Sprintf("no text matched %s among the %d words OCR read in %s; nearest: %s", sel, len(area.res.Words), area.what, strings.Join(near, ", "))
}

// locateOCRRef checks that an ocr: ref's text is still where it was read: the area around its
// box is read again, and the nearest reading of the text there is the element (with its box as
// read now). A target window, when given, is reported (and raised by click) but not searched.
func locateOCRRef(ctx context.Context, d desktopReader, target WindowTarget, sel *ElementSelector) (located, error) {
	box, text, ok := parseOCRRef(sel.Ref)
	if !ok {
		return located{}, contract.Errorf(contract.CodeBadArguments, "element.ref %q is not a ref from find: ocr refs read ocr:X,Y,W,H:TEXT", sel.Ref)
	}
	var (
		w   platform.Window
		err error
	)
	if !target.empty() {
		if w, err = resolveWindow(ctx, d, target); err != nil {
			return located{}, err
		}
	}
	ds, err := d.Displays(ctx)
	if err != nil {
		return located{window: w}, platformError(err)
	}
	// Room around the box for glyphs Tesseract boxed tightly and for text that moved a little.
	pad := max(box.Height, 8)
	r := intersect(platform.Rect{X: box.X - pad, Y: box.Y - pad, Width: box.Width + 2*pad, Height: box.Height + 2*pad}, ds.VirtualBounds)
	l := located{window: w}
	if r.Width <= 0 || r.Height <= 0 {
		l.miss = fmt.Sprintf("%s lies off the screen", sel)
		return l, nil
	}
	area, err := readArea(ctx, d, &platform.Window{}, &r)
	if err != nil {
		return l, err
	}
	ms := area.res.Find(text)
	if len(ms) == 0 {
		l.miss = fmt.Sprintf("%s does not match any more: OCR there reads %q", sel, strings.ReplaceAll(area.res.Text, "\n", " / "))
		return l, nil
	}
	best, bestD := 0, math.MaxInt
	for i, m := range ms {
		got := area.m.rect(m.Box)
		if dd := manhattan(got, box); dd < bestD {
			best, bestD = i, dd
		}
	}
	n := ocrNode(ms[best], area.m.rect(ms[best].Box))
	l.node = n
	return l, nil
}

// intersect is the overlap of two rectangles (empty when they do not meet).
func intersect(a, b platform.Rect) platform.Rect {
	r := image.Rect(a.X, a.Y, a.X+a.Width, a.Y+a.Height).Intersect(image.Rect(b.X, b.Y, b.X+b.Width, b.Y+b.Height))
	return platform.Rect{X: r.Min.X, Y: r.Min.Y, Width: r.Dx(), Height: r.Dy()}
}

// manhattan is how far apart two boxes' top left corners are.
func manhattan(a, b platform.Rect) int {
	dx, dy := a.X-b.X, a.Y-b.Y
	return max(dx, -dx) + max(dy, -dy)
}
