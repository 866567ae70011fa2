package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"
)

func fixedClock() func() time.Time {
	t0 := time.Date(2026, 7, 1, 10, 15, 2, 123_000_000, time.UTC)
	return func() time.Time { return t0 }
}

func TestDefaultSessionIsShared(t *testing.T) {
	st := NewStore(Options{Root: t.TempDir()})
	a, err := st.Resolve("")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := st.Resolve("")
	if a != b {
		t.Fatal("two calls without an id got different sessions")
	}
	if !regexp.MustCompile(`^s-[0-9a-f]{12}$`).MatchString(a.ID()) {
		t.Errorf("id %q", a.ID())
	}
}

func TestLifecycle(t *testing.T) {
	st := NewStore(Options{Root: t.TempDir()})
	s := st.Start()
	if got, err := st.Resolve(s.ID()); err != nil || got != s {
		t.Fatalf("resolve started session: %v", err)
	}
	if _, already, err := st.End(s.ID()); err != nil || already {
		t.Fatalf("first end: already=%v err=%v", already, err)
	}
	if _, already, err := st.End(s.ID()); err != nil || !already {
		t.Fatalf("second end must be idempotent: already=%v err=%v", already, err)
	}
	if _, err := st.Resolve(s.ID()); !errors.Is(err, ErrUnknown) {
		t.Fatalf("ended session resolved: %v", err)
	}
	if _, _, err := st.End("s-nope"); !errors.Is(err, ErrUnknown) {
		t.Fatalf("unknown end: %v", err)
	}
	if _, err := st.Resolve("s-nope"); !errors.Is(err, ErrUnknown) {
		t.Fatalf("unknown resolve: %v", err)
	}
}

func TestEndingDefaultRollsOver(t *testing.T) {
	st := NewStore(Options{Root: t.TempDir()})
	a, _ := st.Resolve("")
	if _, _, err := st.End(""); err != nil {
		t.Fatal(err)
	}
	b, _ := st.Resolve("")
	if a.ID() == b.ID() {
		t.Fatal("default session did not roll over")
	}
}

func TestSaveCaptureNaming(t *testing.T) {
	root := t.TempDir()
	st := NewStore(Options{Root: root, Now: fixedClock()})
	s := st.Start()
	p1, err := s.SaveCapture([]byte("png1"))
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := s.SaveCapture([]byte("png2"))
	wantDir := filepath.Join(root, "20260701-101502-"+s.ID())
	if filepath.Dir(p1) != wantDir {
		t.Errorf("dir %s, want %s", filepath.Dir(p1), wantDir)
	}
	if filepath.Base(p1) != "capture-20260701-101502123-1.png" || filepath.Base(p2) != "capture-20260701-101502123-2.png" {
		t.Errorf("names %s %s", filepath.Base(p1), filepath.Base(p2))
	}
	if b, _ := os.ReadFile(p2); string(b) != "png2" {
		t.Errorf("content %q", b)
	}
}

func TestSaveCaptureWithoutRoot(t *testing.T) {
	s := NewStore(Options{}).Start()
	if _, err := s.SaveCapture([]byte("x")); err == nil {
		t.Fatal("saved without a root")
	}
}

func TestConcurrentUse(t *testing.T) {
	st := NewStore(Options{Root: t.TempDir()})
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			s, _ := st.Resolve("")
			s.Observe(map[string]int{"i": i})
			s.RecordAction(Action{Tool: "windows", OK: i%2 == 0}, map[string]string{"code": "x"})
			_ = s.Status()
			if _, err := s.SaveCapture([]byte{byte(i)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	s, _ := st.Resolve("")
	if got := s.Status(); got.Calls != 32 || got.Failures != 16 {
		t.Fatalf("calls %d failures %d", got.Calls, got.Failures)
	}
}

func TestMemos(t *testing.T) {
	s := NewStore(Options{Root: t.TempDir()}).Start()
	if s.Memo("a") != nil {
		t.Fatal("memo before any was set")
	}
	for i := range maxMemos + 2 {
		s.SetMemo(fmt.Sprint("k", i), i)
	}
	if s.Memo("k0") != nil || s.Memo("k1") != nil {
		t.Error("the oldest memos were kept beyond the bound")
	}
	s.SetMemo("k2", "again") // replacing makes it the newest
	s.SetMemo("k99", 99)
	if s.Memo("k2") != "again" || s.Memo("k3") != nil {
		t.Errorf("k2 %v, k3 %v", s.Memo("k2"), s.Memo("k3"))
	}
}

func TestRollover(t *testing.T) {
	st := NewStore(Options{Root: t.TempDir(), RolloverCalls: 3})
	def, _ := st.Resolve("")
	ex := st.Start()
	for range 3 {
		def.RecordAction(Action{Tool: "windows", OK: true}, nil)
		ex.RecordAction(Action{Tool: "windows", OK: true}, nil)
	}
	if !def.Status().Ended || def.EndReason() != EndedByRollover {
		t.Fatalf("default session after 3 calls: ended %v, reason %q", def.Status().Ended, def.EndReason())
	}
	if ex.Status().Ended {
		t.Error("an explicit session rolled over")
	}
	if next, _ := st.Resolve(""); next.ID() == def.ID() {
		t.Error("no fresh default session after the rollover")
	}
	if _, _, err := st.End(ex.ID()); err != nil || ex.EndReason() != EndedBySessionEnd {
		t.Errorf("session-end: %v, reason %q", err, ex.EndReason())
	}
}

func TestArtifactURIs(t *testing.T) {
	st := NewStore(Options{Root: t.TempDir()})
	s := st.Start()
	path, err := s.ArtifactPath("capture", "png")
	if err != nil {
		t.Fatal(err)
	}
	uri, err := s.ArtifactURI(path)
	if err != nil {
		t.Fatal(err)
	}
	id, rel, err := ParseArtifactURI(uri)
	if err != nil || id != s.ID() || rel != filepath.Base(path) {
		t.Fatalf("%s parsed as %q %q %v", uri, id, rel, err)
	}
	if _, err := s.ArtifactURI("/etc/passwd"); err == nil {
		t.Error("a file outside the directory got a URI")
	}
	for _, bad := range []string{"file:///etc/passwd", ArtifactURIPrefix + "s-1", ArtifactURIPrefix + "s-1/",
		ArtifactURIPrefix + "s-1/../s-2/x.png", ArtifactURIPrefix + "s-1//etc/passwd", ArtifactURIPrefix + "/x.png",
		ArtifactURIPrefix + `s-1/..\x`} {
		if id, rel, err := ParseArtifactURI(bad); err == nil {
			t.Errorf("%s parsed as %q %q", bad, id, rel)
		}
	}
}
