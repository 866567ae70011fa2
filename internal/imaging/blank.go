package imaging

import (
	"encoding/binary"
	"image"
	"math"
	"sync"
)

// BlankCheck is the result of Blank, as capture results report it.
type BlankCheck struct {
	Blank            bool    `json:"blank"`
	DominantFraction float64 `json:"dominantFraction"`
	DominantIsDark   bool    `json:"dominantIsDark"`
}

const (
	// blankBudget is about how many pixels Blank reads; frames of more than blankMaxRowStep
	// times as many read every blankMaxRowStep-th row.
	blankBudget = 1 << 18
	// blankMaxRowStep is the widest gap between the rows read: a band of ink 4 rows tall (the
	// x-height of the smallest legible font, so any line of text) is crossed by at least one.
	// Rows are read whole: skipping columns would miss the 1-pixel stems a row crossing a
	// glyph mostly meets.
	blankMaxRowStep = 4
	// BlankNoise is how many sampled pixels may differ from the dominant colour in a blank frame:
	// a caret or a speck is not content, while one short word crossed by one row already differs
	// in more pixels.
	BlankNoise = 4
	// darkMax is the highest 8-bit channel value a dark dominant colour may have.
	darkMax = 40
)

// histograms are reusable colour counts (5 bits per channel), zeroed between uses.
var histograms = sync.Pool{New: func() any { return new([1 << 15]uint32) }}

// Blank reads whole rows of img (every row of a small frame, every fourth of a large one),
// quantizes each pixel to 5 bits per channel and counts colours. The frame is blank when at most
// BlankNoise of the pixels read differ from the most common colour: only a truly uniform frame
// is blank, whereas a terminal showing a line of text (99.9 % one colour) is not.
// DominantFraction is that colour's share of the pixels read, rounded down to four decimals so
// that it is 1 only when no pixel differs; the colour is dark when every channel of it is at
// most 40 of 255.
func Blank(img *image.RGBA) BlankCheck {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= 0 || h <= 0 {
		return BlankCheck{Blank: true, DominantFraction: 1, DominantIsDark: true}
	}
	sy := min(blankMaxRowStep, max(1, (w*h+blankBudget-1)/blankBudget))
	counts := histograms.Get().(*[1 << 15]uint32)
	defer func() {
		clear(counts[:])
		histograms.Put(counts)
	}()
	var (
		total, best uint32
		dominant    uint32
	)
	// Pixels are compared as masked little-endian words (R, G, B, A in bytes 0-3), several at a
	// time, and a run of equal ones is counted once.
	const (
		mask  = 0x00f8f8f8
		twice = 1<<32 + 1 // a word times twice fills both halves of a uint64
	)
	add := func(px, n uint32) {
		k := px>>3&0x1f<<10 | px>>11&0x1f<<5 | px>>19&0x1f
		c := counts[k] + n
		counts[k] = c
		total += n
		if c > best || (c == best && k < dominant) {
			best, dominant = c, k
		}
	}
	for y := b.Min.Y; y < b.Max.Y; y += sy {
		o := img.PixOffset(b.Min.X, y)
		row := img.Pix[o : o+4*w : o+4*w]
		run, n := binary.LittleEndian.Uint32(row)&mask, uint32(0)
		pair := uint64(run) * twice
		for len(row) >= 8 {
			// Uniform stretches four pixels at a time: most of a frame, even one full of text.
			if len(row) >= 16 && binary.LittleEndian.Uint64(row)&(mask*twice) == pair &&
				binary.LittleEndian.Uint64(row[8:])&(mask*twice) == pair {
				n += 4
				row = row[16:]
				continue
			}
			v := binary.LittleEndian.Uint64(row) & (mask * twice)
			row = row[8:]
			if v == pair {
				n += 2
				continue
			}
			for _, px := range [2]uint32{uint32(v), uint32(v >> 32)} {
				if px != run {
					add(run, n)
					run, n = px, 0
				}
				n++
			}
			pair = uint64(run) * twice
		}
		if len(row) >= 4 {
			if px := binary.LittleEndian.Uint32(row) & mask; px != run {
				add(run, n)
				run, n = px, 0
			}
			n++
		}
		add(run, n)
	}
	share := float64(best) / float64(total)
	r, g, bl := dominant>>10&31, dominant>>5&31, dominant&31
	return BlankCheck{
		Blank:            total-best <= BlankNoise,
		DominantFraction: math.Floor(share*10000) / 10000,
		DominantIsDark:   max(r, g, bl)<<3 <= darkMax,
	}
}
