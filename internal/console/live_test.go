package console

import (
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"mime"
	"mime/multipart"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/estop"
)

// paintedScreen is a Screen whose picture the test paints.
type paintedScreen struct {
	mu  sync.Mutex
	img *image.RGBA
}

func (p *paintedScreen) Grab(context.Context) (*image.RGBA, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := *p.img
	c.Pix = append([]byte(nil), p.img.Pix...)
	return &c, nil
}

func (p *paintedScreen) paint(c color.RGBA) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			p.img.SetRGBA(x, y, c)
		}
	}
}

// TestLiveView: nothing is grabbed while nobody watches; a viewer gets a first frame, then a
// frame only when the screen changed; grabbing stops when the viewer leaves.
func TestLiveView(t *testing.T) {
	screen := &paintedScreen{img: image.NewRGBA(image.Rect(0, 0, 64, 40))}
	screen.paint(color.RGBA{R: 200, A: 255})
	s := New(Options{Stop: estop.New(estop.Options{}), Screen: screen})
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	c := login(t, s)

	time.Sleep(3 * liveInterval) // a live view that ran without a viewer would have grabbed by now
	if g, f := s.LiveStats(); g != 0 || f != 0 {
		t.Fatalf("nobody watches, yet %d grabs and %d frames were made", g, f)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+s.Addr()+"/api/live", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	mt, params, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/x-mixed-replace" {
		t.Fatalf("content type %q: %v", resp.Header.Get("Content-Type"), err)
	}
	parts := multipart.NewReader(resp.Body, params["boundary"])
	frame := func() color.Color {
		t.Helper()
		p, err := parts.NextPart()
		if err != nil {
			t.Fatalf("next frame: %v", err)
		}
		img, err := jpeg.Decode(p)
		if err != nil {
			t.Fatalf("frame: %v", err)
		}
		if b := img.Bounds(); b.Dx() != 64 || b.Dy() != 40 || p.Header.Get("X-Screen") != "0,0,64,40" {
			t.Errorf("frame of %v, X-Screen %q", b, p.Header.Get("X-Screen"))
		}
		return img.At(10, 10)
	}
	if r, _, _, _ := frame().RGBA(); r>>8 < 150 {
		t.Errorf("the first frame is not the red screen")
	}
	// The screen does not change: the view keeps looking, and sends nothing.
	deadline := time.Now().Add(10 * time.Second)
	for g, _ := s.LiveStats(); g < 4; g, _ = s.LiveStats() {
		if time.Now().After(deadline) {
			t.Fatal("the live view stopped looking at the screen")
		}
		time.Sleep(liveInterval / 4)
	}
	if _, f := s.LiveStats(); f != 1 {
		t.Errorf("%d frames encoded for a screen that did not change, want 1", f)
	}
	// The first frame went once more, a tick later (a browser shows a part only once the next
	// one begins), without a second encoding.
	if r, _, _, _ := frame().RGBA(); r>>8 < 150 {
		t.Errorf("the repeat of the first frame is not red")
	}
	if _, f := s.LiveStats(); f != 1 {
		t.Errorf("%d frames encoded, want 1", f)
	}
	screen.paint(color.RGBA{B: 200, A: 255})
	if _, _, b, _ := frame().RGBA(); b>>8 < 150 {
		t.Errorf("the frame after the change is not blue")
	}

	resp.Body.Close()
	cancel()
	// The stream notices its viewer left within a tick or two; then the grabs stop.
	for deadline := time.Now().Add(10 * time.Second); ; {
		g1, _ := s.LiveStats()
		time.Sleep(3 * liveInterval)
		g2, _ := s.LiveStats()
		if g2 == g1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still grabbing 10 s after the viewer left: %d, then %d", g1, g2)
		}
	}
}
