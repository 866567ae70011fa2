package imaging

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"image"
	"runtime"
	"sync"

	"github.com/klauspost/compress/flate"
)

// The capture path's own PNG writer. image/png tries all five row filters on every row whatever
// the compression level, and that search was a quarter of a capture's CPU; screenshots are opaque,
// so alpha is dead weight. This writer emits 8-bit RGB with one fixed filter per row, deflates
// with klauspost/compress at its fastest level, and compresses horizontal strips of the image in
// parallel (pigz style: each strip is a raw deflate stream ended by a sync flush, so their
// concatenation is one valid stream; the strips' Adler-32s are combined).

// PNG row filter types (PNG spec §9.2).
const (
	filterNone byte = 0
	filterSub  byte = 1
	filterUp   byte = 2
)

// pngOptions selects the writer's trade-offs; the package uses defaultPNG, tests vary it.
type pngOptions struct {
	filter byte
	level  int // klauspost/compress/flate level
	strips int // 0: one per CPU, fewer for small images
}

// defaultPNG was chosen on screenshots of gtk3-widget-factory (see BenchmarkEncodePNG and
// TestPNGFilterChoice): Up compresses UI pixels better than Sub at the same speed.
var defaultPNG = pngOptions{filter: filterUp, level: 1}

const (
	// minStripBytes keeps strips big enough that the deflate window restarting at each strip
	// boundary costs little and a goroutine is worth starting.
	minStripBytes = 256 << 10
	// batchBytes is how many filtered bytes are handed to the compressor at once.
	batchBytes = 64 << 10
	// maxChunk bounds one IDAT chunk (PNG limits a chunk to 2^31-1 bytes).
	maxChunk = 1 << 30
)

var pngSignature = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'}

// stripResult is one strip's compressed bytes and the Adler-32 of what went in.
type stripResult struct {
	buf    *bytes.Buffer
	adler  uint32
	n      int64 // filtered (uncompressed) bytes
	opaque bool
	err    error
}

var (
	bufPool   = sync.Pool{New: func() any { return new(bytes.Buffer) }}
	batchPool = sync.Pool{New: func() any { b := make([]byte, 0, batchBytes); return &b }}
	flatePool sync.Pool // *flateWriter
)

type flateWriter struct {
	level int
	w     *flate.Writer
}

func getFlate(level int, dst *bytes.Buffer) (*flateWriter, error) {
	if fw, ok := flatePool.Get().(*flateWriter); ok && fw.level == level {
		fw.w.Reset(dst)
		return fw, nil
	}
	w, err := flate.NewWriter(dst, level)
	if err != nil {
		return nil, err
	}
	return &flateWriter{level: level, w: w}, nil
}

// encodeOpaque writes img as an 8-bit RGB PNG. ok is false (and nothing is returned) when img has
// a pixel that is not fully opaque: RGB cannot hold it.
func encodeOpaque(img *image.RGBA, o pngOptions) (out []byte, ok bool, err error) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= 0 || h <= 0 || int64(w) > 1<<31-1 || int64(h) > 1<<31-1 {
		return nil, false, fmt.Errorf("png: invalid image size %dx%d", w, h)
	}
	rowBytes := 1 + 3*w
	strips := o.strips
	if strips <= 0 {
		strips = min(runtime.GOMAXPROCS(0), max(1, h*rowBytes/minStripBytes))
	}
	strips = max(1, min(strips, h))

	results := make([]stripResult, strips)
	var wg sync.WaitGroup
	for i := range strips {
		y0, y1 := b.Min.Y+h*i/strips, b.Min.Y+h*(i+1)/strips
		last := i == strips-1
		if last {
			results[i] = compressStrip(img, y0, y1, o, true)
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = compressStrip(img, y0, y1, o, false)
		}()
	}
	wg.Wait()
	defer func() {
		for _, r := range results {
			if r.buf != nil {
				r.buf.Reset()
				bufPool.Put(r.buf)
			}
		}
	}()

	size := len(pngSignature) + 25 + 12 + 2 + 4
	adler := uint32(1)
	for _, r := range results {
		if r.err != nil {
			return nil, false, r.err
		}
		if !r.opaque {
			return nil, false, nil
		}
		size += r.buf.Len() + 12
		adler = adler32Combine(adler, r.adler, r.n)
	}
	out = make([]byte, 0, size+12)
	out = append(out, pngSignature...)
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 2 // 8 bits per sample, truecolour; compression, filter, interlace 0
	out = appendChunk(out, "IHDR", ihdr[:])
	// zlib header: deflate with a 32 KiB window, "fastest" level hint; 0x7801 is a multiple of 31.
	out = appendChunk(out, "IDAT", []byte{0x78, 0x01})
	for _, r := range results {
		data := r.buf.Bytes()
		for len(data) > 0 {
			n := min(len(data), maxChunk)
			out = appendChunk(out, "IDAT", data[:n])
			data = data[n:]
		}
	}
	var sum [4]byte
	binary.BigEndian.PutUint32(sum[:], adler)
	out = appendChunk(out, "IDAT", sum[:])
	out = appendChunk(out, "IEND", nil)
	return out, true, nil
}

// appendChunk appends a PNG chunk: length, type, data, CRC-32 of type and data.
func appendChunk(out []byte, typ string, data []byte) []byte {
	out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
	start := len(out)
	out = append(out, typ...)
	out = append(out, data...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
}

// compressStrip filters rows [y0,y1) of img and deflates them into a pooled buffer, ending with
// a sync flush (or the final block when last) so strips concatenate into one deflate stream.
func compressStrip(img *image.RGBA, y0, y1 int, o pngOptions, last bool) stripResult {
	res := stripResult{buf: bufPool.Get().(*bytes.Buffer), adler: 1, opaque: true}
	w := img.Bounds().Dx()
	rowBytes := 1 + 3*w
	res.buf.Grow((y1 - y0) * rowBytes / 8)
	fw, err := getFlate(o.level, res.buf)
	if err != nil {
		res.err = err
		return res
	}
	defer flatePool.Put(fw)
	bp := batchPool.Get().(*[]byte)
	defer batchPool.Put(bp)
	batch := (*bp)[:0]
	alpha := byte(0xff)
	ad := adler32.New()
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		ad.Write(batch)
		res.n += int64(len(batch))
		_, err := fw.w.Write(batch)
		batch = batch[:0]
		return err
	}
	minY := img.Bounds().Min.Y
	for y := y0; y < y1; y++ {
		// +1: filterRow writes one byte past the row.
		if len(batch)+rowBytes+1 > cap(batch) {
			if err := flush(); err != nil {
				res.err = err
				return res
			}
			if rowBytes+1 > cap(batch) {
				batch = make([]byte, 0, rowBytes+1)
			}
		}
		n := len(batch)
		batch = batch[:n+rowBytes]
		row := batch[n : n+rowBytes+1]
		off := img.PixOffset(img.Bounds().Min.X, y)
		cur := img.Pix[off : off+4*w]
		var prev []byte
		if y > minY {
			prev = img.Pix[off-img.Stride : off-img.Stride+4*w]
		}
		alpha &= filterRow(row, cur, prev, o.filter)
	}
	if err := flush(); err != nil {
		res.err = err
		return res
	}
	*bp = batch[:0]
	res.opaque = alpha == 0xff
	res.adler = ad.Sum32()
	if last {
		res.err = fw.w.Close()
	} else {
		res.err = fw.w.Flush()
	}
	return res
}

// filterRow writes the filter byte and the filtered RGB samples of the RGBA row cur into dst,
// prev being the row above (nil for the first). dst holds 1+3w bytes and one spare byte after
// them: each pixel is stored as 4 bytes and the next overwrites the fourth (alpha), which is
// faster than three byte stores. It returns the AND of the alphas.
func filterRow(dst, cur, prev []byte, filter byte) byte {
	w := len(cur) / 4
	if w == 0 {
		dst[0] = filterNone
		return 0xff
	}
	if filter == filterUp && prev == nil {
		filter = filterNone // the row above the first is zero: Up is None
	}
	dst[0] = filter
	d := dst[1 : 1+3*w+1]
	acc := uint32(0xffffffff)
	le := binary.LittleEndian
	// The loops advance slices rather than index them, which lets the compiler drop bounds checks.
	switch filter {
	case filterUp:
		// Two pixels per step: 8 bytes in, 6 out (an 8-byte store whose last two bytes the
		// next step overwrites); the single-pixel loop below finishes the row.
		acc64 := uint64(0xffffffffffffffff)
		for len(cur) >= 8 && len(prev) >= 8 && len(d) >= 8 {
			v, p := le.Uint64(cur), le.Uint64(prev)
			acc64 &= v
			x := subBytes64(v, p)
			le.PutUint64(d, x&0xffffff|x>>8&0xffffff000000)
			cur, prev, d = cur[8:], prev[8:], d[6:]
		}
		acc &= uint32(acc64) & uint32(acc64>>32)
		for len(cur) >= 4 && len(prev) >= 4 && len(d) >= 4 {
			v, p := le.Uint32(cur), le.Uint32(prev)
			acc &= v
			le.PutUint32(d, subBytes(v, p))
			cur, prev, d = cur[4:], prev[4:], d[3:]
		}
	case filterSub:
		var left uint32
		for len(cur) >= 4 && len(d) >= 4 {
			v := le.Uint32(cur)
			acc &= v
			le.PutUint32(d, subBytes(v, left))
			left = v
			cur, d = cur[4:], d[3:]
		}
	default:
		for len(cur) >= 4 && len(d) >= 4 {
			v := le.Uint32(cur)
			acc &= v
			le.PutUint32(d, v)
			cur, d = cur[4:], d[3:]
		}
	}
	return byte(acc >> 24)
}

// subBytes subtracts each byte of b from the same byte of a, modulo 256, without borrows
// crossing bytes.
func subBytes(a, b uint32) uint32 {
	const h = 0x80808080
	return ((a | h) - (b &^ h)) ^ ((a ^ ^b) & h)
}

// subBytes64 is subBytes on eight bytes.
func subBytes64(a, b uint64) uint64 {
	const h = 0x8080808080808080
	return ((a | h) - (b &^ h)) ^ ((a ^ ^b) & h)
}

// adler32Combine returns the Adler-32 of A followed by B from adler32(A), adler32(B) and len(B)
// (zlib's adler32_combine).
func adler32Combine(a1, a2 uint32, len2 int64) uint32 {
	const base = 65521
	rem := uint32(len2 % base)
	sum1 := a1 & 0xffff
	sum2 := (rem * sum1) % base
	sum1 += (a2 & 0xffff) + base - 1
	sum2 += (a1 >> 16) + (a2 >> 16) + base - rem
	if sum1 >= base {
		sum1 -= base
	}
	if sum1 >= base {
		sum1 -= base
	}
	if sum2 >= base<<1 {
		sum2 -= base << 1
	}
	if sum2 >= base {
		sum2 -= base
	}
	return sum2<<16 | sum1
}
