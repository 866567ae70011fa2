package evidence

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Recorded is one session directory under the sessions root.
type Recorded struct {
	Name    string       // the directory's name: <yyyyMMdd-HHmmss>-<sessionId>
	Session *SessionJSON // nil when session.json is missing or unreadable
}

// ID is the session id the directory's name ends with.
func (r Recorded) ID() string { return r.Name[strings.LastIndex(r.Name, "-s-")+1:] }

// IsSessionDir reports whether name is a session directory's name.
func IsSessionDir(name string) bool { return sessionDirName.MatchString(name) }

// List returns the newest max session directories under root, newest first (their names begin
// with the start time), each with its session.json as last checkpointed.
func List(root string, max int) ([]Recorded, error) {
	entries, err := os.ReadDir(root)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && IsSessionDir(e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	slices.Reverse(names)
	if len(names) > max {
		names = names[:max]
	}
	out := make([]Recorded, 0, len(names))
	for _, n := range names {
		r := Recorded{Name: n}
		if b, err := readLimited(filepath.Join(root, n, SessionFile)); err == nil {
			var s SessionJSON
			if json.Unmarshal(b, &s) == nil {
				r.Session = &s
			}
		}
		out = append(out, r)
	}
	return out, nil
}
