package ocr

import (
	"image"
	"slices"
	"unicode"
)

// The plain pass. The main read (2x upscale, sparse text) drops some plain button labels that
// Tesseract reads from the same pixels with its own defaults (original size, automatic page
// segmentation):
//
//   - a label in a dark frame (Tk's focus ring, a 1 px black rectangle round the button that
//     has the focus): Tesseract's line finder runs before it estimates the resolution, so on a
//     PNG that gives none its limits are those of 70 dpi. At original size it removes the ring
//     as lines and reads the label; at 2x the ring is thicker and is kept, and the label inside
//     it is not read. (Its page segmentation debug images show the ring gone at 1x and at 2x
//     with --dpi 140, kept at 2x without; erasing the ring from the grab brings the label back.)
//   - a light label on a dark button (a dark theme) with its light bevel along the label's top
//     and left: sparse text drops the row as noise at either size (with -c
//     textord_noise_rejrows=0 it reads it); automatic page segmentation reads it.
//
// So an upscaled read also runs Tesseract with its defaults on the original image, at once (it
// has a quarter of the pixels), and adds the words it read where the main read found none (or
// only unsure ones). Cost, on a 2-core machine: a dialog (340x171) 183 -> 190 ms, the spare core
// reads it; a whole 1280x800 screen 0.77 -> 0.99 s and the widget factory (1275x725) 0.82 ->
// 1.16 s, where the two strips already hold both cores.

// plainPSM is Tesseract's default page segmentation mode (fully automatic, no OSD).
const plainPSM = 3

// A word only the plain pass read is added when Tesseract is at least this sure of it, is at
// least this tall in the original image, and has at least this many letters or digits. Measured
// on Tk and GTK dialogs, the GTK widget factory, the icon browser and galculator: the labels
// the main read missed came at 91-97 and 9 px or taller; what the plain pass read that was no
// text (an icon read as "Q", specks read as "to change mo" 3-7 px high, "BE" at 65) did not pass.
const (
	plainMinConfidence = 80
	plainMinHeight     = 8
	plainMinRunes      = 2
)

// plainReplaceBelow: where the main read has words, a plain word is added only if they are all
// less sure than this, and they are dropped for it (Tk's default ring round an 8 pt "Close":
// the main read made "Gose" of the ring and the label at 42, the plain pass "Close" at 91).
const plainReplaceBelow = 50

// addPlain adds to rows (the main read's fields, in the coordinates of the image it read, which
// is the original scaled by scale) the words of the plain pass (plain, in the original's
// coordinates) that pass the limits above and overlap no word of the main read, or only
// unsure ones (plainReplaceBelow), which it drops. They keep the plain pass's lines, which go in
// before the first line of rows whose middle lies lower, so the text reads top to bottom as
// before.
func addPlain(rows, plain []tsvRow, scale int) []tsvRow {
	drop := make([]bool, len(rows))
	var extra []tsvRow
	for _, r := range plain {
		if r.conf < plainMinConfidence || r.box.Dy() < plainMinHeight || alnum(r.text) < plainMinRunes {
			continue
		}
		r.box = image.Rectangle{Min: r.box.Min.Mul(scale), Max: r.box.Max.Mul(scale)}
		var under []int
		sure := false
		for i, m := range rows {
			if isWord(m.text) && m.box.Overlaps(r.box) {
				under = append(under, i)
				sure = sure || m.conf >= plainReplaceBelow
			}
		}
		if sure {
			continue
		}
		for _, i := range under {
			drop[i] = true
		}
		r.line = "plain/" + r.line
		extra = append(extra, r)
	}
	if len(extra) == 0 {
		return rows
	}
	var kept []tsvRow
	for i, r := range rows {
		if !drop[i] {
			kept = append(kept, r)
		}
	}
	have, add := lineGroups(kept), lineGroups(extra)
	before := make([][][]tsvRow, len(have)+1) // before[i]: the added lines that go before have[i]
	for _, g := range add {
		i := slices.IndexFunc(have, func(h []tsvRow) bool { return middle(h) > middle(g) })
		if i < 0 {
			i = len(have)
		}
		before[i] = append(before[i], g)
	}
	out := make([]tsvRow, 0, len(kept)+len(extra))
	for i := range before {
		for _, g := range before[i] {
			out = append(out, g...)
		}
		if i < len(have) {
			out = append(out, have[i]...)
		}
	}
	return out
}

// lineGroups splits rows into runs of one line.
func lineGroups(rows []tsvRow) [][]tsvRow {
	var out [][]tsvRow
	for i, r := range rows {
		if i == 0 || r.line != rows[i-1].line {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], r)
	}
	return out
}

// middle is twice the vertical centre of a line's fields.
func middle(line []tsvRow) int {
	var b image.Rectangle
	for _, r := range line {
		b = b.Union(r.box)
	}
	return b.Min.Y + b.Max.Y
}

// alnum counts the letters and digits in s.
func alnum(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}
