package queue

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/mcec/mcec/internal/platform"
)

// fakeDesktop records input calls; block, when set, holds every call until it is closed.
type fakeDesktop struct {
	platform.Desktop
	mu    sync.Mutex
	calls []string
	held  map[string]bool
	block chan struct{}
}

func newFake() *fakeDesktop { return &fakeDesktop{held: map[string]bool{}} }

func (f *fakeDesktop) Input() platform.Input { return fakeInput{f} }

func (f *fakeDesktop) Displays(context.Context) (platform.Displays, error) {
	return platform.Displays{VirtualBounds: platform.Rect{Width: 1280, Height: 800}}, nil
}

func (f *fakeDesktop) record(ctx context.Context, format string, args ...any) error {
	f.mu.Lock()
	b := f.block
	f.mu.Unlock()
	if b != nil {
		select {
		case <-b:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
	return nil
}

func (f *fakeDesktop) log() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeDesktop) heldNow() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for k, v := range f.held {
		if v {
			out = append(out, k)
		}
	}
	return out
}

type fakeInput struct{ f *fakeDesktop }

func (i fakeInput) Click(ctx context.Context, p platform.Point, b platform.Button, n int) error {
	return i.f.record(ctx, "click %d,%d b%d x%d", p.X, p.Y, b, n)
}
func (i fakeInput) Drag(ctx context.Context, path []platform.Point, b platform.Button) error {
	return i.f.record(ctx, "drag %v", path)
}
func (i fakeInput) Chord(ctx context.Context, keys ...string) error {
	return i.f.record(ctx, "chord %s", strings.Join(keys, "+"))
}
func (i fakeInput) Type(ctx context.Context, text string) error {
	return i.f.record(ctx, "type %s", text)
}
func (i fakeInput) Held(context.Context) ([]string, error) { return i.f.heldNow(), nil }
func (i fakeInput) Press(ctx context.Context, key string) error {
	i.f.mu.Lock()
	i.f.held[key] = true
	i.f.mu.Unlock()
	return i.f.record(ctx, "press %s", key)
}
func (i fakeInput) Release(ctx context.Context, key string) error {
	i.f.mu.Lock()
	i.f.held[key] = false
	i.f.mu.Unlock()
	return i.f.record(ctx, "release %s", key)
}
func (i fakeInput) ButtonDown(ctx context.Context, p platform.Point, b platform.Button) error {
	i.f.mu.Lock()
	i.f.held[fmt.Sprintf("button%d", b)] = true
	i.f.mu.Unlock()
	return i.f.record(ctx, "down b%d", b)
}
func (i fakeInput) ButtonUp(ctx context.Context, p platform.Point, b platform.Button) error {
	i.f.mu.Lock()
	i.f.held[fmt.Sprintf("button%d", b)] = false
	i.f.mu.Unlock()
	return i.f.record(ctx, "up b%d", b)
}
func (i fakeInput) MoveTo(ctx context.Context, p platform.Point) error {
	return i.f.record(ctx, "move %d,%d", p.X, p.Y)
}
func (i fakeInput) Pointer(context.Context) (platform.Point, error) {
	return platform.Point{X: 10, Y: 10}, nil
}
func (i fakeInput) Scroll(ctx context.Context, dx, dy int) error {
	return i.f.record(ctx, "scroll %d,%d", dx, dy)
}
