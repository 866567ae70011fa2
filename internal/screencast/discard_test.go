package screencast

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The emergency stop discards a running recording: it ends, nothing is written, the slot is
// empty; with nothing running Discard does nothing.
func TestManagerDiscard(t *testing.T) {
	m := NewManager(DefaultLimits)
	defer m.Close()
	if m.Discard() {
		t.Fatal("Discard of an empty slot reported a recording")
	}
	path := filepath.Join(t.TempDir(), "r.gif")
	rec, _, err := m.Begin(context.Background(), (&fakeSource{}).grab, Options{FPS: 5, MaxWidth: 1280, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Discard() {
		t.Fatal("Discard found no running recording")
	}
	<-rec.Done()
	if res := rec.Stop(); !errors.Is(res.WriteErr, ErrDiscarded) {
		t.Errorf("result %+v, want ErrDiscarded", res)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a discarded recording left %s (%v)", path, err)
	}
	if _, err := m.Take(); !errors.Is(err, ErrNone) {
		t.Errorf("slot after Discard: %v", err)
	}
}
