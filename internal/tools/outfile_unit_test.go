package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// A file that appears between outFile's look and the write is not replaced without overwrite.
func TestWriteOutFileNeverReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shot.png")
	if err := os.WriteFile(path, []byte("theirs"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeOutFile(path, []byte("ours"), false); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("write over an existing file: %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "theirs" {
		t.Fatalf("the file holds %q", b)
	}
	if err := writeOutFile(path, []byte("ours"), true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "ours" {
		t.Fatalf("overwrite left %q", b)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
}
