package console

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"net/http"
	"sync/atomic"
	"time"
)

// Screen grabs the whole desktop for the live view (the daemon's capture of the virtual
// screen). The console draws its overlays in the page, over the picture, so nothing of them
// is ever on the desktop, where an agent's capture would see it.
type Screen interface {
	Grab(ctx context.Context) (*image.RGBA, error)
}

// Live view pacing: the screen is looked at liveInterval apart while a viewer is connected,
// and a frame is sent only when the pixels changed since the last one sent (or keepFrameEvery
// passed, so a proxy or the page can tell a still desktop from a dead stream).
const (
	liveInterval   = 200 * time.Millisecond
	keepFrameEvery = 10 * time.Second
	liveQuality    = 70
	frameBoundary  = "mcecframe"
)

// liveStats counts what the live view cost: grabs made and frames sent (make bench, tests).
type liveStats struct {
	grabs, frames atomic.Int64
}

// LiveCount is LiveStats in the console's state (make bench reads it).
type LiveCount struct {
	Grabs  int64 `json:"grabs"`
	Frames int64 `json:"frames"`
}

// LiveStats reports how many times the live view looked at the screen and how many frames it
// encoded and sent, since the console started. Both stay 0 while nobody watches.
func (s *Server) LiveStats() (grabs, frames int64) {
	return s.live.grabs.Load(), s.live.frames.Load()
}

// liveView streams the desktop as multipart/x-mixed-replace JPEG frames, which an <img> shows
// as they come: grabs only while this request is open, frames only when something changed.
func (s *Server) liveView(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "multipart/x-mixed-replace; boundary="+frameBoundary)
	ctx := r.Context()
	tick := time.NewTicker(liveInterval)
	defer tick.Stop()
	if _, err := fmt.Fprintf(w, "--%s\r\n", frameBoundary); err != nil {
		return
	}
	var (
		last     []byte // the pixels of the last frame sent
		lastSent time.Time
		buf      bytes.Buffer // the last frame, encoded
		bounds   image.Rectangle
		repeat   bool // the last frame is to be sent once more
	)
	write := func() bool {
		_, err := fmt.Fprintf(w, "Content-Type: image/jpeg\r\nContent-Length: %d\r\nX-Screen: %d,%d,%d,%d\r\n\r\n",
			buf.Len(), bounds.Min.X, bounds.Min.Y, bounds.Dx(), bounds.Dy())
		if err == nil {
			_, err = w.Write(buf.Bytes())
		}
		if err == nil {
			// The next part's boundary goes out with this frame, so the part is complete.
			_, err = fmt.Fprintf(w, "\r\n--%s\r\n", frameBoundary)
		}
		flusher.Flush()
		return err == nil
	}
	for {
		img, err := s.opts.Screen.Grab(ctx)
		s.live.grabs.Add(1)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			s.log.Debug("console: live view grab failed", "err", err)
		case !bytes.Equal(img.Pix, last) || time.Since(lastSent) >= keepFrameEvery:
			buf.Reset()
			if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: liveQuality}); err != nil {
				s.log.Warn("console: live view encoding failed", "err", err)
				return
			}
			bounds = img.Bounds()
			if !write() {
				return
			}
			s.live.frames.Add(1)
			last = append(last[:0], img.Pix...)
			lastSent, repeat = time.Now(), true
		case repeat:
			// Chromium shows a part of the stream only once the next part has begun, so a
			// frame after which the screen stays still would not be shown until the next
			// change: the same bytes go once more, a tick later (no new grab or encoding).
			if !write() {
				return
			}
			repeat = false
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
