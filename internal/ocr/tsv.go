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

// tsvRow is one field Tesseract read: its text, its box in the image it read, its confidence,
// and the key of its line (page/block/paragraph/line).
type tsvRow struct {
	text string
	box  image.Rectangle
	conf int
	line string
}

// parseTSV reads Tesseract's TSV output into lines and words (see assemble).
func parseTSV(s string, scale int) Result { return assemble(parseRows(s), scale) }

// parseRows reads the word rows of Tesseract's TSV output; the header, the page, block,
// paragraph and line rows, empty fields and malformed rows are skipped.
func parseRows(s string) []tsvRow {
	var rows []tsvRow
	for _, row := range strings.Split(s, "\n") {
		f := strings.Split(strings.TrimRight(row, "\r"), "\t")
		if len(f) < 12 {
			continue
		}
		level, err := strconv.Atoi(f[0])
		if err != nil || level != tsvLevelWord {
			continue
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
		if bad || n[2] < 0 || n[3] < 0 {
			continue
		}
		rows = append(rows, tsvRow{text: text, box: image.Rect(n[0], n[1], n[0]+n[2], n[1]+n[3]),
			conf: confidence(f[10]), line: strings.Join(f[1:5], "/")})
	}
	return rows
}

// assemble groups rows into lines and words. Coordinates are divided by scale (the upscale
// factor, 1 when none) with the box widened to whole pixels, so a word's box always covers its
// glyphs in the original image. As in the plain text, a line without a letter or digit is
// dropped (Tesseract reads edges, sliders and icons as runs of dashes and underscores), and
// Words lists only the fields that have one; the line's text keeps the rest.
func assemble(rows []tsvRow, scale int) Result {
	if scale < 1 {
		scale = 1
	}
	var (
		res     Result
		key     string
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
	for i, row := range rows {
		if i == 0 || row.line != key {
			flush()
			key = row.line
		}
		b := row.box
		r := image.Rect(floorDiv(b.Min.X, scale), floorDiv(b.Min.Y, scale), ceilDiv(b.Max.X, scale), ceilDiv(b.Max.Y, scale))
		texts = append(texts, row.text)
		box = box.Union(r)
		if isWord(row.text) {
			pending = append(pending, Word{Text: row.text, Box: r, Confidence: row.conf})
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

// floorDiv and ceilDiv round towards minus and plus infinity (boxes start at 0 or more, but a
// strip's offset must never round a box inwards).
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

func ceilDiv(a, b int) int { return -floorDiv(-a, b) }

// confidence rounds Tesseract's 0–100 float (-1 on rows that are not words).
func confidence(s string) int {
	c, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || c < 0 {
		return 0
	}
	return int(math.Min(100, math.Round(c)))
}
