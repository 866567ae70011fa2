package daemon

import (
	"bytes"
	"context"
	"image/jpeg"

	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/imaging"
	"github.com/mcec/mcec/internal/platform"
)

// Kept frames are small: enough to see what a call saw and where it clicked, little enough that
// two per acting call stay cheap on disk (≈ 20–60 KB each at 1280x800).
const (
	frameWidth   = 640
	frameQuality = 60
)

// evidenceFrames takes the frames kept around acting calls (dispatch.Framer, [evidence]
// keep_frames): the whole virtual screen, at most frameWidth pixels wide, as a JPEG.
type evidenceFrames struct{ d platform.Desktop }

func (f evidenceFrames) Frame(ctx context.Context) (*dispatch.Frame, error) {
	ds, err := f.d.Displays(ctx)
	if err != nil {
		return nil, err
	}
	full, err := f.d.CaptureRect(ctx, ds.VirtualBounds)
	if err != nil {
		return nil, err
	}
	small := imaging.Downscale(full, frameWidth, 0)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, small, &jpeg.Options{Quality: frameQuality}); err != nil {
		return nil, err
	}
	return &dispatch.Frame{JPEG: buf.Bytes(), X: ds.VirtualBounds.X, Y: ds.VirtualBounds.Y,
		Scale: float64(small.Bounds().Dx()) / float64(full.Bounds().Dx())}, nil
}
