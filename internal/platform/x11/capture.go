package x11

import (
	"context"
	"fmt"
	"image"
	"runtime"
	"strings"
	"sync"

	"github.com/jezek/xgb/shm"
	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/framepool"
	"github.com/mcec/mcec/internal/platform"
)

// maxStripBytes bounds one GetImage reply and one shared memory segment. The X server streams a
// reply of any length (its length field counts 4-byte units in 32 bits), but xgb reads each reply
// into one buffer, so a big grab is split into horizontal strips: a 3840x2160 screen at 32 bits
// per pixel still fits in one strip.
const maxStripBytes = 32 << 20

const allPlanes = 0xffffffff

// CaptureRect grabs the on-screen pixels of r (root coordinates, inside the screen) as opaque
// RGBA with its origin at (0, 0). It uses MIT-SHM when available and plain GetImage otherwise.
func (c *Conn) CaptureRect(ctx context.Context, r platform.Rect) (*image.RGBA, error) {
	if err := checkRect(r); err != nil {
		return nil, err
	}
	img, err := c.grab(ctx, xproto.Drawable(c.scr.root), r, c.scr.rootFmt, "capturing a screen region")
	if err != nil {
		return nil, xerr(err, platform.ErrCaptureFailed, "capture of %dx%d at %d,%d", r.Width, r.Height, r.X, r.Y)
	}
	return img, nil
}

// checkRect rejects rectangles the X protocol cannot express (16-bit sizes and coordinates).
func checkRect(r platform.Rect) error {
	if r.Empty() {
		return fmt.Errorf("%w: empty region %dx%d", platform.ErrCaptureFailed, r.Width, r.Height)
	}
	if r.X < -1<<15 || r.Y < -1<<15 || r.X+r.Width > 1<<15-1 || r.Y+r.Height > 1<<15-1 {
		return fmt.Errorf("%w: region %dx%d at %d,%d is outside X11 coordinates", platform.ErrCaptureFailed, r.Width, r.Height, r.X, r.Y)
	}
	return nil
}

// grab reads r of drawable d under ctx into a pooled frame (framepool: the caller may Release
// it once done with it).
func (c *Conn) grab(ctx context.Context, d xproto.Drawable, r platform.Rect, f pixelFormat, what string) (*image.RGBA, error) {
	// Every pixel is written by grabInto, so the pooled frame needs no clearing.
	img := framepool.NewRGBA(r.Width, r.Height)
	err := c.await(ctx, what, func() error { return c.grabInto(img, d, r, f) })
	if err != nil {
		// Not released: after a timeout the grab may still be writing into it.
		return nil, err
	}
	return img, nil
}

// grabInto reads r of drawable d into img, blocking. Run it under await.
func (c *Conn) grabInto(img *image.RGBA, d xproto.Drawable, r platform.Rect, f pixelFormat) error {
	stride := f.stride(r.Width)
	rows := max(1, c.stripBytes/stride)
	if c.ext.SHM {
		if seg, err := c.shm.acquire(c.xc, stride*min(rows, r.Height)); err == nil {
			defer c.shm.release(c.xc, seg)
			return c.grabSHM(img, d, r, f, rows, seg)
		}
		// Out of shared memory (or segments): the plain path still works.
	}
	return c.grabPlain(img, d, r, f, rows)
}

// grabPlain uses GetImage, keeping the next strip's request in flight while converting one.
func (c *Conn) grabPlain(img *image.RGBA, d xproto.Drawable, r platform.Rect, f pixelFormat, rows int) error {
	type strip struct {
		y, n int
		ck   xproto.GetImageCookie
	}
	issue := func(y int) strip {
		n := min(rows, r.Height-y)
		return strip{y, n, xproto.GetImage(c.xc, xproto.ImageFormatZPixmap, d,
			int16(r.X), int16(r.Y+y), uint16(r.Width), uint16(n), allPlanes)}
	}
	stride := f.stride(r.Width)
	next := issue(0)
	for {
		cur := next
		more := cur.y+cur.n < r.Height
		if more {
			next = issue(cur.y + cur.n)
		}
		rep, err := cur.ck.Reply()
		if err != nil {
			return err
		}
		if len(rep.Data) < stride*cur.n {
			return fmt.Errorf("%w: GetImage returned %d bytes for %d rows of %d", platform.ErrCaptureFailed, len(rep.Data), cur.n, stride)
		}
		f.convert(img, cur.y, rep.Data, r.Width, cur.n)
		if !more {
			return nil
		}
	}
}

// grabSHM has the server write each strip into shared memory: no pixels cross the socket.
func (c *Conn) grabSHM(img *image.RGBA, d xproto.Drawable, r platform.Rect, f pixelFormat, rows int, seg *shmSeg) error {
	stride := f.stride(r.Width)
	for y := 0; y < r.Height; y += rows {
		n := min(rows, r.Height-y)
		rep, err := shm.GetImage(c.xc, d, int16(r.X), int16(r.Y+y), uint16(r.Width), uint16(n),
			allPlanes, xproto.ImageFormatZPixmap, seg.id, 0).Reply()
		if err != nil {
			return err
		}
		if int(rep.Size) < stride*n || len(seg.data) < stride*n {
			return fmt.Errorf("%w: MIT-SHM GetImage wrote %d bytes for %d rows of %d", platform.ErrCaptureFailed, rep.Size, n, stride)
		}
		f.convertParallel(img, y, seg.data, r.Width, n)
	}
	return nil
}

// parallelConvertPixels is the strip size from which conversion is split across CPUs: a
// full-screen frame converts in ≈ 1.7 ms on one core here, on the reply's critical path.
const parallelConvertPixels = 256 << 10

// convertParallel is convert, split into horizontal bands converted concurrently.
func (f pixelFormat) convertParallel(dst *image.RGBA, y int, src []byte, w, rows int) {
	parts := min(runtime.GOMAXPROCS(0), 4, w*rows/parallelConvertPixels)
	if parts < 2 {
		f.convert(dst, y, src, w, rows)
		return
	}
	stride := f.stride(w)
	var wg sync.WaitGroup
	for i := 1; i < parts; i++ {
		r0, r1 := rows*i/parts, rows*(i+1)/parts
		wg.Go(func() { f.convert(dst, y+r0, src[r0*stride:], w, r1-r0) })
	}
	f.convert(dst, y, src, w, rows/parts)
	wg.Wait()
}

// probeSHM checks that the server really writes into our segments: a client in another IPC
// namespace (a container sharing only the X socket) can attach a same-numbered segment that is
// not ours. It compares one root pixel read both ways, with the segment pre-filled with the
// complement of the expected bytes.
func (c *Conn) probeSHM(ctx context.Context) bool {
	full := int(c.scr.widthPx) * int(c.scr.heightPx) * c.scr.rootFmt.bpp / 8
	pool := newSHMPool(min(full, maxStripBytes))
	f := c.scr.rootFmt
	ok := false
	err := c.await(ctx, "probing MIT-SHM", func() error {
		seg, err := pool.acquire(c.xc, f.stride(1))
		if err != nil {
			return err
		}
		defer pool.release(c.xc, seg)
		root := xproto.Drawable(c.scr.root)
		for range 3 {
			plain, err := xproto.GetImage(c.xc, xproto.ImageFormatZPixmap, root, 0, 0, 1, 1, allPlanes).Reply()
			if err != nil {
				return err
			}
			n := f.stride(1)
			for i := 0; i < n && i < len(plain.Data); i++ {
				seg.data[i] = ^plain.Data[i]
			}
			if _, err := shm.GetImage(c.xc, root, 0, 0, 1, 1, allPlanes, xproto.ImageFormatZPixmap, seg.id, 0).Reply(); err != nil {
				return err
			}
			a, b := image.NewRGBA(image.Rect(0, 0, 1, 1)), image.NewRGBA(image.Rect(0, 0, 1, 1))
			f.convert(a, 0, plain.Data, 1, 1)
			f.convert(b, 0, seg.data, 1, 1)
			if string(a.Pix) == string(b.Pix) {
				ok = true
				return nil
			}
		}
		return nil
	})
	if err != nil || !ok {
		pool.close(c.xc)
		return false
	}
	c.shm = pool
	return true
}

// isLocalDisplay reports whether display names a server on this machine, the only place where
// SysV shared memory can be shared with it.
func isLocalDisplay(display string) bool {
	if strings.HasPrefix(display, "/") {
		return true // a socket path (launchd style)
	}
	i := strings.LastIndex(display, ":")
	if i < 0 {
		return false
	}
	host := display[:i]
	if j := strings.LastIndex(host, "/"); j >= 0 {
		if host[:j] == "unix" {
			return true
		}
		host = host[j+1:]
	}
	switch host {
	case "", "unix", "localhost", "127.0.0.1", "::1", "[::1]":
		return true
	}
	return false
}
