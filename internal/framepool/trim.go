package framepool

// The trim hands memory back to the operating system after bursts of large, short-lived
// allocations (captures: a 1280x800 frame is 4 MB, and its PNG, base64 and JSON copies follow).
// The Go runtime keeps freed heap for reuse and returns it only gradually, so a server that
// captured 200 frames stayed ≈ 30 MB above idle for minutes. A full trim (debug.FreeOSMemory)
// costs a garbage collection, so it runs once a burst is over, not per allocation.

import (
	"runtime/debug"
	"sync"
	"time"
)

const (
	// MinBytes is the smallest allocation worth a trim.
	MinBytes = 1 << 20
	// quiet is how long after the last large allocation the trim runs.
	quiet = time.Second
	// maxWait bounds how long a continuous stream of large allocations (recording) defers it.
	maxWait = 10 * time.Second
)

// Trimmer debounces trims. The zero value is ready to use.
type Trimmer struct {
	mu    sync.Mutex
	timer *time.Timer
	first time.Time // when the pending trim was first asked for; zero when none is pending
	trims int
	// free is what a trim runs; tests replace it.
	free func()
}

// Default is the process's trimmer. Its trims drop the pool's idle buffers first, so the trim
// returns them too.
var Default Trimmer

// Note records that n bytes of short-lived memory were just used; from MinBytes on, a trim is
// scheduled for when no such allocation has come for a second (at most ten seconds after the
// first).
func Note(n int) { Default.Note(n) }

// Note is the method behind the package's Note.
func (t *Trimmer) Note(n int) {
	if n < MinBytes {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	switch {
	case t.timer == nil:
		t.timer = time.AfterFunc(quiet, t.run)
		t.first = now
	case t.first.IsZero():
		t.timer.Reset(quiet)
		t.first = now
	case now.Sub(t.first) < maxWait:
		t.timer.Reset(quiet)
	}
}

func (t *Trimmer) run() {
	t.mu.Lock()
	t.first = time.Time{}
	t.trims++
	free := t.free
	t.mu.Unlock()
	if free == nil {
		free = debug.FreeOSMemory
	}
	if t == &Default {
		Drop()
	}
	free()
}

// Trims reports how many trims ran.
func (t *Trimmer) Trims() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.trims
}
