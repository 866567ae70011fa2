package wayland

import (
	"context"
	"fmt"
	"image"

	"github.com/mcec/mcec/internal/platform"
)

// CaptureRect grabs the on-screen pixels of r through wlr-screencopy.
func (c *Conn) CaptureRect(ctx context.Context, r platform.Rect) (*image.RGBA, error) {
	img, err := c.wl.Capture(ctx, image.Rect(r.X, r.Y, r.X+r.Width, r.Y+r.Height))
	if err != nil {
		if err = c.wlErr("capture", err); ctx.Err() == nil {
			return nil, fmt.Errorf("%w: %w", platform.ErrCaptureFailed, err)
		}
		return nil, err
	}
	return img, nil
}

// CaptureWindow grabs what is on screen in the window's client area. wlroots 0.15 offers no
// capture of one window's own surface, so the image is the screen's pixels there: Fallback
// says so when another window lies over part of it. A minimized (scratchpad) window is restored
// first (Restored), as on X11.
func (c *Conn) CaptureWindow(ctx context.Context, handle uint32) (platform.WindowCapture, error) {
	w, err := c.Window(ctx, handle)
	if err != nil {
		return platform.WindowCapture{}, err
	}
	var wc platform.WindowCapture
	if w.Minimized {
		if err := c.WindowOp(ctx, handle, platform.WindowOp{Kind: platform.OpRestore}); err != nil {
			return wc, err
		}
		wc.Restored = true
		// Back from the scratchpad it has a place of its own; the screencopy that follows
		// waits for the compositor's next frame, which shows it.
		if w, err = c.Window(ctx, handle); err != nil {
			return wc, err
		}
	}
	views, err := c.views(ctx)
	if err != nil {
		return wc, err
	}
	wc.Fallback = covered(handle, w.Bounds, views)
	img, err := c.CaptureRect(ctx, w.Bounds)
	if err != nil {
		return wc, err
	}
	wc.Image = img
	return wc, nil
}

// covered reports whether a window above handle's (later in stacking order, on screen) overlaps
// its area.
func covered(handle uint32, area platform.Rect, views []view) bool {
	above := false
	for _, v := range views {
		if uint32(v.Node.ID) == handle {
			above = true
			continue
		}
		if above && !v.Scratchpad && !clientArea(v.Node).Intersect(area).Empty() {
			return true
		}
	}
	return false
}
