package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
)

// outFile resolves a file argument of a tool that writes one (capture's and record's file).
// An agent names the file, so it may only land where the operator lets mcec write: the
// session's artifact directory (a relative name is taken inside it). Anywhere else fails
// path-not-allowed, since capture is read-only and served while a consent question is open; an
// existing file fails file-exists unless overwrite. The parent must exist. The returned path is
// absolute, its directory with symbolic links resolved, so a link cannot lead the write out.
func outFile(call *catalog.Call, file string, overwrite bool) (string, error) {
	if call == nil || call.Session == nil {
		return "", contract.Errorf(contract.CodePathNotAllowed, "file %q: this call has no session, so no artifact directory to write in", file)
	}
	root, err := call.Session.ArtifactDir()
	if err != nil {
		return "", contract.Errorf(contract.CodePathNotAllowed, "file %q: the session has no artifact directory: %v", file, err)
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return "", contract.Errorf(contract.CodePathNotAllowed, "file %q: the artifact directory: %v", file, err)
	}
	path := file
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	path = filepath.Clean(path)
	base := filepath.Base(path)
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return "", contract.Errorf(contract.CodePathNotAllowed, "file %q: its directory does not exist inside the session's artifact directory %s", file, root)
	}
	path = filepath.Join(dir, base)
	if rel, err := filepath.Rel(root, path); err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", contract.Errorf(contract.CodePathNotAllowed,
			"file %q lies outside the session's artifact directory %s; files are written only there (give a plain name such as %q)", file, root, base)
	}
	if reservedName(root, path) {
		return "", contract.Errorf(contract.CodePathNotAllowed,
			"file %q would replace the session's own evidence (its trace, session.json, a capture or recording mcec wrote); choose another name", file)
	}
	if st, err := os.Lstat(path); err == nil && !overwrite {
		return "", contract.Errorf(contract.CodeFileExists, "file %q exists (%s); pass overwrite: true to replace it, or another name", file, st.Mode().Type())
	}
	return path, nil
}

// evidenceNames are the files the evidence recorder keeps in an artifact directory.
var evidenceNames = []string{"tool-calls.jsonl", "session.json", "environment.json", "failure-summary.md"}

// reservedName reports a path directly in the artifact directory that mcec writes itself: an
// agent's overwrite must not rewrite the evidence of its own calls.
func reservedName(root, path string) bool {
	if filepath.Dir(path) != root {
		return false
	}
	base := filepath.Base(path)
	if slices.Contains(evidenceNames, base) {
		return true
	}
	return (strings.HasPrefix(base, "capture-") && strings.HasSuffix(base, ".png")) ||
		(strings.HasPrefix(base, "record-") && strings.HasSuffix(base, ".gif")) ||
		(strings.HasPrefix(base, "frame-") && strings.HasSuffix(base, ".jpg"))
}

// writeOutFile writes data to path atomically (a temporary file renamed into place). Without
// overwrite the rename refuses an existing target, so a file created since outFile looked is
// never replaced either.
func writeOutFile(path string, data []byte, overwrite bool) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(tmp)
		return err
	}
	if overwrite {
		err = os.Rename(tmp, path)
	} else {
		err = renameNoReplace(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// renameNoReplace renames without replacing: renameat2(RENAME_NOREPLACE), or a hard link where
// the filesystem lacks it.
func renameNoReplace(from, to string) error {
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		if err = os.Link(from, to); err == nil {
			return os.Remove(from)
		}
		return err
	}
	if errors.Is(err, unix.EEXIST) {
		return fmt.Errorf("%s: %w (created meanwhile; pass overwrite: true to replace it)", to, fs.ErrExist)
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}
