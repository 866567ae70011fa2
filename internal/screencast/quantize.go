package screencast

import (
	"image"
	"image/color"
	"slices"
)

// Palette quantization for UI recordings.
//
// UI frames are mostly flat areas and anti-aliased text in a few hues. A fixed palette (Plan 9)
// shifts every background and text colour to its nearest entry, and Floyd–Steinberg dithering
// then sprinkles noise into flat areas and around glyphs, which is what makes text illegible.
// Instead each frame gets its own palette (a GIF local colour table):
//   - at most 256 distinct colours (common for UI): the exact colours, lossless;
//   - otherwise the 256 most populated cells of a 5-bit-per-channel histogram (popularity),
//     each entry the majority colour of its cell, and every pixel mapped to its nearest
//     entry without dithering, so flat areas stay flat and glyph edges stay sharp.
// docs/observation.md records the measurements behind this choice (TestQuantizeQuality).

// quantize maps img (origin anywhere) to a paletted image with its own palette.
func quantize(img *image.RGBA) *image.Paletted {
	b := img.Bounds()
	if pal, idx, ok := exactPalette(img); ok {
		out := image.NewPaletted(b, pal)
		i := 0
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := img.Pix[img.PixOffset(b.Min.X, y):]
			for x := 0; x < b.Dx(); x++ {
				out.Pix[i] = idx[rgbKey(row[x*4:])]
				i++
			}
		}
		return out
	}
	pal := popularityPalette(img)
	out := image.NewPaletted(b, pal)
	// Nearest entry per 5-bit cell, computed lazily: the cell's pixels are close to each other,
	// and the cache turns 256 comparisons per pixel into one lookup.
	var cache [1 << 15]int16
	for i := range cache {
		cache[i] = -1
	}
	i := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := img.Pix[img.PixOffset(b.Min.X, y):]
		for x := 0; x < b.Dx(); x++ {
			p := row[x*4:]
			cell := cellOf(p)
			e := cache[cell]
			if e < 0 {
				e = int16(nearest(pal, p[0], p[1], p[2]))
				cache[cell] = e
			}
			out.Pix[i] = uint8(e)
			i++
		}
	}
	return out
}

func rgbKey(p []uint8) uint32 { return uint32(p[0])<<16 | uint32(p[1])<<8 | uint32(p[2]) }

func cellOf(p []uint8) int { return int(p[0]>>3)<<10 | int(p[1]>>3)<<5 | int(p[2]>>3) }

// exactPalette returns the image's colours when there are at most 256 of them.
func exactPalette(img *image.RGBA) (color.Palette, map[uint32]uint8, bool) {
	b := img.Bounds()
	idx := make(map[uint32]uint8, 256)
	pal := make(color.Palette, 0, 256)
	last := uint32(1 << 31)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := img.Pix[img.PixOffset(b.Min.X, y):]
		for x := 0; x < b.Dx(); x++ {
			k := rgbKey(row[x*4:])
			if k == last {
				continue // runs of one colour are the norm in UI frames
			}
			last = k
			if _, ok := idx[k]; ok {
				continue
			}
			if len(pal) == 256 {
				return nil, nil, false
			}
			idx[k] = uint8(len(pal))
			pal = append(pal, color.RGBA{uint8(k >> 16), uint8(k >> 8), uint8(k), 0xff})
		}
	}
	if len(pal) == 0 {
		pal = append(pal, color.RGBA{A: 0xff})
	}
	return pal, idx, true
}

// popularityPalette returns one colour for each of the 256 most populated 5-bit cells, sampling
// at most about a million pixels. A cell's colour is its majority colour (Boyer–Moore vote), not
// its mean: a flat background keeps its exact value even when anti-aliased edges share its cell.
func popularityPalette(img *image.RGBA) color.Palette {
	type cellVote struct {
		n     int    // pixels in the cell
		cand  uint32 // majority candidate
		votes int
	}
	cells := make([]cellVote, 1<<15)
	b := img.Bounds()
	step := 1
	for b.Dx()*b.Dy()/(step*step) > 1<<20 {
		step++
	}
	for y := b.Min.Y; y < b.Max.Y; y += step {
		row := img.Pix[img.PixOffset(b.Min.X, y):]
		for x := 0; x < b.Dx(); x += step {
			p := row[x*4:]
			c := &cells[cellOf(p)]
			c.n++
			k := rgbKey(p)
			switch {
			case c.votes == 0:
				c.cand, c.votes = k, 1
			case c.cand == k:
				c.votes++
			default:
				c.votes--
			}
		}
	}
	order := make([]int, 0, 1024)
	for i, c := range cells {
		if c.n > 0 {
			order = append(order, i)
		}
	}
	slices.SortFunc(order, func(a, b int) int { return cells[b].n - cells[a].n })
	order = order[:min(256, len(order))]
	pal := make(color.Palette, len(order))
	for i, k := range order {
		c := cells[k].cand
		pal[i] = color.RGBA{uint8(c >> 16), uint8(c >> 8), uint8(c), 0xff}
	}
	return pal
}

// nearest returns the index of the palette entry closest to (r,g,b), weighting green most, as
// the eye does.
func nearest(pal color.Palette, r, g, b uint8) int {
	best, bestD := 0, int(^uint(0)>>1)
	for i, c := range pal {
		e := c.(color.RGBA)
		dr, dg, db := int(e.R)-int(r), int(e.G)-int(g), int(e.B)-int(b)
		d := 3*dr*dr + 4*dg*dg + 2*db*db
		if d < bestD {
			best, bestD = i, d
			if d == 0 {
				break
			}
		}
	}
	return best
}
