package traceview

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"image"
	_ "image/jpeg" // frames
	_ "image/png"  // captures
	"io"
	"time"
)

//go:embed view.html.tmpl
var pageTemplate string

var tmpl = template.Must(template.New("view").Funcs(template.FuncMap{
	"dataURI": func(img Image) template.URL {
		// The MIME type is one of two constants and the payload base64, so the URL is safe.
		return template.URL("data:" + img.MIME + ";base64," + base64.StdEncoding.EncodeToString(img.Data))
	},
	"ms": func(ms float64) string {
		if ms >= 10000 {
			return fmt.Sprintf("%.1f s", ms/1000)
		}
		return fmt.Sprintf("%.0f ms", ms)
	},
	"clock": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("15:04:05.000")
	},
	"stamp": func(t time.Time) string {
		if t.IsZero() {
			return "unknown"
		}
		return t.UTC().Format("2006-01-02 15:04:05 UTC")
	},
	"first": func(s []string) string {
		if len(s) == 0 {
			return ""
		}
		return s[0]
	},
	"overlay": overlayOf,
}).Parse(pageTemplate))

// Overlay is a frame with the point and rectangle of the action drawn in its own pixels.
type Overlay struct {
	W, H       int
	Point      *[2]float64
	Box        *[4]float64
	PointLabel string
}

// overlayOf places the call's point and box on one of its images: only frames say where on the
// screen their pixels are (a capture of a window may be anywhere).
func overlayOf(c Call, img Image) *Overlay {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil {
		return nil
	}
	o := &Overlay{W: cfg.Width, H: cfg.Height}
	if img.Scale <= 0 {
		return o
	}
	at := func(x, y int) (float64, float64) {
		return float64(x-img.Origin[0]) * img.Scale, float64(y-img.Origin[1]) * img.Scale
	}
	if c.Point != nil {
		x, y := at(c.Point[0], c.Point[1])
		o.Point = &[2]float64{x, y}
	}
	if c.Box != nil {
		x, y := at(c.Box[0], c.Box[1])
		o.Box = &[4]float64{x, y, float64(c.Box[2]) * img.Scale, float64(c.Box[3]) * img.Scale}
	}
	return o
}

// Write renders the page as one self-contained HTML document.
func (p *Page) Write(w io.Writer) error { return tmpl.Execute(w, p) }
