package evidence

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/mcec/mcec/internal/atomicfile"
)

// maxBundleFile bounds what is read of one file of a bundle (a trace is capped far below it).
const maxBundleFile = 64 << 20

var sessionIDPattern = regexp.MustCompile(`^s-[0-9a-f]+$`)

// Locate resolves what a user typed for a session: an existing path (a session directory or a
// bundle zip), or a session id looked up under root.
func Locate(root, arg string) (string, error) {
	if _, err := os.Stat(arg); err == nil {
		return arg, nil
	}
	if !sessionIDPattern.MatchString(arg) {
		return "", fmt.Errorf("%q is neither a session directory, a bundle nor a session id (s-…)", arg)
	}
	matches, err := filepath.Glob(filepath.Join(root, "*-"+arg))
	if err != nil {
		return "", err
	}
	var dirs []string
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && fi.IsDir() && sessionDirName.MatchString(filepath.Base(m)) {
			dirs = append(dirs, m)
		}
	}
	switch len(dirs) {
	case 0:
		return "", fmt.Errorf("no directory for session %s under %s", arg, root)
	case 1:
		return dirs[0], nil
	default:
		return "", fmt.Errorf("session %s has %d directories under %s: name one", arg, len(dirs), root)
	}
}

// Zip writes the session directory dir as a zip at out (atomically), its files under a folder
// named like the directory. Temporary files of interrupted atomic writes are left out. It
// returns the number of files written.
func Zip(dir, out string) (int, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return 0, err
	}
	if !fi.IsDir() {
		return 0, fmt.Errorf("%s is not a directory", dir)
	}
	base := filepath.Base(filepath.Clean(dir))
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	n := 0
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != dir {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h, err := zip.FileInfoHeader(info)
		if err != nil {
			return err
		}
		h.Name = path.Join(base, filepath.ToSlash(rel))
		h.Method = zip.Deflate
		if strings.HasSuffix(p, ".png") {
			h.Method = zip.Store // already compressed
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := io.Copy(w, f); err != nil {
			return err
		}
		n++
		return nil
	})
	if err != nil {
		return 0, err
	}
	if err := zw.Close(); err != nil {
		return 0, err
	}
	return n, atomicfile.WriteFile(out, buf.Bytes(), 0o600)
}

// Bundle is a recorded session read from a session directory or a bundle zip.
type Bundle struct {
	// Name is the session directory's name.
	Name    string
	Trace   []byte
	Session *SessionJSON // nil when session.json is missing or unreadable
	// Files names the files beside the trace (captures, failure-summary.md …), sorted.
	Files []string

	src   string
	isZip bool
}

// Open reads a session directory or a bundle zip.
func Open(p string) (*Bundle, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	read := func(name string) ([]byte, error) { return readLimited(filepath.Join(p, name)) }
	b := &Bundle{Name: filepath.Base(filepath.Clean(p)), src: p, isZip: !fi.IsDir()}
	if b.isZip {
		zr, err := zip.OpenReader(p)
		if err != nil {
			return nil, fmt.Errorf("%s is neither a session directory nor a zip bundle: %w", p, err)
		}
		defer zr.Close()
		files := zipFiles(zr)
		if f, ok := files[TraceFile]; ok && path.Dir(f.Name) != "." {
			b.Name = path.Dir(f.Name)
		}
		read = func(name string) ([]byte, error) { return readZipFile(files, name) }
		for name := range files {
			b.Files = append(b.Files, name)
		}
	} else if entries, err := os.ReadDir(p); err == nil {
		for _, e := range entries {
			if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") {
				b.Files = append(b.Files, e.Name())
			}
		}
	}
	b.Files = slices.DeleteFunc(b.Files, func(n string) bool { return n == TraceFile || n == SessionFile })
	slices.Sort(b.Files)
	b.Trace, err = read(TraceFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s holds no %s", p, TraceFile)
	}
	if err != nil {
		return nil, err
	}
	if sj, err := read(SessionFile); err == nil {
		var s SessionJSON
		if json.Unmarshal(sj, &s) == nil {
			b.Session = &s
		}
	}
	return b, nil
}

// ReadFile reads one file of the bundle by its name (a plain name, as in Files), at most 64 MiB.
func (b *Bundle) ReadFile(name string) ([]byte, error) {
	if name == "" || name != path.Base(name) || name == "." || name == ".." || strings.Contains(name, `\`) {
		return nil, fmt.Errorf("%q is not a file name of the bundle", name)
	}
	if !b.isZip {
		return readLimited(filepath.Join(b.src, name))
	}
	zr, err := zip.OpenReader(b.src)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	return readZipFile(zipFiles(zr), name)
}

// zipFiles indexes a bundle zip's files by their base name: a bundle holds one session folder,
// and of names repeated in several folders the first wins.
func zipFiles(zr *zip.ReadCloser) map[string]*zip.File {
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue
		}
		name := path.Base(f.Name)
		if _, dup := files[name]; !dup {
			files[name] = f
		}
	}
	return files
}

func readZipFile(files map[string]*zip.File, name string) ([]byte, error) {
	f, ok := files[name]
	if !ok {
		return nil, fs.ErrNotExist
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return readAllLimited(rc)
}

func readLimited(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAllLimited(f)
}

func readAllLimited(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxBundleFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxBundleFile {
		return nil, fmt.Errorf("file larger than %d bytes", maxBundleFile)
	}
	return b, nil
}

// Verify checks the bundle's trace against its hash chain and the anchor in session.json.
func (b *Bundle) Verify() (*Verified, error) {
	var anchor *Anchor
	if b.Session != nil && b.Session.Trace.Head != "" {
		a := b.Session.Trace.Anchor
		anchor = &a
	}
	return Verify(bytes.NewReader(b.Trace), anchor)
}
