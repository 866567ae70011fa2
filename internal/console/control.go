package console

import (
	"context"
	"net/http"
	"time"

	"github.com/mcec/mcec/internal/takeover"
)

// Control is the operator's take-over as the console drives it (takeover.Control).
type Control interface {
	Take(ctx context.Context, how string) (takeover.Status, error)
	HandBack(how string) (takeover.Status, bool)
	Status() takeover.Status
}

// takeLimit bounds waiting for an agent's gesture in progress before the operator has control.
const takeLimit = 10 * time.Second

// takeControl gives the operator control: agents' actions are refused from now on.
func (s *Server) takeControl(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), takeLimit)
	defer cancel()
	if _, err := s.opts.Control.Take(ctx, howConsole); err != nil {
		http.Error(w, "mcec's input stayed busy for 10 s (an agent's gesture still running, or a consent question "+
			"waiting for an answer): answer the question, or press Stop to abort the gesture, then take control again", http.StatusConflict)
		return
	}
	s.log.Warn("console: the operator took control")
	s.state(w, r)
}

// handBack returns control to the agents.
func (s *Server) handBack(w http.ResponseWriter, r *http.Request) {
	if _, had := s.opts.Control.HandBack(howConsole); had {
		s.log.Warn("console: the operator handed control back")
	}
	s.state(w, r)
}
