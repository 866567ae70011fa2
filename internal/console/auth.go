package console

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"sync"
	"time"
)

// The operator's credential is distinct from the agents' bearer token by construction: a login
// link carries a one-time secret that becomes a session cookie, and neither is ever written to a
// file. The link is shown on the operator's terminal at start and minted again by `mcec
// console-url` over the control socket, which only the operator's user reaches.

const (
	// linkLife is how long a login link may wait to be opened.
	linkLife = 5 * time.Minute
	// sessionLife is how long an operator's browser session lasts without a new login.
	sessionLife = 12 * time.Hour
	// cookiePrefix and the console's port name the cookie carrying the operator's session.
	cookiePrefix = "mcec-console-"
)

// credentials holds the unused login links and the live operator sessions, by the SHA-256 of
// their secrets, so a memory dump of the map does not hand out a credential.
type credentials struct {
	now func() time.Time

	mu       sync.Mutex
	links    map[[32]byte]time.Time // → expiry
	sessions map[[32]byte]time.Time // → expiry
}

func newCredentials(now func() time.Time) *credentials {
	return &credentials{now: now, links: map[[32]byte]time.Time{}, sessions: map[[32]byte]time.Time{}}
}

// secret is 32 random bytes, URL-safe.
func secret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

func digest(s string) [32]byte { return sha256.Sum256([]byte(s)) }

// newLink mints a login secret valid for linkLife, usable once.
func (c *credentials) newLink() string {
	s := secret()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweep()
	c.links[digest(s)] = c.now().Add(linkLife)
	return s
}

// redeem consumes a login secret and returns a new session secret; ok is false for an unknown,
// used or expired link.
func (c *credentials) redeem(link string) (session string, ok bool) {
	if link == "" {
		return "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweep()
	k := digest(link)
	if _, ok := c.links[k]; !ok {
		return "", false
	}
	delete(c.links, k)
	return c.addSession(), true
}

// newSession starts a session without a link (the operator's key was checked).
func (c *credentials) newSession() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sweep()
	return c.addSession()
}

// addSession mints a session secret; c.mu is held.
func (c *credentials) addSession() string {
	session := secret()
	c.sessions[digest(session)] = c.now().Add(sessionLife)
	return session
}

// valid reports whether session is a live operator session.
func (c *credentials) valid(session string) bool {
	if session == "" {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	exp, ok := c.sessions[digest(session)]
	return ok && c.now().Before(exp)
}

// sweep forgets expired links and sessions; c.mu is held.
func (c *credentials) sweep() {
	now := c.now()
	for k, exp := range c.links {
		if !now.Before(exp) {
			delete(c.links, k)
		}
	}
	for k, exp := range c.sessions {
		if !now.Before(exp) {
			delete(c.sessions, k)
		}
	}
}
