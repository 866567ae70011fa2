package tools

import (
	"context"
	"image"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/imaging"
	"github.com/mcec/mcec/internal/platform"
)

// pixelSource is what capture, record and get-text grab: a window's own pixels (optionally a
// window-relative part of them), or an absolute screen rectangle. It is resolved once and can
// grab many times (record).
type pixelSource struct {
	d      desktopReader
	handle uint32         // a window capture when non-zero
	rect   platform.Rect  // the screen rectangle, or the window-relative part when crop
	crop   bool           // window capture cut down to rect
	window *WindowInfo    // the target window, as resolved
	region *platform.Rect // the region as reported: absolute, or window-relative with a window
	frame  *image.RGBA    // the last grab's whole frame (before any crop), for framepool.Release
}

// newPixelSource resolves a target and/or region the way capture documents it: with neither, the
// whole screen; a region is clipped to the screen (or the window) with region-clamped, and one
// that lies wholly outside fails region-out-of-bounds. Oversized regions fail before anything is
// allocated. The window becomes the session's target.
func newPixelSource(ctx context.Context, env *Env, call *catalog.Call, t WindowTarget, region *Region, resp *catalog.Response) (*pixelSource, error) {
	if region != nil {
		if err := region.check(); err != nil {
			return nil, err
		}
	}
	s := &pixelSource{d: env.Desktop}
	if t.empty() {
		ds, err := env.Desktop.Displays(ctx)
		if err != nil {
			return nil, platformError(err)
		}
		want := ds.VirtualBounds
		if region != nil {
			want = region.rect()
		}
		got, err := clampRegion(want, ds.VirtualBounds, "the screen", resp)
		if err != nil {
			return nil, err
		}
		s.rect, s.region = got, &got
		return s, nil
	}
	w, err := resolveWindow(ctx, env.Desktop, t)
	if err != nil {
		return nil, err
	}
	info := windowInfo(w)
	if call != nil && call.Session != nil {
		call.Session.SetTarget(info)
	}
	s.handle, s.window = w.Handle, &info
	if region != nil {
		if err := placeless(&w, "region"); err != nil {
			return nil, err
		}
		got, err := clampRegion(region.rect(), platform.Rect{Width: w.Bounds.Width, Height: w.Bounds.Height}, "the window", resp)
		if err != nil {
			return nil, err
		}
		s.rect, s.crop, s.region = got, true, &got
	}
	return s, nil
}

// isRegion reports whether a blank result only warns (a region or the screen) rather than fails
// (a whole window).
func (s *pixelSource) isRegion() bool { return s.handle == 0 || s.crop }

// grab takes one image. For a window, wc says how it was obtained (Restored, Fallback).
func (s *pixelSource) grab(ctx context.Context) (*image.RGBA, platform.WindowCapture, error) {
	if s.handle == 0 {
		img, err := s.d.CaptureRect(ctx, s.rect)
		if err != nil {
			return nil, platform.WindowCapture{}, platformError(err)
		}
		s.frame = img
		return img, platform.WindowCapture{}, nil
	}
	wc, err := s.d.CaptureWindow(ctx, s.handle)
	if err != nil {
		return nil, wc, platformError(err)
	}
	img := wc.Image
	s.frame = img
	if s.crop {
		b := img.Bounds()
		r := image.Rect(b.Min.X+s.rect.X, b.Min.Y+s.rect.Y, b.Min.X+s.rect.X+s.rect.Width, b.Min.Y+s.rect.Y+s.rect.Height).Intersect(b)
		if r.Empty() {
			// The window shrank under the region since it was resolved.
			return nil, wc, contract.Errorf(contract.CodeRegionOutOfBounds,
				"region %+v lies outside the window, now %dx%d", s.rect, b.Dx(), b.Dy())
		}
		img = imaging.Crop(img, r)
	}
	return img, wc, nil
}

// windowWarnings adds the warnings a window capture earns and refreshes the window's description
// after a restore.
func (s *pixelSource) windowWarnings(ctx context.Context, wc platform.WindowCapture, resp *catalog.Response, restoredDetail string) {
	if wc.Restored {
		resp.Warnings = append(resp.Warnings, contract.Warn(contract.WarnMinimizedWindow, "%s", restoredDetail))
		if w2, err := s.d.Window(ctx, s.handle); err == nil {
			info := windowInfo(w2)
			s.window = &info
		}
	}
	if wc.Fallback {
		resp.Warnings = append(resp.Warnings, contract.Warn(contract.WarnCaptureFallback,
			"the window's own pixels could not be read; the image is what the screen shows in its rectangle"))
	}
}

// blankCode is the error code for a blank frame and how to say what it looks like.
func blankCode(b imaging.BlankCheck) (contract.Code, string) {
	if b.DominantIsDark {
		return contract.CodeFrameAllBlack, "all black"
	}
	return contract.CodeFrameMostlyBlank, "mostly one colour"
}
