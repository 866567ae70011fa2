package screencast

import (
	"context"
	"errors"
	"sync"
)

// Errors of the Manager.
var (
	ErrInProgress = errors.New("a recording is already running")
	ErrNone       = errors.New("no recording to stop")
)

// Manager holds the server's one recording slot. The slot is empty, holds a running recording,
// or holds a finished one whose result nobody fetched yet (it ended by itself at a limit): the
// next Take returns that one exactly once, and the next Begin discards it.
type Manager struct {
	limits Limits
	life   context.Context
	end    context.CancelFunc

	mu       sync.Mutex
	cur      *Recording
	starting bool // a Begin is grabbing its first frame
	all      sync.WaitGroup
}

// NewManager returns an empty slot with the given limits.
func NewManager(l Limits) *Manager {
	life, end := context.WithCancel(context.Background())
	return &Manager{limits: l, life: life, end: end}
}

// Limits returns the manager's limits.
func (m *Manager) Limits() Limits { return m.limits }

// Begin starts a recording in the slot. It fails ErrInProgress while another one runs (or is
// starting). discarded is the unfetched finished recording it displaced, if any; it is only
// displaced when the new recording started.
func (m *Manager) Begin(ctx context.Context, grab Grab, o Options) (rec, discarded *Recording, err error) {
	m.mu.Lock()
	if m.starting || (m.cur != nil && !finished(m.cur)) {
		m.mu.Unlock()
		return nil, nil, ErrInProgress
	}
	if m.life.Err() != nil {
		m.mu.Unlock()
		return nil, nil, m.life.Err()
	}
	m.starting = true
	m.all.Add(1)
	m.mu.Unlock()

	rec, err = Start(ctx, m.life, grab, o, m.limits)

	m.mu.Lock()
	defer m.mu.Unlock()
	m.starting = false
	if err != nil {
		m.all.Done()
		return nil, nil, err
	}
	go func() { <-rec.Done(); m.all.Done() }()
	discarded, m.cur = m.cur, rec
	return rec, discarded, nil
}

// Take empties the slot and returns its recording, stopped and written. ErrNone when empty.
func (m *Manager) Take() (Result, error) {
	m.mu.Lock()
	rec := m.cur
	m.cur = nil
	m.mu.Unlock()
	if rec == nil {
		return Result{}, ErrNone
	}
	return rec.Stop(), nil
}

// Release empties the slot if it still holds rec (a one-shot fetching its own result).
func (m *Manager) Release(rec *Recording) {
	m.mu.Lock()
	if m.cur == rec {
		m.cur = nil
	}
	m.mu.Unlock()
}

// Discard stops the running recording without writing it (the emergency stop) and empties the
// slot; a finished recording waiting to be fetched is left alone. It reports whether one ran.
func (m *Manager) Discard() bool {
	m.mu.Lock()
	rec := m.cur
	if rec == nil || finished(rec) {
		m.mu.Unlock()
		return false
	}
	m.cur = nil
	m.mu.Unlock()
	rec.Discard()
	return true
}

// Close stops a running recording (its GIF is still written) and waits for it.
func (m *Manager) Close() {
	m.mu.Lock() // Begin adds to m.all only under mu and only while life lives
	m.end()
	m.mu.Unlock()
	m.all.Wait()
}

func finished(r *Recording) bool {
	select {
	case <-r.Done():
		return true
	default:
		return false
	}
}
