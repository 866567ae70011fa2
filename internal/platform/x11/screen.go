package x11

import (
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"math/bits"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// screen is what the connection setup says about the default screen. It never changes after
// Dial (only the root size can, and that is tracked separately).
type screen struct {
	root      xproto.Window
	widthPx   uint16
	heightPx  uint16
	widthMM   uint16
	rootDepth byte
	rootVis   xproto.Visualid
	msbFirst  bool                                  // image byte order
	formats   map[byte]xproto.Format                // ZPixmap layout per depth
	visuals   map[xproto.Visualid]xproto.VisualInfo // every visual of the screen
	rootFmt   pixelFormat
}

func (s *screen) load(xc *xgb.Conn) error {
	setup := xproto.Setup(xc)
	if setup == nil || len(setup.Roots) == 0 {
		return errors.New("connection setup lists no screens")
	}
	n := xc.DefaultScreen
	if n < 0 || n >= len(setup.Roots) {
		n = 0
	}
	si := setup.Roots[n]
	s.root = si.Root
	s.widthPx, s.heightPx, s.widthMM = si.WidthInPixels, si.HeightInPixels, si.WidthInMillimeters
	s.rootDepth, s.rootVis = si.RootDepth, si.RootVisual
	s.msbFirst = setup.ImageByteOrder == xproto.ImageOrderMSBFirst
	s.formats = map[byte]xproto.Format{}
	for _, f := range setup.PixmapFormats {
		s.formats[f.Depth] = f
	}
	s.visuals = map[xproto.Visualid]xproto.VisualInfo{}
	for _, d := range si.AllowedDepths {
		for _, v := range d.Visuals {
			s.visuals[v.VisualId] = v
		}
	}
	f, err := s.pixelFormat(s.rootDepth, s.rootVis)
	if err != nil {
		return fmt.Errorf("root window: %w", err)
	}
	s.rootFmt = f
	return nil
}

// pixelFormat describes how the server lays out a ZPixmap image of a drawable with this depth
// and visual.
func (s *screen) pixelFormat(depth byte, visual xproto.Visualid) (pixelFormat, error) {
	f, ok := s.formats[depth]
	if !ok {
		return pixelFormat{}, fmt.Errorf("no pixmap format for depth %d", depth)
	}
	v, ok := s.visuals[visual]
	if !ok {
		return pixelFormat{}, fmt.Errorf("unknown visual 0x%x", visual)
	}
	if v.Class != xproto.VisualClassTrueColor && v.Class != xproto.VisualClassDirectColor {
		return pixelFormat{}, fmt.Errorf("visual 0x%x is not TrueColor (class %d): colormapped pixels are not supported", visual, v.Class)
	}
	pf := pixelFormat{
		bpp:      int(f.BitsPerPixel),
		pad:      int(f.ScanlinePad),
		msbFirst: s.msbFirst,
		r:        newChannel(v.RedMask),
		g:        newChannel(v.GreenMask),
		b:        newChannel(v.BlueMask),
	}
	switch pf.bpp {
	case 8, 16, 24, 32:
	default:
		return pixelFormat{}, fmt.Errorf("unsupported %d bits per pixel", pf.bpp)
	}
	if pf.pad == 0 || pf.pad%8 != 0 {
		return pixelFormat{}, fmt.Errorf("unsupported scanline pad %d", pf.pad)
	}
	pf.fast = pf.bpp == 32 && !pf.msbFirst &&
		v.RedMask == 0xff0000 && v.GreenMask == 0xff00 && v.BlueMask == 0xff
	return pf, nil
}

// pixelFormat is one ZPixmap layout. Xvfb and nearly every desktop use the fast one: depth 24
// or 32 in 32-bit little-endian words, blue in the low byte (BGRX in memory).
type pixelFormat struct {
	bpp, pad int // bits per pixel; scanline pad in bits
	msbFirst bool
	r, g, b  channel
	fast     bool
}

// stride is the byte length of one image row of width w.
func (f pixelFormat) stride(w int) int {
	return (w*f.bpp + f.pad - 1) / f.pad * f.pad / 8
}

// convert writes rows of src (ZPixmap, stride f.stride(w)) into dst starting at row y, opaque.
func (f pixelFormat) convert(dst *image.RGBA, y int, src []byte, w, rows int) {
	stride := f.stride(w)
	for row := 0; row < rows; row++ {
		in := src[row*stride : row*stride+stride]
		out := dst.Pix[(y+row)*dst.Stride : (y+row)*dst.Stride+4*w]
		if f.fast {
			// BGRX to RGBA, two pixels in a 64-bit word at a time (the shifts never carry
			// across pixels); advancing the slices lets the compiler drop bounds checks. This
			// loop is most of a full-screen grab's cost.
			o, i := out, in
			for ; len(o) >= 8 && len(i) >= 8; o, i = o[8:], i[8:] {
				v := binary.LittleEndian.Uint64(i)
				binary.LittleEndian.PutUint64(o, v>>16&0x000000ff000000ff|v&0x0000ff000000ff00|
					v&0x000000ff000000ff<<16|0xff000000ff000000)
			}
			if len(o) >= 4 && len(i) >= 4 {
				v := binary.LittleEndian.Uint32(i)
				binary.LittleEndian.PutUint32(o, v>>16&0xff|v&0xff00|v&0xff<<16|0xff000000)
			}
			continue
		}
		bytesPP := f.bpp / 8
		for i := 0; i < w; i++ {
			var v uint32
			p := in[i*bytesPP : i*bytesPP+bytesPP]
			if f.msbFirst {
				for _, b := range p {
					v = v<<8 | uint32(b)
				}
			} else {
				for k := len(p) - 1; k >= 0; k-- {
					v = v<<8 | uint32(p[k])
				}
			}
			out[4*i] = f.r.get(v)
			out[4*i+1] = f.g.get(v)
			out[4*i+2] = f.b.get(v)
			out[4*i+3] = 0xff
		}
	}
}

// channel extracts one colour from a pixel value through its visual mask.
type channel struct {
	mask  uint32
	shift int
	bits  int
}

func newChannel(mask uint32) channel {
	if mask == 0 {
		return channel{}
	}
	return channel{mask: mask, shift: bits.TrailingZeros32(mask), bits: bits.OnesCount32(mask)}
}

// get scales the channel to 8 bits.
func (c channel) get(v uint32) byte {
	if c.bits == 0 {
		return 0
	}
	x := (v & c.mask) >> c.shift
	switch {
	case c.bits == 8:
		return byte(x)
	case c.bits > 8:
		return byte(x >> (c.bits - 8))
	default:
		return byte(x * 255 / (1<<c.bits - 1))
	}
}
