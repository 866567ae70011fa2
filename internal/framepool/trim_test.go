package framepool

import (
	"testing"
	"time"
)

func TestNoteSchedulesOneTrimPerBurst(t *testing.T) {
	done := make(chan struct{}, 10)
	tr := &Trimmer{free: func() { done <- struct{}{} }}
	tr.Note(MinBytes - 1)
	tr.mu.Lock()
	scheduled := tr.timer != nil
	tr.mu.Unlock()
	if scheduled {
		t.Fatal("a small allocation scheduled a trim")
	}
	for range 5 {
		tr.Note(4 << 20)
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("no trim after a burst of large allocations")
	}
	if n := tr.Trims(); n != 1 {
		t.Fatalf("trims = %d, want 1", n)
	}
	// A later burst trims again.
	tr.Note(MinBytes)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("no trim after the second burst")
	}
}

func TestDefaultTrimFrees(t *testing.T) {
	tr := &Trimmer{}
	tr.run() // debug.FreeOSMemory: must simply not fail
	if tr.Trims() != 1 {
		t.Fatal("trim not counted")
	}
}

// Only the process's trimmer drops the pool's idle buffers.
func TestOnlyDefaultTrimDrops(t *testing.T) {
	Drop()
	Release(NewRGBA(16, 16))
	tr := Trimmer{free: func() {}}
	tr.run()
	if Idle() != 1 {
		t.Fatalf("%d idle buffers after a private trimmer's trim, want 1", Idle())
	}
	Default.mu.Lock()
	old := Default.free
	Default.free = func() {}
	Default.mu.Unlock()
	t.Cleanup(func() { Default.mu.Lock(); Default.free = old; Default.mu.Unlock() })
	Default.run()
	if Idle() != 0 {
		t.Errorf("%d idle buffers after the process's trim", Idle())
	}
}
