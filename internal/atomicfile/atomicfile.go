// Package atomicfile writes files so that a crash never leaves a torn one: the bytes go to a
// temporary file in the same directory, which is synced and renamed over the target.
package atomicfile

import (
	"os"
	"path/filepath"
)

// WriteFile writes data to path atomically with the given permissions, and syncs it to disk
// before the rename, so the new content survives an operating system crash too.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, true)
}

// Replace writes data to path atomically without syncing: a process crash never leaves a torn
// file, but an operating system crash may keep the previous content. It is for small files
// rewritten on every call (session.json), where an fsync would dominate the call's cost.
func Replace(path string, data []byte, perm os.FileMode) error { return write(path, data, perm, false) }

func write(path string, data []byte, perm os.FileMode, sync bool) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if sync {
		if err = f.Sync(); err != nil {
			return err
		}
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
