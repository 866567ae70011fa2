package kwin

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"os"
	"strings"

	"github.com/godbus/dbus/v5"
)

const (
	screenshotPath = "/org/kde/KWin/ScreenShot2"
	screenshotIfc  = "org.kde.KWin.ScreenShot2"
)

// ErrNotAuthorized says KWin refused a screenshot: the caller's executable is not named by a
// desktop file that lists org.kde.KWin.ScreenShot2 in X-KDE-DBUS-Restricted-Interfaces (and
// KWin was not started with KWIN_SCREENSHOT_NO_PERMISSION_CHECKS=1).
var ErrNotAuthorized = errors.New("KWin refused the screenshot: mcec is not authorized for org.kde.KWin.ScreenShot2")

// QImage formats KWin writes (QImage::Format).
const (
	qimageRGB32                 = 4
	qimageARGB32                = 5
	qimageARGB32Premultiplied   = 6
	qimageRGBX8888              = 16
	qimageRGBA8888              = 17
	qimageRGBA8888Premultiplied = 18
)

// CaptureArea grabs r of the screen, in logical coordinates, through ScreenShot2. On a scaled
// output KWin returns more pixels than r has: the image is sampled down to r's size.
func (c *Conn) CaptureArea(ctx context.Context, r image.Rectangle) (*image.RGBA, error) {
	if r.Empty() {
		return nil, fmt.Errorf("kwin: empty capture area %v", r)
	}
	rd, wr, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	// KWin writes the pixels after it answered, from a thread of its own: read them meanwhile.
	type data struct {
		b   []byte
		err error
	}
	got := make(chan data, 1)
	go func() {
		b, err := io.ReadAll(rd)
		got <- data{b, err}
	}()
	opts := map[string]dbus.Variant{
		"include-cursor":    dbus.MakeVariant(false),
		"native-resolution": dbus.MakeVariant(false),
	}
	var res map[string]dbus.Variant
	call := c.bus.Object(service, screenshotPath).CallWithContext(ctx, screenshotIfc+".CaptureArea", 0,
		int32(r.Min.X), int32(r.Min.Y), uint32(r.Dx()), uint32(r.Dy()), opts, dbus.UnixFD(wr.Fd()))
	wr.Close() // KWin holds its own copy now; EOF comes when it closes that
	if err := call.Store(&res); err != nil {
		var de dbus.Error
		if errors.As(err, &de) && strings.HasSuffix(de.Name, "NoAuthorized") {
			return nil, ErrNotAuthorized
		}
		return nil, busErr(err)
	}
	var d data
	select {
	case d = <-got:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if d.err != nil {
		return nil, fmt.Errorf("kwin: reading the screenshot: %w", d.err)
	}
	return decode(res, d.b, r.Dx(), r.Dy())
}

// decode turns KWin's raw QImage bytes, described by res, into an opaque RGBA image w×h.
func decode(res map[string]dbus.Variant, b []byte, w, h int) (*image.RGBA, error) {
	num := func(k string) int {
		v, ok := res[k]
		if !ok {
			return -1
		}
		switch n := v.Value().(type) {
		case uint32:
			return int(n)
		case int32:
			return int(n)
		}
		return -1
	}
	if t, ok := res["type"]; ok {
		if s, _ := t.Value().(string); s != "" && s != "raw" {
			return nil, fmt.Errorf("kwin: screenshot of type %q, not raw", s)
		}
	}
	sw, sh, stride, format := num("width"), num("height"), num("stride"), num("format")
	if sw <= 0 || sh <= 0 || stride < sw*4 || len(b) < stride*sh {
		return nil, fmt.Errorf("kwin: screenshot %dx%d, stride %d, %d bytes: inconsistent", sw, sh, stride, len(b))
	}
	var bgr bool
	switch format {
	case qimageRGB32, qimageARGB32, qimageARGB32Premultiplied: // 0xAARRGGBB words: bytes B, G, R, A
		bgr = true
	case qimageRGBX8888, qimageRGBA8888, qimageRGBA8888Premultiplied:
	default:
		return nil, fmt.Errorf("kwin: screenshot in QImage format %d, which mcec does not convert", format)
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		src := b[(y*sh/h)*stride:]
		dst := img.Pix[y*img.Stride:]
		for x := range w {
			s := (x * sw / w) * 4
			if bgr {
				dst[x*4], dst[x*4+1], dst[x*4+2] = src[s+2], src[s+1], src[s]
			} else {
				dst[x*4], dst[x*4+1], dst[x*4+2] = src[s], src[s+1], src[s+2]
			}
			dst[x*4+3] = 0xff
		}
	}
	return img, nil
}
