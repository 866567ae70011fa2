// Package imaging holds the pixel work behind observation tools: blank detection, downscaling
// and PNG encoding. It is pure computation on image.RGBA, with no desktop access.
package imaging

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"sync"
)

// Downscale returns img scaled so its width is at most maxWidth (0 = no limit) and by factor
// scale in (0,1] (0 = 1). It never upscales and keeps the aspect ratio. The filter is bilinear
// with proper support when shrinking, so UI text stays legible (x/image/draw's BiLinear, computed
// by downscaleRGBA). img may be a sub-image with a non-zero origin; the result starts at (0,0).
func Downscale(img *image.RGBA, maxWidth int, scale float64) *image.RGBA {
	b := img.Bounds()
	f := 1.0
	if scale > 0 && scale < 1 {
		f = scale
	}
	if maxWidth > 0 && float64(b.Dx())*f > float64(maxWidth) {
		f = float64(maxWidth) / float64(b.Dx())
	}
	if f >= 1 {
		return img
	}
	w := max(1, int(math.Round(float64(b.Dx())*f)))
	h := max(1, int(math.Round(float64(b.Dy())*f)))
	return downscaleRGBA(img, w, h)
}

// Crop returns the part of img inside r (in img's coordinates) as a view sharing img's pixels.
func Crop(img *image.RGBA, r image.Rectangle) *image.RGBA {
	return img.SubImage(r.Intersect(img.Bounds())).(*image.RGBA)
}

// encoderBuffers reuses the PNG encoder's large internal buffers across calls.
type encoderBuffers struct{ pool sync.Pool }

func (p *encoderBuffers) Get() *png.EncoderBuffer {
	b, _ := p.pool.Get().(*png.EncoderBuffer)
	return b
}

func (p *encoderBuffers) Put(b *png.EncoderBuffer) { p.pool.Put(b) }

var pngEncoder = png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: &encoderBuffers{}}

// EncodePNG encodes img as PNG, favouring speed: encoding, not grabbing, dominates the cost of a
// capture. An opaque image (every screenshot) goes through the package's own writer (8-bit RGB, one
// fixed filter, parallel fast deflate); one with transparency through image/png at BestSpeed.
func EncodePNG(img *image.RGBA) ([]byte, error) {
	if b, ok, err := encodeOpaque(img, defaultPNG); ok || err != nil {
		return b, err
	}
	var buf bytes.Buffer
	buf.Grow(img.Bounds().Dx() * img.Bounds().Dy() / 2)
	if err := pngEncoder.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
