package console

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// A console that serves beyond loopback (a pod's, behind a Service or an Ingress) cannot hand
// out one-time links on a terminal nobody watches: the operator logs in with a key instead, typed
// into a form. The deployment holds only the key's SHA-256 (a Kubernetes Secret mounted as a
// file), so a program in the pod that reads the file learns nothing that logs in.

const (
	// maxFailedLogins within loginWindow; more are refused until the window moves on, so a key
	// cannot be guessed at network speed.
	maxFailedLogins = 10
	loginWindow     = time.Minute
	// maxKeyForm bounds a login form's body.
	maxKeyForm = 4 << 10
)

// keyLogin checks operator keys against their hash, with a bound on failed attempts.
type keyLogin struct {
	hash [32]byte
	now  func() time.Time

	mu     sync.Mutex
	failed []time.Time // failed attempts within loginWindow, oldest first
}

// allow reports whether another attempt may be made now.
func (k *keyLogin) allow() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	cut := k.now().Add(-loginWindow)
	k.failed = slices.DeleteFunc(k.failed, func(t time.Time) bool { return t.Before(cut) })
	return len(k.failed) < maxFailedLogins
}

// check compares key's hash with the stored one in constant time and counts a failure.
func (k *keyLogin) check(key string) bool {
	got := sha256.Sum256([]byte(key))
	if key != "" && subtle.ConstantTimeCompare(got[:], k.hash[:]) == 1 {
		return true
	}
	k.mu.Lock()
	k.failed = append(k.failed, k.now())
	k.mu.Unlock()
	return false
}

// loginForm is the page GET /login shows when a key logs in. No script; the form posts back.
const loginForm = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mcec console: log in</title>
<style>body{font:14px system-ui,sans-serif;margin:40px auto;max-width:420px;color:#222}
input{font:inherit;width:100%;padding:6px;margin:8px 0;box-sizing:border-box}button{font:inherit;padding:6px 16px}</style>
</head><body><h1>mcec console</h1>
<form method="post" action="/login"><label for="key">Operator key</label>
<input id="key" name="key" type="password" autocomplete="current-password" autofocus required>
<button type="submit">Log in</button></form>
<p>The key whose SHA-256 this console was given (<code>mcec console-key</code> makes a pair). The agents' token does not log in here.</p>
</body></html>`

// loginPage serves the key form, or the one-time link's answer when there is no key.
func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Has("t") || s.keys == nil {
		s.login(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'")
	_, _ = w.Write([]byte(loginForm))
}

// keyLoginPost turns the operator key into a session cookie.
func (s *Server) keyLoginPost(w http.ResponseWriter, r *http.Request) {
	if !s.keys.allow() {
		http.Error(w, "too many failed logins: wait a minute", http.StatusTooManyRequests)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxKeyForm)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "a login form is one field, key", http.StatusBadRequest)
		return
	}
	if !s.keys.check(r.PostForm.Get("key")) {
		s.log.Warn("console: a login with a wrong key", "remote", r.RemoteAddr)
		http.Error(w, "wrong key", http.StatusUnauthorized)
		return
	}
	s.startSession(w, r)
}

// networkHost reports whether host names a console served beyond loopback: any IP address
// (DNS rebinding needs a name) or one of the names it was told, with any port (a Service or an
// Ingress may map it).
func (s *Server) networkHost(host string) bool {
	h, _, err := net.SplitHostPort(host)
	if err != nil {
		h = host // an Ingress's Host has no port
	}
	if strings.EqualFold(h, "localhost") || net.ParseIP(strings.Trim(h, "[]")) != nil {
		return true
	}
	return slices.ContainsFunc(s.opts.HostNames, func(n string) bool { return strings.EqualFold(n, h) })
}
