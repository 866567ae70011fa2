package evidence

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"
)

// Retention defaults.
const (
	DefaultMaxAge   = 7 * 24 * time.Hour
	DefaultMaxBytes = 1 << 30
)

// Retention bounds the sessions directory. Zero fields mean the defaults; negative ones switch
// that limit off.
type Retention struct {
	// MaxAge: a session directory untouched for longer is removed.
	MaxAge time.Duration
	// MaxBytes: while the session directories together are larger, the least recently touched
	// ones are removed.
	MaxBytes int64
}

func (r Retention) withDefaults() Retention {
	if r.MaxAge == 0 {
		r.MaxAge = DefaultMaxAge
	}
	if r.MaxBytes == 0 {
		r.MaxBytes = DefaultMaxBytes
	}
	return r
}

// sessionDirName matches <yyyyMMdd-HHmmss>-<sessionId>: Prune never touches anything else.
var sessionDirName = regexp.MustCompile(`^[0-9]{8}-[0-9]{6}-s-[0-9a-f]+$`)

// Prune removes session directories under root that are older than ret.MaxAge (by their last
// modification, which every recorded call updates), then the least recently modified ones while
// the total passes ret.MaxBytes. Directories for which keep returns true (live sessions) are never
// removed. It returns the removed directories.
func Prune(root string, ret Retention, now time.Time, keep func(dirName string) bool) ([]string, error) {
	ret = ret.withDefaults()
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	type dir struct {
		path  string
		mod   time.Time
		bytes int64
		keep  bool
	}
	var dirs []dir
	var total int64
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || !sessionDirName.MatchString(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		d := dir{path: filepath.Join(root, e.Name()), mod: info.ModTime(), keep: keep != nil && keep(e.Name())}
		d.bytes = dirSize(d.path)
		total += d.bytes
		dirs = append(dirs, d)
	}
	sort.Slice(dirs, func(i, j int) bool { return dirs[i].mod.Before(dirs[j].mod) })
	var removed []string
	for _, d := range dirs {
		if d.keep {
			continue
		}
		old := ret.MaxAge > 0 && now.Sub(d.mod) > ret.MaxAge
		big := ret.MaxBytes > 0 && total > ret.MaxBytes
		if !old && !big {
			continue
		}
		if err := os.RemoveAll(d.path); err != nil {
			errs = append(errs, err)
			continue
		}
		total -= d.bytes
		removed = append(removed, d.path)
	}
	return removed, errors.Join(errs...)
}

// dirSize sums the regular files under path (symlinks are not followed).
func dirSize(path string) int64 {
	var n int64
	_ = filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
