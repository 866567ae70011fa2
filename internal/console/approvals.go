package console

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/mcec/mcec/internal/consent"
)

// Approvals is the consent broker as the console answers it (consent.Broker): a prompter like
// `mcec consent` and the on-screen dialog (the first answer wins), present while a page is open
// (Attend), plus the grants in force, which only the console lists and takes back.
type Approvals interface {
	consent.Prompter
	Attend() (leave func())
	Grants() consent.Grants
	Revoke(name string) bool
	RevokeFor(scope consent.Scope, session, name string) bool
}

// questionEvent is what an event stream sends about a consent question: open (with the
// question) or closed (answered anywhere, timed out, or withdrawn).
type questionEvent struct {
	Open     bool              `json:"open"`
	Question *consent.Question `json:"question,omitempty"`
	ID       string            `json:"id"`
}

// watchQuestions sends each consent question as it opens and again when it closes, until ctx
// ends.
func (s *Server) watchQuestions(ctx context.Context, out chan<- questionEvent) {
	last := ""
	for {
		q, err := s.opts.Consent.Next(ctx, last)
		if err != nil {
			return
		}
		last = q.ID
		select {
		case out <- questionEvent{Open: true, Question: &q, ID: q.ID}:
		case <-ctx.Done():
			return
		}
		if s.opts.Consent.WaitClosed(ctx, q.ID) != nil {
			return
		}
		select {
		case out <- questionEvent{ID: q.ID}:
		case <-ctx.Done():
			return
		}
	}
}

// answerRequest is POST /api/answer's body.
type answerRequest struct {
	ID     string         `json:"id"`
	Answer consent.Answer `json:"answer"`
}

// answer delivers the operator's decision on an open question.
func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	var a answerRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&a); err != nil {
		http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	switch err := s.opts.Consent.Answer(a.ID, a.Answer); {
	case errors.Is(err, consent.ErrClosed):
		http.Error(w, err.Error(), http.StatusConflict)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.log.Warn("console: the operator answered a consent question", "id", a.ID, "answer", string(a.Answer))
	s.state(w, r)
}

// revokeRequest is POST /api/revoke's body: a command name (with the scope and session of a
// grant for one session), or AnyLater for grant-any-later.
type revokeRequest struct {
	Command  string        `json:"command"`
	Scope    consent.Scope `json:"scope,omitempty"`
	Session  string        `json:"session,omitempty"`
	AnyLater bool          `json:"anyLater"`
}

// revoke takes a grant back.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	var a revokeRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&a); err != nil {
		http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	name := a.Command
	if a.AnyLater == (name != "") {
		http.Error(w, "name one command, or anyLater alone", http.StatusBadRequest)
		return
	}
	if !s.opts.Consent.RevokeFor(a.Scope, a.Session, name) {
		http.Error(w, "nothing to revoke: it is not granted (configuration and --allow-all are not grants)", http.StatusConflict)
		return
	}
	s.log.Warn("console: the operator revoked a grant", "command", name, "scope", string(a.Scope), "session", a.Session, "anyLater", a.AnyLater)
	s.state(w, r)
}
