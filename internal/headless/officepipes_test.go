package headless

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRemoveDeadOfficePipes: a dead socket made since the desktop began goes; a live one, an
// older one, another user's and a plain file stay.
func TestRemoveDeadOfficePipes(t *testing.T) {
	dir := t.TempDir()
	name := func(s string) string {
		return filepath.Join(dir, fmt.Sprintf("OSL_PIPE_%d_SingleOfficeIPC_%s", os.Getuid(), s))
	}
	listen := func(path string) *net.UnixListener {
		l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	dead := func(path string) {
		l := listen(path)
		l.SetUnlinkOnClose(false) // as a killed LibreOffice leaves it
		l.Close()
	}
	older := name("older")
	dead(older)
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(older, old, old); err != nil {
		t.Fatal(err)
	}
	began := time.Now().Add(-time.Minute)
	dead(name("dead"))
	live := listen(name("live"))
	defer live.Close()
	other := filepath.Join(dir, "OSL_PIPE_99999_SingleOfficeIPC_x")
	dead(other)
	plain := name("file")
	if err := os.WriteFile(plain, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	if err := removeDeadOfficePipes(dir, began); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(name("dead")); !os.IsNotExist(err) {
		t.Errorf("dead socket still there: %v", err)
	}
	for _, p := range []string{older, name("live"), other, plain} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(p), err)
		}
	}
	if err := removeDeadOfficePipes(filepath.Join(dir, "none"), began); err != nil {
		t.Errorf("missing folder: %v", err)
	}
}
