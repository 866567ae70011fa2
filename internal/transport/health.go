package transport

import (
	"context"
	"log/slog"
	"net/http"
	"time"
)

// Probe paths for orchestrators (Kubernetes liveness/readiness, load balancers, provisioning).
const (
	healthzPath = "/healthz"
	readyzPath  = "/readyz"
)

// ReadyFunc reports whether the desktop is ready for agents (nil) or why not. It must return
// within ctx's deadline.
type ReadyFunc func(ctx context.Context) error

// readyTimeout bounds one readiness check: a wedged X server must cost a probe a failure, not a
// hung connection.
const readyTimeout = 2 * time.Second

// withProbes answers GET (and HEAD) /healthz and /readyz ahead of the front door: an orchestrator
// has no token and cannot send one on a probe. They reveal nothing but the status and a fixed
// word ("ok", "starting"/"not ready"): no version, no reason, no desktop detail — the reason is
// logged at debug instead. Every other request goes to next (the front door).
func withProbes(next http.Handler, ready ReadyFunc, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != healthzPath && r.URL.Path != readyzPath {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			probeAnswer(w, r, http.StatusMethodNotAllowed, "method not allowed")
			return
		}
		if r.URL.Path == healthzPath {
			// The process is alive and its HTTP server accepts and answers.
			probeAnswer(w, r, http.StatusOK, "ok")
			return
		}
		if ready == nil {
			probeAnswer(w, r, http.StatusServiceUnavailable, "not ready")
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		if err := ready(ctx); err != nil {
			log.Debug("readyz: not ready", "reason", err)
			probeAnswer(w, r, http.StatusServiceUnavailable, "not ready")
			return
		}
		probeAnswer(w, r, http.StatusOK, "ok")
	})
}

// probeAnswer writes a fixed plain-text body, uncached.
func probeAnswer(w http.ResponseWriter, r *http.Request, status int, word string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(word + "\n"))
	}
}
