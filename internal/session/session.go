// Package session is the server's memory of agent tasks: which sessions exist, their artifact
// directories, and each one's last observation, action and error.
//
// Calls that name no session share one implicit default session. Identity travels in-band (the
// sessionId argument), so it works the same over stdio and HTTP.
package session

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/mcec/mcec/internal/atomicfile"
)

// ErrUnknown is returned for an id that was never started or has ended.
var ErrUnknown = errors.New("unknown session")

// Options configures a Store.
type Options struct {
	// Root is the directory that holds one artifact directory per session.
	Root string
	// Now is the clock; nil means time.Now. Tests pass a fixed clock.
	Now func() time.Time
	// RolloverCalls: the default session ends after this many calls, so that a long-running
	// server's next call without a sessionId starts a fresh one (0: only when its evidence is
	// full, RollDefault). Explicit sessions never roll over.
	RolloverCalls int
}

// DefaultRolloverCalls is the rollover the server uses (PRODUCT.md §8).
const DefaultRolloverCalls = 10000

// End reasons (Session.EndReason).
const (
	EndedBySessionEnd = "session-end" // session-end, or the server's shutdown
	EndedByRollover   = "rolled-over" // the default session rolled over
)

// Store holds the live sessions. It is safe for concurrent use.
type Store struct {
	root          string
	now           func() time.Time
	rolloverCalls int

	mu        sync.Mutex
	live      map[string]*Session
	ended     map[string]bool
	defaultID string
}

// NewStore returns an empty store; directories are created lazily, on the first artifact.
func NewStore(opts Options) *Store {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Store{root: opts.Root, now: now, rolloverCalls: opts.RolloverCalls, live: map[string]*Session{}, ended: map[string]bool{}}
}

// Resolve returns the session named id, or the default session when id is empty.
func (st *Store) Resolve(id string) (*Session, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if id == "" {
		if s, ok := st.live[st.defaultID]; ok {
			return s, nil
		}
		s := st.newLocked()
		st.defaultID = s.id
		return s, nil
	}
	if s, ok := st.live[id]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("%w %q", ErrUnknown, id)
}

// IsLive reports whether the session named id is open.
func (st *Store) IsLive(id string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	_, ok := st.live[id]
	return ok
}

// Start begins a new explicit session.
func (st *Store) Start() *Session {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.newLocked()
}

// End ends the session named id (the default session when id is empty; a fresh default starts on
// the next call). Ending an already ended session is not an error: alreadyEnded reports it.
func (st *Store) End(id string) (s *Session, alreadyEnded bool, err error) {
	return st.end(id, EndedBySessionEnd)
}

func (st *Store) end(id, reason string) (s *Session, alreadyEnded bool, err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if id == "" {
		if st.defaultID == "" {
			return nil, true, nil // no default session is live: nothing to end
		}
		id = st.defaultID
	}
	if st.ended[id] {
		return nil, true, nil
	}
	s, ok := st.live[id]
	if !ok {
		return nil, false, fmt.Errorf("%w %q", ErrUnknown, id)
	}
	delete(st.live, id)
	st.ended[id] = true
	if id == st.defaultID {
		st.defaultID = ""
	}
	s.mu.Lock()
	s.endedAt = st.now()
	s.endReason = reason
	s.mu.Unlock()
	return s, false, nil
}

// RollDefault ends the session id if it is still the default session, so that the next call
// without a sessionId starts a fresh default session (a long-running server's default session
// rolls over instead of growing without bound): the store does so after Options.RolloverCalls
// calls, the evidence recorder when the session's trace is full. It reports whether it ended
// the session.
func (st *Store) RollDefault(id string) bool {
	st.mu.Lock()
	if id == "" || id != st.defaultID {
		st.mu.Unlock()
		return false
	}
	st.mu.Unlock()
	// end re-checks under the lock; a concurrent session-end makes this a no-op.
	_, already, err := st.end(id, EndedByRollover)
	return err == nil && !already
}

// Live returns the number of live sessions.
func (st *Store) Live() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.live)
}

func (st *Store) newLocked() *Session {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on Linux
	s := &Session{id: "s-" + hex.EncodeToString(b[:]), started: st.now().UTC(), store: st}
	st.live[s.id] = s
	return s
}

// Session is one task's memory and evidence directory. Safe for concurrent use.
type Session struct {
	id      string
	started time.Time
	store   *Store

	mu              sync.Mutex
	dir             string
	captureSeq      int
	lastObservation any
	lastAction      *Action
	lastError       any
	activeTarget    any
	calls, failures int
	endedAt         time.Time
	endReason       string
	memos           []memo // tools' per-session state (query's last trees), oldest first
}

// Action is what the session remembers of one call.
type Action struct {
	Tool string    `json:"tool"`
	At   time.Time `json:"at"`
	OK   bool      `json:"ok"`
	// Code is the error code of a failed call.
	Code string `json:"code,omitempty"`
	// DurationMs is how long the call ran, in milliseconds.
	DurationMs float64 `json:"durationMs,omitempty"`
}

// ID is the session id carried in every envelope.
func (s *Session) ID() string { return s.id }

// Started is when the session began (UTC).
func (s *Session) Started() time.Time { return s.started }

// ArtifactDir returns <root>/<yyyyMMdd-HHmmss>-<id>, creating it on first use.
func (s *Session) ArtifactDir() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.artifactDirLocked()
}

func (s *Session) artifactDirLocked() (string, error) {
	if s.dir != "" {
		return s.dir, nil
	}
	if s.store.root == "" {
		return "", errors.New("no sessions directory configured")
	}
	dir := filepath.Join(s.store.root, s.started.Format("20060102-150405")+"-"+s.id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	s.dir = dir
	return dir, nil
}

// SaveCapture writes a capture's PNG as capture-<yyyyMMdd-HHmmssfff>-<n>.png in the artifact
// directory and returns its path.
func (s *Session) SaveCapture(png []byte) (string, error) {
	path, err := s.ArtifactPath("capture", "png")
	if err != nil {
		return "", err
	}
	// Replace, not WriteFile: an fsync per capture cost ≈ 3 ms, a tenth of a capture call; the
	// file is still never torn by a process crash.
	if err := atomicfile.Replace(path, png, 0o600); err != nil {
		return "", err
	}
	return path, nil
}

// ArtifactPath reserves a fresh name <prefix>-<yyyyMMdd-HHmmssfff>-<n>.<ext> in the artifact
// directory (creating it) and returns its path; the caller writes the file (atomically). Named
// artifacts share the captures' sequence, so names never collide within a session.
func (s *Session) ArtifactPath(prefix, ext string) (string, error) {
	s.mu.Lock()
	dir, err := s.artifactDirLocked()
	s.captureSeq++
	n := s.captureSeq
	s.mu.Unlock()
	if err != nil {
		return "", err
	}
	stamp := s.store.now().UTC().Format("20060102-150405.000")
	return filepath.Join(dir, fmt.Sprintf("%s-%s%s-%d.%s", prefix, stamp[:15], stamp[16:], n, ext)), nil
}

// Observe records the last good observation (a JSON object; never base64 image bytes).
func (s *Session) Observe(obs any) {
	s.mu.Lock()
	s.lastObservation = obs
	s.mu.Unlock()
}

// LastObservation returns the last good observation, or nil.
func (s *Session) LastObservation() any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastObservation
}

// maxMemos bounds a session's memos: a query memo holds a whole tree.
const maxMemos = 8

type memo struct {
	key string
	v   any
}

// Memo returns what SetMemo last stored under key in this session (nil when nothing is).
func (s *Session) Memo(key string) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.memos {
		if m.key == key {
			return m.v
		}
	}
	return nil
}

// SetMemo stores v under key for later calls of this session, dropping the oldest memo beyond
// maxMemos.
func (s *Session) SetMemo(key string, v any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.memos = slices.DeleteFunc(s.memos, func(m memo) bool { return m.key == key })
	s.memos = append(s.memos, memo{key, v})
	if len(s.memos) > maxMemos {
		s.memos = slices.Delete(s.memos, 0, len(s.memos)-maxMemos)
	}
}

// SetTarget records the window the session last targeted.
func (s *Session) SetTarget(target any) {
	s.mu.Lock()
	s.activeTarget = target
	s.mu.Unlock()
}

// RecordAction notes one finished call described by a (At defaults to now); errObj is the
// contract error of a failed call.
func (s *Session) RecordAction(a Action, errObj any) {
	if s.recordAction(a, errObj) {
		s.store.RollDefault(s.id)
	}
}

// recordAction counts the call and reports whether the session has reached its rollover.
func (s *Session) recordAction(a Action, errObj any) (rollover bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a.At.IsZero() {
		a.At = s.store.now()
	}
	a.At = a.At.UTC()
	s.calls++
	s.lastAction = &a
	if !a.OK {
		s.failures++
		s.lastError = errObj
	}
	return s.store.rolloverCalls > 0 && s.calls >= s.store.rolloverCalls && s.endedAt.IsZero()
}

// EndReason says why the session ended (EndedBySessionEnd, EndedByRollover), "" while it is
// live.
func (s *Session) EndReason() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.endReason
}

// Status is the session's state as session-status reports it.
type Status struct {
	SessionID       string    `json:"sessionId"`
	StartedAt       time.Time `json:"startedAt"`
	Ended           bool      `json:"ended,omitempty"`
	ArtifactDir     string    `json:"artifactDir,omitempty"`
	Calls           int       `json:"calls"`
	Failures        int       `json:"failures"`
	ActiveTarget    any       `json:"activeTarget,omitempty"`
	LastObservation any       `json:"lastObservation,omitempty"`
	LastAction      *Action   `json:"lastAction,omitempty"`
	LastError       any       `json:"lastError,omitempty"`
}

// Status snapshots the session.
func (s *Session) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Status{
		SessionID: s.id, StartedAt: s.started, Ended: !s.endedAt.IsZero(), ArtifactDir: s.dir,
		Calls: s.calls, Failures: s.failures, ActiveTarget: s.activeTarget,
		LastObservation: s.lastObservation, LastAction: s.lastAction, LastError: s.lastError,
	}
}
