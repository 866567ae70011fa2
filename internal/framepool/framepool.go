// Package framepool owns the memory of captured frames: it reuses their pixel buffers and hands
// memory back to the operating system after a burst of captures. A 1280x800 frame is 4 MB;
// allocated afresh per capture it cost page faults and zeroing on every call and a garbage
// collection every few calls (internal/dev/bench/findings.md). The pool keeps a couple of idle
// buffers and drops them when a burst of large allocations ends, just before the trim
// (trim.go) returns them to the operating system.
package framepool

import (
	"image"
	"sync"
)

const (
	// maxIdle is how many idle buffers the pool keeps: one per capture in flight is typical.
	maxIdle = 2
	// maxIdleBytes bounds what idle buffers may hold in all.
	maxIdleBytes = 80 << 20
)

var pool struct {
	mu    sync.Mutex
	free  [][]byte
	bytes int
}

// NewRGBA returns a w x h image whose pixels are NOT cleared: the caller must write every one.
// Release gives its buffer back once nothing refers to it any more.
func NewRGBA(w, h int) *image.RGBA {
	n := 4 * w * h
	return &image.RGBA{Pix: get(n), Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}
}

// Release returns img's buffer to the pool. The caller guarantees that nothing uses img, or any
// sub-image sharing its pixels, afterwards. img must be the whole image (Pix from its start),
// not a sub-image; nil is ignored.
func Release(img *image.RGBA) {
	if img == nil || cap(img.Pix) == 0 {
		return
	}
	b := img.Pix[:cap(img.Pix)]
	img.Pix = nil
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if len(pool.free) >= maxIdle || pool.bytes+len(b) > maxIdleBytes {
		return
	}
	pool.free = append(pool.free, b)
	pool.bytes += len(b)
}

// Drop forgets every idle buffer, so the garbage collector can free them.
func Drop() {
	pool.mu.Lock()
	clear(pool.free)
	pool.free, pool.bytes = pool.free[:0], 0
	pool.mu.Unlock()
}

// Idle reports how many buffers the pool holds.
func Idle() int {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	return len(pool.free)
}

// get returns a buffer of length n: the smallest idle one that fits, or a new one. A buffer much
// larger than n is not used, so one big capture does not pin its size for small ones.
func get(n int) []byte {
	pool.mu.Lock()
	best := -1
	for i, b := range pool.free {
		if len(b) >= n && len(b) <= 2*n+64<<10 && (best < 0 || len(b) < len(pool.free[best])) {
			best = i
		}
	}
	if best >= 0 {
		b := pool.free[best]
		last := len(pool.free) - 1
		pool.free[best] = pool.free[last]
		pool.free[last] = nil
		pool.free = pool.free[:last]
		pool.bytes -= len(b)
		pool.mu.Unlock()
		return b[:n]
	}
	pool.mu.Unlock()
	return make([]byte, n)
}
