package console

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"time"
)

// Review gives the console the recorded sessions and their trace viewer pages (the composition
// root implements it over the sessions directory and internal/traceview, so the console itself
// never reads evidence).
type Review interface {
	// Sessions lists the recorded sessions, newest first.
	Sessions() ([]RecordedSession, error)
	// WriteView writes the self-contained viewer page of the session directory named name (a
	// name Sessions gave); fs.ErrNotExist when there is no such session.
	WriteView(w io.Writer, name string) error
}

// RecordedSession is one session directory as the console lists it.
type RecordedSession struct {
	Name      string    `json:"name"` // the directory's name, the key of its page
	ID        string    `json:"id"`
	StartedAt time.Time `json:"startedAt"`
	Calls     int       `json:"calls"`
	Failures  int       `json:"failures"`
	// Live: the session is still open in this server.
	Live bool `json:"live"`
}

func (s *Server) sessions(w http.ResponseWriter, _ *http.Request) {
	list, err := s.opts.Review.Sessions()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if list == nil {
		list = []RecordedSession{}
	}
	writeJSON(w, list)
}

// view serves one session's trace viewer page. The page is the same file `mcec view` writes:
// it needs no script, so it is served with none allowed.
func (s *Server) view(w http.ResponseWriter, r *http.Request) {
	var page bytes.Buffer
	err := s.opts.Review.WriteView(&page, r.PathValue("name"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		http.Error(w, "no such session", http.StatusNotFound)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; img-src data:; style-src 'unsafe-inline'")
	_, _ = w.Write(page.Bytes())
}
