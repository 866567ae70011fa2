// Package screencast records a window or screen region as an animated GIF (GIF89a, looping): a
// frame loop on a ticker, frames kept as palette-quantized differences from the previous frame,
// and one server-wide slot that holds at most one recording (see Manager).
package screencast

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/gif"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcec/mcec/internal/atomicfile"
	"github.com/mcec/mcec/internal/imaging"
)

// Grab returns one frame. The recorder owns the image afterwards.
type Grab func(ctx context.Context) (*image.RGBA, error)

// Limits are the operator limits a recording is clamped to (PRODUCT.md §8).
type Limits struct {
	MaxFPS      int
	MaxDuration time.Duration
	MaxFrames   int
	MaxWidth    int
	// MaxBytes bounds the memory held by quantized frames; a recording that reaches it stops.
	MaxBytes int
}

// DefaultLimits are mcec's limits: 30 fps, 60 s, 600 frames, 1280 px wide, 256 MiB of frames.
var DefaultLimits = Limits{MaxFPS: 30, MaxDuration: 60 * time.Second, MaxFrames: 600, MaxWidth: 1280, MaxBytes: 256 << 20}

// DefaultFPS is the frame rate when none is asked for.
const DefaultFPS = 5

// Options describe one recording.
type Options struct {
	FPS int
	// Duration stops the recording by itself (one-shot); 0 records until Stop or MaxDuration.
	Duration time.Duration
	MaxWidth int    // frames are downscaled to at most this width; 0 means the limit
	Path     string // where the GIF is written when the recording ends
	// Meta is the caller's description of the recording, returned with it.
	Meta any
}

// Clamp fits o into l and describes every value it changed (empty when nothing was).
func (l Limits) Clamp(o *Options) []string {
	var changed []string
	if o.FPS <= 0 {
		o.FPS = DefaultFPS
	}
	if o.FPS > l.MaxFPS {
		changed = append(changed, fmt.Sprintf("fps %d → %d", o.FPS, l.MaxFPS))
		o.FPS = l.MaxFPS
	}
	if o.Duration > l.MaxDuration {
		changed = append(changed, fmt.Sprintf("duration %v → %v", o.Duration, l.MaxDuration))
		o.Duration = l.MaxDuration
	}
	if o.MaxWidth > l.MaxWidth {
		changed = append(changed, fmt.Sprintf("maxWidth %d → %d", o.MaxWidth, l.MaxWidth))
	}
	if o.MaxWidth <= 0 || o.MaxWidth > l.MaxWidth {
		o.MaxWidth = l.MaxWidth
	}
	// The frame cap binds before the duration cap at high rates: say so up front.
	d := o.Duration
	if d == 0 {
		d = l.MaxDuration
	}
	if n := int(d * time.Duration(o.FPS) / time.Second); n > l.MaxFrames {
		changed = append(changed, fmt.Sprintf("%v at %d fps is %d frames; the recording stops at %d", d, o.FPS, n, l.MaxFrames))
	}
	return changed
}

// Why a recording ended.
const (
	StopRequested  = "stopped"      // Stop was called
	StopDuration   = "duration"     // the one-shot duration passed
	StopMaxDur     = "max-duration" // the duration limit
	StopMaxFrames  = "max-frames"   // the frame limit
	StopMaxBytes   = "max-memory"   // the frame memory budget
	StopGrabFailed = "grab-failed"  // a frame could not be grabbed (the window closed, …)
)

// Result is a finished recording.
type Result struct {
	File     string
	Frames   int
	Duration time.Duration
	FPS      int
	Width    int
	Height   int
	Bytes    int
	// SkippedTicks counts frame times that got no frame: a grab was still running, or the
	// process was not scheduled.
	SkippedTicks int
	StopReason   string
	// StopDetail explains StopGrabFailed.
	StopDetail string
	// WriteErr is set when the GIF could not be encoded or written.
	WriteErr error
	Meta     any
}

// Recording is one running or finished recording.
type Recording struct {
	opts   Options
	limits Limits
	grab   Grab
	cancel context.CancelFunc
	done   chan struct{} // closed once the GIF is written (or failed) and res is set

	// Owned by the loop goroutine until done closes.
	frames []*image.Paletted
	times  []time.Duration // each frame's offset from the first
	prev   *image.RGBA
	bytes  int
	start  time.Time
	res    Result

	width, height int // the canvas, set by the first frame before the loop starts

	stopOnce  sync.Once
	discarded atomic.Bool // Discard: finish writes nothing
}

// ErrDiscarded is a discarded recording's WriteErr.
var ErrDiscarded = errors.New("the recording was discarded by the operator's emergency stop")

// Discard stops the recording without writing its GIF (a GIF already written is removed) and
// waits for it to end.
func (r *Recording) Discard() {
	r.discarded.Store(true)
	res := r.Stop()
	if res.WriteErr == nil && res.File != "" {
		_ = os.Remove(res.File) // it finished writing before Discard
	}
}

// ErrNoFrames is returned by Start when the first frame could not be grabbed.
var ErrNoFrames = errors.New("no frame could be grabbed")

// Start grabs the first frame under ctx (its failure is returned, wrapping ErrNoFrames and the
// grab's error) and then keeps grabbing on a ticker, under life, until Stop, Duration, a limit
// or a failed grab. A grab that takes longer than a frame interval makes the loop skip ticks
// rather than queue them. o must already be clamped.
func Start(ctx, life context.Context, grab Grab, o Options, l Limits) (*Recording, error) {
	r := &Recording{opts: o, limits: l, grab: grab, done: make(chan struct{})}
	r.start = time.Now()
	first, err := grab(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoFrames, err)
	}
	r.add(first, 0)
	loopCtx, cancel := context.WithCancel(life)
	r.cancel = cancel
	go r.loop(loopCtx)
	return r, nil
}

// Done is closed when the recording has ended and its GIF is written.
func (r *Recording) Done() <-chan struct{} { return r.done }

// Size is the GIF's width and height (the first frame's, downscaled).
func (r *Recording) Size() (width, height int) { return r.width, r.height }

// Meta returns Options.Meta.
func (r *Recording) Meta() any { return r.opts.Meta }

// Stop ends the recording (if it still runs), waits for the GIF and returns the result. It may
// be called any number of times.
func (r *Recording) Stop() Result {
	r.stopOnce.Do(r.cancel)
	<-r.done
	return r.res
}

func (r *Recording) loop(ctx context.Context) {
	defer close(r.done)
	interval := time.Second / time.Duration(r.opts.FPS)
	limit, limitReason := r.limits.MaxDuration, StopMaxDur
	if r.opts.Duration > 0 && r.opts.Duration <= limit {
		limit, limitReason = r.opts.Duration, StopDuration
	}
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	timer := time.NewTimer(time.Until(r.start.Add(limit)))
	defer timer.Stop()
	reason, end := StopRequested, time.Time{}
	// Frame times are counted by slot (offset / interval), not by ticks: a ticker drops the
	// ticks a descheduled process did not read, and beside a second make test a 500 ms
	// recording at 20 fps took 6 frames and counted no skipped tick.
	skipped, last := 0, 0 // the first frame is slot 0
loop:
	for {
		select {
		case <-ctx.Done():
			end = time.Now()
			break loop
		case <-timer.C:
			reason, end = limitReason, r.start.Add(limit)
			break loop
		case now := <-ticker.C:
			at := now.Sub(r.start)
			if at >= limit {
				reason, end = limitReason, r.start.Add(limit)
				break loop
			}
			slot := int(at / interval)
			if slot <= last {
				continue // a stale tick of a frame time already taken
			}
			skipped += slot - last - 1
			last = slot
			gctx, cancel := context.WithTimeout(ctx, max(2*time.Second, 2*interval))
			img, err := r.grab(gctx)
			cancel()
			if err != nil {
				if ctx.Err() != nil {
					end = time.Now()
					break loop
				}
				reason, end = StopGrabFailed, time.Now()
				r.res.StopDetail = err.Error()
				break loop
			}
			if full := r.add(img, at); full != "" {
				reason, end = full, time.Now()
				break loop
			}
			// A slow grab leaves a stale tick behind: drop it, so frames are never queued (its
			// frame time is counted by the next tick's slot).
			select {
			case <-ticker.C:
			default:
			}
		}
	}
	// The frame times between the last frame and the end that no frame took.
	if endSlot := int((end.Sub(r.start) - 1) / interval); endSlot > last {
		skipped += endSlot - last
	}
	r.res.SkippedTicks = skipped
	r.finish(reason, end)
}

// add appends img as a frame taken at offset at. It returns a stop reason when a limit is
// reached with this frame.
func (r *Recording) add(img *image.RGBA, at time.Duration) string {
	img = imaging.Downscale(img, r.opts.MaxWidth, 1)
	if img.Bounds().Min != (image.Point{}) {
		img = copyRGBA(img)
	}
	if r.prev == nil {
		r.frames = append(r.frames, quantize(img))
		r.times = append(r.times, at)
		r.prev = img
		r.width, r.height = img.Bounds().Dx(), img.Bounds().Dy()
		r.bytes += r.width*r.height + 768
	} else {
		if img.Bounds() != r.prev.Bounds() {
			// The source changed size (a resized window): keep the first frame's canvas, pad
			// with black or crop.
			canvas := image.NewRGBA(r.prev.Bounds())
			draw.Draw(canvas, canvas.Bounds(), image.Black, image.Point{}, draw.Src)
			draw.Draw(canvas, canvas.Bounds(), img, image.Point{}, draw.Src)
			img = canvas
		}
		d := diff(r.prev, img)
		if d.Empty() {
			// Unchanged: a one-pixel frame keeps the frame count and timing honest for the
			// price of a few bytes.
			d = image.Rect(0, 0, 1, 1)
		}
		r.frames = append(r.frames, quantize(img.SubImage(d).(*image.RGBA)))
		r.times = append(r.times, at)
		r.prev = img
		r.bytes += d.Dx()*d.Dy() + 768
	}
	switch {
	case len(r.frames) >= r.limits.MaxFrames:
		return StopMaxFrames
	case r.bytes >= r.limits.MaxBytes:
		return StopMaxBytes
	}
	return ""
}

// diff returns the bounding box of the pixels that differ between two same-sized images.
func diff(a, b *image.RGBA) image.Rectangle {
	bd := a.Bounds()
	w := bd.Dx() * 4
	minY, maxY := -1, -1
	minX, maxX := bd.Dx(), -1
	for y := 0; y < bd.Dy(); y++ {
		ra := a.Pix[y*a.Stride : y*a.Stride+w]
		rb := b.Pix[y*b.Stride : y*b.Stride+w]
		if bytes.Equal(ra, rb) {
			continue
		}
		if minY < 0 {
			minY = y
		}
		maxY = y
		l := 0
		for l < w && ra[l] == rb[l] {
			l++
		}
		h := w - 1
		for h > l && ra[h] == rb[h] {
			h--
		}
		minX, maxX = min(minX, l/4), max(maxX, h/4)
	}
	if minY < 0 {
		return image.Rectangle{}
	}
	return image.Rect(minX, minY, maxX+1, maxY+1)
}

func copyRGBA(img *image.RGBA) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Bounds(), img, b.Min, draw.Src)
	return out
}

// finish encodes and writes the GIF and fills r.res.
func (r *Recording) finish(reason string, end time.Time) {
	r.prev = nil
	dur := max(end.Sub(r.start), r.times[len(r.times)-1]+time.Second/time.Duration(r.opts.FPS))
	if reason == StopDuration || reason == StopMaxDur {
		dur = end.Sub(r.start)
	}
	r.res.Width, r.res.Height = r.width, r.height
	r.res.Frames = len(r.frames)
	r.res.Duration = dur
	r.res.FPS = r.opts.FPS
	r.res.StopReason = reason
	r.res.File = r.opts.Path
	r.res.Meta = r.opts.Meta
	if r.discarded.Load() {
		r.res.WriteErr = ErrDiscarded
		r.frames = nil
		return
	}

	g := &gif.GIF{
		Image:     r.frames,
		Delay:     delays(r.times, dur),
		Disposal:  make([]byte, len(r.frames)),
		LoopCount: 0, // loop forever
		Config:    image.Config{Width: r.width, Height: r.height},
	}
	for i := range g.Disposal {
		g.Disposal[i] = gif.DisposalNone // each frame paints over the previous one
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, g); err != nil {
		r.res.WriteErr = fmt.Errorf("encode GIF: %w", err)
	} else if err := atomicfile.WriteFile(r.opts.Path, buf.Bytes(), 0o600); err != nil {
		r.res.WriteErr = err
	} else {
		r.res.Bytes = buf.Len()
	}
	r.frames = nil
}

// delays converts frame offsets into GIF delays (hundredths of a second), rounding the running
// time rather than each delay so a long recording does not drift. Browsers play delays below 2
// as 10, so 2 is the floor.
func delays(times []time.Duration, total time.Duration) []int {
	cs := func(d time.Duration) int { return int((d + 5*time.Millisecond) / (10 * time.Millisecond)) }
	out := make([]int, len(times))
	for i := range times {
		next := total
		if i+1 < len(times) {
			next = times[i+1]
		}
		out[i] = max(2, cs(next)-cs(times[i]))
	}
	return out
}
