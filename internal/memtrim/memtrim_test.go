package memtrim

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

func TestBeforeTrimHooks(t *testing.T) {
	ran := make(chan struct{}, 1)
	BeforeTrim(func() {
		select {
		case ran <- struct{}{}:
		default:
		}
	})
	// Only the process's trimmer runs the hooks.
	tr := Trimmer{free: func() {}}
	tr.run()
	select {
	case <-ran:
		t.Fatal("a private trimmer ran the hooks")
	default:
	}
	Default.mu.Lock()
	Default.free = func() {}
	Default.mu.Unlock()
	Default.run()
	select {
	case <-ran:
	default:
		t.Fatal("the hook did not run before the trim")
	}
}
