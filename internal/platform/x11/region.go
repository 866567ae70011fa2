package x11

import (
	"image"

	"github.com/jezek/xgb/xproto"
)

// subtract removes d from the disjoint rectangles rs, keeping them disjoint. The sets involved
// (exposed parts of one window, damage rectangles) are small, so plain splitting is enough.
func subtract(rs []image.Rectangle, d image.Rectangle) []image.Rectangle {
	out := rs[:0:0]
	for _, r := range rs {
		in := r.Intersect(d)
		if in.Empty() {
			out = append(out, r)
			continue
		}
		// Up to four pieces: above, below, left and right of the intersection.
		pieces := [4]image.Rectangle{
			{Min: r.Min, Max: image.Pt(r.Max.X, in.Min.Y)},
			{Min: image.Pt(r.Min.X, in.Max.Y), Max: r.Max},
			{Min: image.Pt(r.Min.X, in.Min.Y), Max: image.Pt(in.Min.X, in.Max.Y)},
			{Min: image.Pt(in.Max.X, in.Min.Y), Max: image.Pt(r.Max.X, in.Max.Y)},
		}
		for _, p := range pieces {
			if !p.Empty() {
				out = append(out, p)
			}
		}
	}
	return out
}

func xrect(r xproto.Rectangle) image.Rectangle {
	return image.Rect(int(r.X), int(r.Y), int(r.X)+int(r.Width), int(r.Y)+int(r.Height))
}
