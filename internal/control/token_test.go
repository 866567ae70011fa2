package control

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTokenFile(t *testing.T) {
	run := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", run)
	if got := ReadToken(5151); got != "" {
		t.Fatalf("ReadToken before any server: %q", got)
	}
	p, err := PublishToken(5151, "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(run, "mcec", "token-5151"); p.Path() != want {
		t.Errorf("path %s, want %s", p.Path(), want)
	}
	fi, err := os.Stat(p.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	di, _ := os.Stat(filepath.Dir(p.Path()))
	if di.Mode().Perm() != 0o700 {
		t.Errorf("token directory mode %v, want 0700", di.Mode().Perm())
	}
	if got := ReadToken(5151); got != "s3cret" {
		t.Errorf("ReadToken = %q, want the published token", got)
	}
	if got := ReadToken(5152); got != "" {
		t.Errorf("ReadToken of another port = %q", got)
	}
	p.Remove()
	p.Remove() // idempotent
	if _, err := os.Stat(p.Path()); !os.IsNotExist(err) {
		t.Errorf("token file still there after Remove: %v", err)
	}
	if got := ReadToken(5151); got != "" {
		t.Errorf("ReadToken after Remove = %q", got)
	}
}

// A server killed outright leaves its file without a lock: clients ignore it and the next
// server's publication removes it.
func TestStaleTokenFile(t *testing.T) {
	run := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", run)
	dir := filepath.Join(run, "mcec")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, "token-7000")
	if err := os.WriteFile(stale, []byte("dead\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := ReadToken(7000); got != "" {
		t.Errorf("ReadToken of a file no server holds = %q", got)
	}
	p, err := PublishToken(7001, "live")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Remove()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale token file not swept: %v", err)
	}
	// A file of a running server is not swept by another's publication.
	q, err := PublishToken(7002, "other")
	if err != nil {
		t.Fatal(err)
	}
	defer q.Remove()
	if got := ReadToken(7001); got != "live" {
		t.Errorf("ReadToken(7001) = %q after another server published", got)
	}
}

// A token file others can read is not trusted (and never written so).
func TestTokenFileReadableByOthersIsIgnored(t *testing.T) {
	run := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", run)
	p, err := PublishToken(7100, "tok")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Remove()
	if err := os.Chmod(p.Path(), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := ReadToken(7100); got != "" {
		t.Errorf("ReadToken of a world-readable file = %q", got)
	}
}

func TestPublishRefusesAnOpenDirectory(t *testing.T) {
	run := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", run)
	t.Setenv("TMPDIR", t.TempDir())
	dir := filepath.Join(run, "mcec")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	p, err := PublishToken(7200, "tok")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Remove()
	if filepath.Dir(p.Path()) == dir {
		t.Errorf("published into a directory others can write: %s", p.Path())
	}
}
