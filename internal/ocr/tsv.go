package ocr

import (
	"image"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Word is one recognized word. Box is in the pixels of the image given to Recognize (an upscale
// is mapped back).
type Word struct {
	Text string
	Box  image.Rectangle
	// Confidence is Tesseract's, rounded to an integer 0–100.
	Confidence int
	// Line is the index of the word's line in Result.Lines.
	Line int
}

// Line is one recognized line: its words joined by spaces, and the union of their boxes.
type Line struct {
	Text string
	Box  image.Rectangle
}

// tsvLevelWord is the level column of a word row (1 page, 2 block, 3 paragraph, 4 line, 5 word).
const tsvLevelWord = 5

// parseTSV reads Tesseract's TSV output into lines and words. Coordinates are divided by scale
// (the upscale factor, 1 when none) with the box widened to whole pixels, so a word's box
// always covers its glyphs in the original image. As in the plain text, a line without a letter
// or digit is dropped (Tesseract reads edges, sliders and icons as runs of dashes and
// underscores), and Words lists only the fields that have one; the line's text keeps the rest.
func parseTSV(s string, scale int) Result {
	if scale < 1 {
		scale = 1
	}
	var (
		res     Result
		key     string // page/block/paragraph/line of the line being gathered
		texts   []string
		box     image.Rectangle
		pending []Word
	)
	flush := func() {
		if len(pending) > 0 {
			for i := range pending {
				pending[i].Line = len(res.Lines)
			}
			res.Lines = append(res.Lines, Line{Text: strings.Join(texts, " "), Box: box})
			res.Words = append(res.Words, pending...)
		}
		texts, box, pending = nil, image.Rectangle{}, nil
	}
	for _, row := range strings.Split(s, "\n") {
		f := strings.Split(strings.TrimRight(row, "\r"), "\t")
		if len(f) < 12 {
			continue
		}
		level, err := strconv.Atoi(f[0])
		if err != nil || level != tsvLevelWord {
			continue // the header, and the page, block, paragraph and line rows
		}
		text := strings.TrimSpace(f[11])
		if text == "" {
			continue
		}
		var n [4]int
		bad := false
		for i := range n {
			if n[i], err = strconv.Atoi(f[6+i]); err != nil {
				bad = true
			}
		}
		if bad {
			continue
		}
		if k := strings.Join(f[1:5], "/"); k != key {
			flush()
			key = k
		}
		r := image.Rect(n[0]/scale, n[1]/scale, ceilDiv(n[0]+n[2], scale), ceilDiv(n[1]+n[3], scale))
		texts = append(texts, text)
		box = box.Union(r)
		if isWord(text) {
			pending = append(pending, Word{Text: text, Box: r, Confidence: confidence(f[10])})
		}
	}
	flush()
	lines := make([]string, len(res.Lines))
	for i, l := range res.Lines {
		lines[i] = l.Text
	}
	res.Text, res.LineCount, res.WordCount = strings.Join(lines, "\n"), len(res.Lines), len(res.Words)
	return res
}

// isWord reports a field with a letter or digit.
func isWord(f string) bool {
	return strings.IndexFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// confidence rounds Tesseract's 0–100 float (-1 on rows that are not words).
func confidence(s string) int {
	c, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || c < 0 {
		return 0
	}
	return int(math.Min(100, math.Round(c)))
}
