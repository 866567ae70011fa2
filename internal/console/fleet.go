package console

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// Fleet gives the console the isolated instances this server provisioned (provision-session),
// each a desktop with a console of its own. The composition root implements it over
// internal/provision: the console never starts an instance nor reaches one itself.
type Fleet interface {
	// Instances lists the live instances, oldest first.
	Instances() []Instance
	// LoginURL mints a one-time login link to instance id's own console (through that
	// instance's control socket); ErrNoInstance when no such instance is live.
	LoginURL(ctx context.Context, id string) (string, error)
}

// ErrNoInstance is Fleet.LoginURL's answer for an id that names no live instance.
var ErrNoInstance = errors.New("no such instance")

// Instance is one isolated instance as the console lists it.
type Instance struct {
	ID      string    `json:"id"`
	Started time.Time `json:"started"`
	PID     int       `json:"pid"`
	// Port is its agents' HTTP port (MCP and façade), for the operator's reference.
	Port int `json:"port"`
	// Console: it serves a console the operator can open.
	Console bool `json:"console"`
	// URL is a peer's console (Options.Peers), opened directly; its own login applies.
	URL string `json:"url,omitempty"`
}

// Peer is another console the fleet panel links to, as the operator's browser reaches it.
type Peer struct {
	Name string
	URL  string
}

// fleetLinkTimeout bounds the round trip to an instance's control socket for a login link.
const fleetLinkTimeout = 5 * time.Second

func (s *Server) fleet(w http.ResponseWriter, _ *http.Request) {
	list := []Instance{}
	for _, p := range s.opts.Peers {
		list = append(list, Instance{ID: p.Name, Console: true, URL: p.URL})
	}
	if s.opts.Fleet != nil {
		list = append(list, s.opts.Fleet.Instances()...)
	}
	writeJSON(w, list)
}

// openInstance sends the operator's browser to the instance's own console with a fresh one-time
// link: the operator logs in there once, as here, and each console keeps its own cookie (the
// cookie's name carries the port, so one does not replace the other on 127.0.0.1). A GET, so a
// plain link opens it; SameSite=Strict keeps another site's link from using the session.
func (s *Server) openInstance(w http.ResponseWriter, r *http.Request) {
	if s.opts.Fleet == nil {
		http.Error(w, "no such instance: this console lists peers only", http.StatusNotFound)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), fleetLinkTimeout)
	defer cancel()
	link, err := s.opts.Fleet.LoginURL(ctx, r.PathValue("id"))
	switch {
	case errors.Is(err, ErrNoInstance):
		http.Error(w, "no such instance: it ended, or it never was", http.StatusNotFound)
		return
	case err != nil:
		http.Error(w, "the instance gave no login link: "+err.Error(), http.StatusBadGateway)
		return
	}
	s.log.Info("console: operator opened an instance's console", "instance", r.PathValue("id"))
	http.Redirect(w, r, link, http.StatusSeeOther)
}
