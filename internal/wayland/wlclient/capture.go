package wlclient

import (
	"context"
	"errors"
	"fmt"
	"image"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/mcec/mcec/internal/wayland/wire"
)

// Capture grabs r (layout coordinates) through wlr-screencopy: each output's part of it is
// copied into shared memory and converted; a part on no output stays black.
func (cl *Client) Capture(ctx context.Context, r image.Rectangle) (*image.RGBA, error) {
	mgr, err := cl.need(ifScreencopy)
	if err != nil {
		return nil, err
	}
	outs, err := cl.Outputs(ctx)
	if err != nil {
		return nil, err
	}
	img := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	for _, o := range outs {
		ob := image.Rect(o.X, o.Y, o.X+o.Width, o.Y+o.Height)
		part := r.Intersect(ob)
		if part.Empty() {
			continue
		}
		if err := cl.captureOutput(ctx, mgr, o, part.Sub(ob.Min), img, part.Min.Sub(r.Min)); err != nil {
			return nil, err
		}
	}
	return img, nil
}

// frame is one screencopy frame's events.
type frame struct {
	formats []shmFormat // the shm buffers the compositor can copy into
	ready   chan struct{}
	failed  chan struct{}
	yInvert bool
}

type shmFormat struct{ format, width, height, stride uint32 }

// captureOutput copies region (output-local logical coordinates) of output o into dst at at.
func (cl *Client) captureOutput(ctx context.Context, mgr uint32, o Output, region image.Rectangle, dst *image.RGBA, at image.Point) error {
	shm, err := cl.need(ifShm)
	if err != nil {
		return err
	}
	f := &frame{ready: make(chan struct{}), failed: make(chan struct{})}
	var once sync.Once
	id := cl.c.NewObject(func(op uint16, m *wire.Message) {
		switch op {
		case frameBuffer:
			f.formats = append(f.formats, shmFormat{m.Uint(), m.Uint(), m.Uint(), m.Uint()})
		case frameFlags:
			f.yInvert = m.Uint()&frameFlagYInvert != 0
		case frameReady:
			once.Do(func() { close(f.ready) })
		case frameFailed:
			once.Do(func() { close(f.failed) })
		}
	})
	defer func() {
		_ = cl.c.Send(id, frameDestroy)
		cl.c.Forget(id)
	}()
	err = cl.c.Send(mgr, screencopyCaptureRegion, wire.NewID(id), wire.Int(0), wire.Object(o.id),
		wire.Int(int32(region.Min.X)), wire.Int(int32(region.Min.Y)), wire.Int(int32(region.Dx())), wire.Int(int32(region.Dy())))
	if err != nil {
		return err
	}
	// The buffer events come right after the request: a round trip has them all.
	if err := cl.c.Roundtrip(ctx); err != nil {
		return err
	}
	select {
	case <-f.failed:
		return errors.New("wayland: the compositor could not start the capture")
	default:
	}
	var pick *shmFormat
	for i, s := range f.formats {
		if convertible(s.format) {
			pick = &f.formats[i]
			break
		}
	}
	if pick == nil {
		return fmt.Errorf("%w: no shared-memory format mcec converts among %v", ErrUnsupported, f.formats)
	}
	size := int(pick.stride) * int(pick.height)
	fd, err := unix.MemfdCreate("mcec-screencopy", unix.MFD_CLOEXEC)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		return err
	}
	mem, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return err
	}
	defer unix.Munmap(mem)
	pool := cl.c.NewObject(nil)
	if err := cl.c.Send(shm, shmCreatePool, wire.NewID(pool), wire.FD(fd), wire.Int(int32(size))); err != nil {
		return err
	}
	buf := cl.c.NewObject(nil)
	err = cl.c.Send(pool, shmPoolCreateBuf, wire.NewID(buf), wire.Int(0), wire.Int(int32(pick.width)), wire.Int(int32(pick.height)),
		wire.Int(int32(pick.stride)), wire.Uint(pick.format))
	defer func() {
		_ = cl.c.Send(buf, bufferDestroy)
		_ = cl.c.Send(pool, shmPoolDestroy)
		cl.c.Forget(buf)
		cl.c.Forget(pool)
	}()
	if err != nil {
		return err
	}
	if err := cl.c.Send(id, frameCopy, wire.Object(buf)); err != nil {
		return err
	}
	select {
	case <-f.ready:
	case <-f.failed:
		return errors.New("wayland: the compositor failed the capture")
	case <-cl.c.Done():
		return cl.c.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
	convert(dst, at, mem, *pick, f.yInvert, region.Dx(), region.Dy())
	return nil
}

func convertible(format uint32) bool {
	switch format {
	case shmFormatXRGB8888, shmFormatARGB8888, shmFormatXBGR8888, shmFormatABGR8888:
		return true
	}
	return false
}

// convert copies the buffer's pixels into dst at at as RGBA (opaque), w×h of them (the buffer
// holds more when the output is scaled: it is sampled).
func convert(dst *image.RGBA, at image.Point, mem []byte, s shmFormat, yInvert bool, w, h int) {
	bgr := s.format == shmFormatXRGB8888 || s.format == shmFormatARGB8888 // little-endian bytes B, G, R, X
	for y := range h {
		sy := y * int(s.height) / max(h, 1)
		if yInvert {
			sy = int(s.height) - 1 - sy
		}
		src := mem[sy*int(s.stride):]
		d := dst.Pix[(at.Y+y)*dst.Stride+at.X*4:]
		for x := range w {
			sx := x * int(s.width) / max(w, 1) * 4
			if bgr {
				d[x*4], d[x*4+1], d[x*4+2] = src[sx+2], src[sx+1], src[sx]
			} else {
				d[x*4], d[x*4+1], d[x*4+2] = src[sx], src[sx+1], src[sx+2]
			}
			d[x*4+3] = 0xff
		}
	}
}
