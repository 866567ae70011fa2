package daemon

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcec/mcec/internal/console"
	"github.com/mcec/mcec/internal/evidence"
	"github.com/mcec/mcec/internal/traceview"
)

// maxReviewed is how many of the newest session directories the console lists.
const maxReviewed = 100

// review is the console's view of the sessions directory (console.Review): the sessions
// recorded there, by this server and earlier ones, and each one's trace viewer page.
type review struct {
	root     string
	recorder *evidence.Recorder
}

func (r review) Sessions() ([]console.RecordedSession, error) {
	list, err := evidence.List(r.root, maxReviewed)
	if err != nil {
		return nil, err
	}
	out := make([]console.RecordedSession, 0, len(list))
	for _, s := range list {
		rs := console.RecordedSession{Name: s.Name, ID: s.ID(), Live: r.recorder.Recording(s.Name)}
		if sj := s.Session; sj != nil {
			rs.StartedAt, rs.Calls, rs.Failures = sj.StartedAt, sj.Calls, sj.Failures
		}
		out = append(out, rs)
	}
	return out, nil
}

func (r review) WriteView(w io.Writer, name string) error {
	// Only a session directory's own name: never a path out of the sessions root.
	if !evidence.IsSessionDir(name) {
		return fs.ErrNotExist
	}
	dir := filepath.Join(r.root, name)
	if _, err := os.Stat(filepath.Join(dir, evidence.TraceFile)); err != nil {
		return fs.ErrNotExist // no such session, or one that has recorded no call yet
	}
	b, err := evidence.Open(dir)
	if err != nil {
		return err
	}
	return traceview.Build(b).Write(w)
}
