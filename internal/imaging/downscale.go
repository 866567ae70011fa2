package imaging

import (
	"encoding/binary"
	"image"
	"math"
	"runtime"
	"sync"
)

// A specialised shrinker for *image.RGBA. It computes what golang.org/x/image/draw's BiLinear
// kernel computes (a separable tent filter whose support widens by 1/scale when shrinking, pixel
// centres at +0.5, taps outside the source dropped and the rest renormalised, premultiplied alpha,
// the same 16-bit-then-truncate quantisation) but with fixed-point weights precomputed per column
// and per row: x/image's generic kernel scaler works in float64 and was twice the cost of a whole
// capture. The horizontal pass fills a small ring of filtered rows, the vertical pass combines
// them, and horizontal strips of the output run on separate CPUs.

const (
	// hBits and vBits are the fixed-point precisions of the horizontal and vertical weights. The
	// weights of one output pixel are non-negative and sum to exactly 1<<bits, so the sums cannot
	// overflow: 255<<hBits and (255<<8)<<vBits both fit in a uint32.
	hBits = 16
	vBits = 15
	// tmpFrac is the fractional bits kept in the intermediate rows (8.8 fixed point in a uint16).
	tmpFrac = 8
	// minParallelPixels is the source size below which one goroutine does all the work.
	minParallelPixels = 256 << 10
)

// taps are the source pixels and fixed-point weights behind each output column or row.
type taps struct {
	first   []int32  // first source index of output i
	start   []int32  // index into weights of output i's first weight
	weights []uint32 // output i's weights: weights[start[i]:start[i+1]]
	maxN    int      // most weights of any output
}

// fixed returns the taps padded with zero weights to maxN per output (first moved left where the
// padding would run past sn), so the horizontal loop has a constant trip count: weights[i*maxN:].
func (t *taps) fixed(sn int) taps {
	k := t.maxN
	f := taps{first: make([]int32, len(t.first)), weights: make([]uint32, k*len(t.first)), maxN: k}
	for i, first := range t.first {
		ws := t.weights[t.start[i]:t.start[i+1]]
		pad := max(0, int(first)+k-sn)
		f.first[i] = first - int32(pad)
		copy(f.weights[i*k+pad:], ws)
	}
	return f
}

// newTaps mirrors x/image/draw's newDistrib for the BiLinear kernel (support 1, tent 1-t) and
// rounds the weights to bits of fixed point. Rounding the cumulative sums, not each weight, keeps
// the total exact (flat areas stay flat) and the error of any prefix below half a unit.
func newTaps(dn, sn, bits int) taps {
	scale := float64(sn) / float64(dn)
	halfWidth, argScale := 1.0, 1.0
	if scale > 1 {
		halfWidth *= scale
		argScale = 1 / scale
	}
	t := taps{first: make([]int32, dn), start: make([]int32, dn+1)}
	var ws []float64
	one := float64(int(1) << bits)
	for x := range dn {
		center := (float64(x)+0.5)*scale - 0.5
		lo := max(0, int(math.Floor(center-halfWidth)))
		hi := min(sn, int(math.Ceil(center+halfWidth)))
		ws = ws[:0]
		first, total := -1, 0.0
		for c := lo; c < hi; c++ {
			d := math.Abs((center - float64(c)) * argScale)
			if d >= 1 {
				if first >= 0 {
					ws = append(ws, 0) // keeps the run contiguous (x/image skips zero weights)
				}
				continue
			}
			if first < 0 {
				first = c
			}
			ws = append(ws, 1-d)
			total += 1 - d
		}
		for len(ws) > 0 && ws[len(ws)-1] == 0 {
			ws = ws[:len(ws)-1]
		}
		if first < 0 { // cannot happen for sn ≥ 1, but never divide by zero
			first, ws, total = min(max(0, int(math.Round(center))), sn-1), append(ws, 1), 1
		}
		t.first[x] = int32(first)
		t.start[x] = int32(len(t.weights))
		cum, prev := 0.0, uint32(0)
		for _, w := range ws {
			cum += w
			q := uint32(math.Round(cum / total * one))
			t.weights = append(t.weights, q-prev)
			prev = q
		}
		t.maxN = max(t.maxN, len(ws))
	}
	t.start[dn] = int32(len(t.weights))
	return t
}

// downscaleRGBA filters all of src into a new w×h image (w, h at most src's size, both ≥ 1).
func downscaleRGBA(src *image.RGBA, w, h int) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	sb := src.Bounds()
	sw, sh := sb.Dx(), sb.Dy()
	if sw <= 0 || sh <= 0 {
		return dst // x/image draws nothing from an empty source either
	}
	hv, vt := newTaps(w, sw, hBits), newTaps(h, sh, vBits)
	hz := hv.fixed(sw)
	strips := 1
	if sw*sh >= minParallelPixels {
		strips = min(runtime.GOMAXPROCS(0), h)
	}
	var wg sync.WaitGroup
	for i := range strips {
		y0, y1 := h*i/strips, h*(i+1)/strips
		if i == strips-1 {
			downscaleRows(dst, src, &hz, &vt, y0, y1)
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			downscaleRows(dst, src, &hz, &vt, y0, y1)
		}()
	}
	wg.Wait()
	return dst
}

// scratch is one worker's ring of horizontally filtered rows and its accumulator row. Both hold
// two channels per uint64, in 32-bit lanes (red and blue, green and alpha), so one multiply
// serves two channels: no lane can carry into the next (see hBits, vBits).
type scratch struct {
	ring   []uint64
	acc    []uint64
	spread []uint64
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

const (
	lanes    = 1 | 1<<32
	laneMask = 0xffffffff
)

// downscaleRows produces output rows [y0, y1). The source rows an output row needs start at a
// row that never decreases with y, so a ring of vt.maxN filtered rows holds all of them: the row
// a new one overwrites is one no later output row reads.
func downscaleRows(dst, src *image.RGBA, hz, vt *taps, y0, y1 int) {
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	w := dst.Rect.Dx()
	rowLen := 2 * w
	size := vt.maxN
	if cap(s.ring) < size*rowLen {
		s.ring = make([]uint64, size*rowLen)
	}
	if cap(s.acc) < rowLen {
		s.acc = make([]uint64, rowLen)
	}
	sb := src.Rect
	if cap(s.spread) < 2*sb.Dx() {
		s.spread = make([]uint64, 2*sb.Dx())
	}
	ring, acc := s.ring[:size*rowLen], s.acc[:rowLen]
	next := int(vt.first[y0]) // next source row to filter horizontally
	for y := y0; y < y1; y++ {
		first := int(vt.first[y])
		ws := vt.weights[vt.start[y]:vt.start[y+1]]
		next = max(next, first)
		for ; next < first+len(ws); next++ {
			slot := next % size
			o := src.PixOffset(sb.Min.X, sb.Min.Y+next)
			shrinkRow(ring[slot*rowLen:(slot+1)*rowLen], s.spread, src.Pix[o:o+4*sb.Dx()], hz)
		}
		// Taps go four at a time (missing ones weigh 0), the last four straight into the output,
		// so the common case (≤ 4 taps: factors ≥ 0.5) never touches acc.
		var rows [4][]uint64
		var wv [4]uint64
		started := false
		for k := 0; k < len(ws); k += 4 {
			for j := range 4 {
				kk := k + j
				if kk >= len(ws) {
					rows[j], wv[j] = rows[0], 0
					continue
				}
				slot := (first + kk) % size
				rows[j], wv[j] = ring[slot*rowLen:(slot+1)*rowLen], uint64(ws[kk])
			}
			if k+4 >= len(ws) {
				in := acc
				if !started {
					in = nil
				}
				o := dst.PixOffset(0, y)
				storeRow(dst.Pix[o:o+4*w], in, &rows, &wv)
				break
			}
			accumulate(acc, !started, &rows, &wv)
			started = true
		}
	}
}

// accumulate adds (or, when first, stores) the weighted sum of four filtered rows into acc.
func accumulate(acc []uint64, first bool, rows *[4][]uint64, wv *[4]uint64) {
	r0, r1, r2, r3 := rows[0][:len(acc)], rows[1][:len(acc)], rows[2][:len(acc)], rows[3][:len(acc)]
	w0, w1, w2, w3 := wv[0], wv[1], wv[2], wv[3]
	if first {
		for i := range acc {
			acc[i] = r0[i]*w0 + r1[i]*w1 + r2[i]*w2 + r3[i]*w3
		}
		return
	}
	for i := range acc {
		acc[i] += r0[i]*w0 + r1[i]*w1 + r2[i]*w2 + r3[i]*w3
	}
}

// shrinkRow filters one source row horizontally into out: per output pixel, red|blue<<32 and
// green|alpha<<32, each channel premultiplied 8.8 fixed point. The row is first spread into that
// lane layout once per source pixel (spread, len ≥ 2*pixels), as each pixel feeds several taps.
func shrinkRow(out, spread []uint64, row []uint8, hz *taps) {
	spread = spread[:len(row)/2]
	i := 0
	for ; i+8 <= len(row); i += 8 { // two pixels per load
		v := binary.LittleEndian.Uint64(row[i:])
		d := spread[i/2 : i/2+4 : i/2+4]
		d[0] = v&0xff | v&0xff0000<<16
		d[1] = v>>8&0xff | v>>24&0xff<<32
		d[2] = v>>32&0xff | v>>48&0xff<<32
		d[3] = v>>40&0xff | v>>56<<32
	}
	if i+4 <= len(row) {
		v := uint64(binary.LittleEndian.Uint32(row[i:]))
		d := spread[i/2 : i/2+2 : i/2+2]
		d[0] = v&0xff | v&0xff0000<<16
		d[1] = v>>8&0xff | v>>24<<32
	}
	const shift = hBits - tmpFrac
	const half = lanes << (shift - 1)
	const mask = 0xffff * lanes
	w := len(out) / 2
	k := hz.maxN
	firsts, wts := hz.first[:w], hz.weights[:k*w]
	switch k {
	case 3:
		for x, f := range firsts {
			p := spread[2*int(f) : 2*int(f)+6 : 2*int(f)+6]
			q := wts[3*x : 3*x+3 : 3*x+3]
			w0, w1, w2 := uint64(q[0]), uint64(q[1]), uint64(q[2])
			d := out[2*x : 2*x+2 : 2*x+2]
			d[0] = (p[0]*w0 + p[2]*w1 + p[4]*w2 + half) >> shift & mask
			d[1] = (p[1]*w0 + p[3]*w1 + p[5]*w2 + half) >> shift & mask
		}
	case 4:
		for x, f := range firsts {
			p := spread[2*int(f) : 2*int(f)+8 : 2*int(f)+8]
			q := wts[4*x : 4*x+4 : 4*x+4]
			w0, w1, w2, w3 := uint64(q[0]), uint64(q[1]), uint64(q[2]), uint64(q[3])
			d := out[2*x : 2*x+2 : 2*x+2]
			d[0] = (p[0]*w0 + p[2]*w1 + p[4]*w2 + p[6]*w3 + half) >> shift & mask
			d[1] = (p[1]*w0 + p[3]*w1 + p[5]*w2 + p[7]*w3 + half) >> shift & mask
		}
	default:
		for x, f := range firsts {
			p := spread[2*int(f) : 2*int(f)+2*k]
			var rb, ga uint64
			for j, wt := range wts[k*x : k*x+k] {
				q := p[2*j : 2*j+2 : 2*j+2]
				rb += q[0] * uint64(wt)
				ga += q[1] * uint64(wt)
			}
			d := out[2*x : 2*x+2 : 2*x+2]
			d[0] = (rb + half) >> shift & mask
			d[1] = (ga + half) >> shift & mask
		}
	}
}

// storeRow finishes an output row: acc (nil when empty) plus the weighted sum of four filtered
// rows gives 8-bit values with tmpFrac+vBits fractional bits, converted to 8-bit channels the way
// x/image does: colour clamped to alpha (premultiplied), rounded to 16 bits, truncated to 8.
func storeRow(out []uint8, acc []uint64, rows *[4][]uint64, wv *[4]uint64) {
	n := len(out) / 2
	r0, r1, r2, r3 := rows[0][:n], rows[1][:n], rows[2][:n], rows[3][:n]
	w0, w1, w2, w3 := wv[0], wv[1], wv[2], wv[3]
	if acc != nil {
		acc = acc[:n]
	}
	for x := 0; x+1 < n; x += 2 {
		rb := r0[x]*w0 + r1[x]*w1 + r2[x]*w2 + r3[x]*w3
		ga := r0[x+1]*w0 + r1[x+1]*w1 + r2[x+1]*w2 + r3[x+1]*w3
		if acc != nil {
			rb += acc[x]
			ga += acc[x+1]
		}
		a := ga >> 32
		d := out[2*x : 2*x+4 : 2*x+4]
		d[0] = to8(min(rb&laneMask, a))
		d[1] = to8(min(ga&laneMask, a))
		d[2] = to8(min(rb>>32, a))
		d[3] = to8(a)
	}
}

// to8 is x/image's ftou then >>8 on a value with tmpFrac+vBits fractional bits: round(v*257) to
// 16 bits, keep the top 8 (the two shifts fold into one; v ≤ 255<<23 cannot exceed 0xffff).
func to8(v uint64) uint8 {
	const shift = tmpFrac + vBits
	return uint8((v*0x101 + 1<<(shift-1)) >> (shift + 8))
}
