package framepool

import (
	"image"
	"testing"
	"time"
)

func TestReuse(t *testing.T) {
	Drop()
	a := NewRGBA(512, 256)
	if len(a.Pix) != 512*256*4 || a.Stride != 2048 || a.Bounds().Dx() != 512 || a.Bounds().Dy() != 256 {
		t.Fatalf("NewRGBA(512, 256): len %d stride %d bounds %v", len(a.Pix), a.Stride, a.Bounds())
	}
	p := &a.Pix[0]
	Release(a)
	if a.Pix != nil {
		t.Error("Release left the image its pixels")
	}
	if Idle() != 1 {
		t.Fatalf("%d idle buffers after one release, want 1", Idle())
	}
	// A slightly smaller frame reuses the buffer; its length is what was asked for.
	b := NewRGBA(500, 256)
	if &b.Pix[0] != p || len(b.Pix) != 500*256*4 {
		t.Errorf("the idle buffer was not reused (len %d)", len(b.Pix))
	}
	// A much smaller one does not pin a big buffer.
	Release(b)
	c := NewRGBA(4, 4)
	if &c.Pix[0] == p {
		t.Error("a 4x4 frame took a 512x256 buffer")
	}
	// Bigger than anything idle: a new buffer.
	d := NewRGBA(1024, 512)
	if &d.Pix[0] == p {
		t.Error("a 1024x512 frame took a 512x256 buffer")
	}
	Drop()
	if Idle() != 0 {
		t.Errorf("%d idle buffers after Drop", Idle())
	}
	Release(nil)
}

func TestBounded(t *testing.T) {
	Drop()
	defer Drop()
	var held []*image.RGBA
	for range maxIdle + 3 {
		held = append(held, NewRGBA(16, 16))
	}
	for _, img := range held {
		Release(img)
	}
	if Idle() != maxIdle {
		t.Errorf("%d idle buffers, want at most %d", Idle(), maxIdle)
	}
}

// A trim of Default, scheduled by Note, drops the idle buffers, so the memory goes back with it.
func TestTrimDrops(t *testing.T) {
	Drop()
	Release(NewRGBA(16, 16))
	// free runs once Drop has: waiting on the trim count instead could look at the pool between
	// the count and the drop.
	trimmed := make(chan struct{}, 1)
	Default.mu.Lock()
	old := Default.free
	Default.free = func() {
		select {
		case trimmed <- struct{}{}:
		default:
		}
	}
	Default.mu.Unlock()
	t.Cleanup(func() { Default.mu.Lock(); Default.free = old; Default.mu.Unlock() })
	Note(MinBytes) // schedules a trim a second from now
	select {
	case <-trimmed:
	case <-time.After(20 * time.Second):
		t.Fatal("no trim within 20s")
	}
	if Idle() != 0 {
		t.Errorf("%d idle buffers after a trim", Idle())
	}
}
