package session

import (
	"path/filepath"
	"testing"
)

func TestArtifactPathNaming(t *testing.T) {
	st := NewStore(Options{Root: t.TempDir(), Now: fixedClock()})
	s := st.Start()
	c, err := s.SaveCapture([]byte("png"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.ArtifactPath("record", "gif")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(r) != filepath.Dir(c) {
		t.Errorf("%s is not in the artifact directory %s", r, filepath.Dir(c))
	}
	// Named artifacts share the captures' sequence, so names never collide.
	if got, want := filepath.Base(r), "record-20260701-101502123-2.gif"; got != want {
		t.Errorf("name %s, want %s", got, want)
	}

	noRoot := NewStore(Options{}).Start()
	if _, err := noRoot.ArtifactPath("record", "gif"); err == nil {
		t.Error("a store without a root gave a path")
	}
}
