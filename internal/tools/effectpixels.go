package tools

import (
	"context"
	"github.com/mcec/mcec/internal/sysload"
	"image"
	"time"

	"github.com/mcec/mcec/internal/platform"
)

// Effects by pixels (issue 27): where an application publishes no tree (Tk, GTK 2 without its
// modules, xterm, a page read by OCR) an action's effect is the change of the pixels on screen in
// the target window's rectangle — a menu drawn over it, a typed command's output — rather than
// nothing. The rectangle is grabbed as the screen shows it (menus are windows of their own, drawn
// over the window), once before the action and at each check after it. (pixels.go is capture's.)

// PixelChange is the part of the window's rectangle whose pixels changed, in screen coordinates,
// and how many pixels did.
type PixelChange struct {
	X       int `json:"x"`
	Y       int `json:"y"`
	Width   int `json:"width"`
	Height  int `json:"height"`
	Changed int `json:"changed"`
}

// maxCursorBlock is the largest solid block taken for a blinking block cursor (a terminal's cell).
const maxCursorBlock = 24 * 48

// significant reports a change that is not a blinking cursor: a text cursor (a line at most 3
// pixels thin) or a terminal's block cursor (a small block whose every pixel flipped) blinks
// whether or not the action worked, so such a change alone is reported but not taken for the
// action's effect. A check mark (7×7, a third of its pixels) or one typed character (a glyph and
// the cursor's move) counts.
func (p *PixelChange) significant() bool {
	if p == nil {
		return false
	}
	line := p.Width <= 3 || p.Height <= 3
	block := p.Changed == p.Width*p.Height && p.Changed <= maxCursorBlock
	return !line && !block
}

// pixelShot is the window's rectangle before the action.
type pixelShot struct {
	rect platform.Rect
	img  *image.RGBA
}

// maxShotPixels bounds the rectangle compared: a 1920×1200 window is about 9 MB a grab.
const maxShotPixels = 2560 * 1600

// shootWindow grabs w's rectangle on the screen, clipped to the screen; nil when it cannot (no
// pixels on this desktop, a window off screen or too large).
func shootWindow(ctx context.Context, d desktopReader, w platform.Window, windows []platform.Window) *pixelShot {
	r := w.Bounds
	for _, x := range windows {
		if x.Handle == w.Handle {
			r = x.Bounds // the listing is fresher than the caller's copy
		}
	}
	ds, err := d.Displays(ctx)
	if err != nil {
		return nil
	}
	r = r.Intersect(ds.VirtualBounds)
	if r.Empty() || r.Width*r.Height > maxShotPixels {
		return nil
	}
	img, err := d.CaptureRect(ctx, r)
	if err != nil {
		return nil
	}
	return &pixelShot{rect: r, img: img}
}

// compare grabs the rectangle again and reports the changed part (nil when none), and whether
// the grab worked.
func (s *pixelShot) compare(ctx context.Context, d desktopReader) (*PixelChange, bool) {
	img, err := d.CaptureRect(ctx, s.rect)
	if err != nil || img.Bounds().Size() != s.img.Bounds().Size() {
		return nil, false
	}
	box, n := diffBox(s.img, img)
	if n == 0 {
		return nil, true
	}
	return &PixelChange{X: s.rect.X + box.Min.X, Y: s.rect.Y + box.Min.Y, Width: box.Dx(), Height: box.Dy(), Changed: n}, true
}

// pixelTolerance is the per-channel difference below which two pixels count as the same
// (dithering and compression of remote framebuffers).
const pixelTolerance = 8

// diffBox returns the bounding box of the pixels that differ between two images of one size
// (relative to their origin) and how many do.
func diffBox(a, b *image.RGBA) (image.Rectangle, int) {
	size := a.Bounds().Size()
	var box image.Rectangle
	n := 0
	for y := 0; y < size.Y; y++ {
		ra := a.Pix[y*a.Stride : y*a.Stride+size.X*4]
		rb := b.Pix[y*b.Stride : y*b.Stride+size.X*4]
		for x := 0; x < size.X; x++ {
			i := x * 4
			if near(ra[i], rb[i]) && near(ra[i+1], rb[i+1]) && near(ra[i+2], rb[i+2]) {
				continue
			}
			p := image.Rect(x, y, x+1, y+1)
			if n == 0 {
				box = p
			} else {
				box = box.Union(p)
			}
			n++
		}
	}
	return box, n
}

func near(a, b uint8) bool {
	if a > b {
		return a-b <= pixelTolerance
	}
	return b-a <= pixelTolerance
}

// rebaseWithin bounds rebase's wait for the window's pixels to stop changing, and rebasePoll is
// how often it looks. rebaseWithin and rebaseQuiet stretch with the machine's load (sysload).
const (
	rebaseWithin = 500 * time.Millisecond
	rebasePoll   = 15 * time.Millisecond
	// rebaseQuiet is how long the pixels must stay the same: toolkits redraw a hover in their
	// idle time, a few milliseconds after the pointer arrives (Tk's checkbutton on leave), and
	// more than 50 ms later on a loaded machine (TestEffectsWithoutTree beside a second make test),
	// and past 150 ms at load 8 on 2 cores, which the stretch covers.
	rebaseQuiet = 150 * time.Millisecond
)

// pixelMode reports an observer that compares pixels (the window has no tree).
func (o *observer) pixelMode() bool { return o.pixels != nil }

// rebase grabs the window's rectangle again once it has stopped changing, at most rebaseWithin:
// raising the window and the pointer's arrival redraw it (hover highlights), and that is not the
// click's effect. Called inside the gesture, after the pointer moved and before the press.
func (o *observer) rebase(ctx context.Context) {
	if o.pixels == nil {
		return
	}
	start := time.Now()
	quiet := sysload.Scale(rebaseQuiet)
	deadline, stable := start.Add(sysload.Scale(rebaseWithin)), start
	prev := o.pixels.img
	for {
		img, err := o.d.CaptureRect(ctx, o.pixels.rect)
		if err != nil || img.Bounds().Size() != prev.Bounds().Size() {
			return
		}
		if _, n := diffBox(prev, img); n > 0 {
			stable = time.Now()
		}
		prev = img
		if time.Since(stable) >= quiet || !time.Now().Before(deadline) {
			break
		}
		t := time.NewTimer(rebasePoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
	o.pixels.img = prev
}
