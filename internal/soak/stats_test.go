package soak_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/mcec/mcec/contract"
)

// maxCallsPerWorker bounds every client's loop in count (the deadline bounds it in time).
const maxCallsPerWorker = 200_000

// stats are the run's figures, shared by every worker.
type stats struct {
	mu         sync.Mutex
	calls      map[string]int             // by transport
	lat        map[string][]time.Duration // by transport: calls that reached a tool
	outcomes   map[string]int             // "ok", a category, "http 503", "transport error"
	envelopes  int                        // envelopes validated against the schema
	schemaBad  []string                   // the first violations
	unhandled  []string                   // the first unhandled-exception answers, whole
	unexpected []string                   // the first transport errors no fault explains
	nUnexp     int
	expected   int // transport errors while a fault made them expected
	faults     map[string]int
	samples    []sample
	notes      []string // what the faults observed
	// The final checks' findings.
	base, end                     sample
	heldInput                     []string
	sessionsVerified, sessionsBad int
	failedChecks                  map[string]int // by check: how many failures
}

// sample is one reading of mcec serve's resources.
type sample struct {
	when       time.Time
	gen        int
	rssKiB     int
	threads    int
	fds        int
	goroutines int
	heapKiB    int // live heap, after a collection
}

func newStats() *stats {
	return &stats{calls: map[string]int{}, lat: map[string][]time.Duration{}, outcomes: map[string]int{}, faults: map[string]int{}}
}

func (s *stats) fault(name string) {
	s.mu.Lock()
	s.faults[name]++
	s.mu.Unlock()
}

func (s *stats) note(format string, args ...any) {
	s.mu.Lock()
	if len(s.notes) < 40 {
		s.notes = append(s.notes, fmt.Sprintf(format, args...))
	}
	s.mu.Unlock()
}

// worker is one client's view of the run.
type worker struct {
	name string
	h    *harness
	rng  *rand.Rand
}

func (h *harness) worker(name string) *worker {
	var seed uint64
	for _, c := range name {
		seed = seed*31 + uint64(c)
	}
	return &worker{name: name, h: h, rng: newRand(seed)}
}

// pick returns one element of xs.
func pick[T any](w *worker, xs []T) T { return xs[w.rng.IntN(len(xs))] }

// done records a call that reached a tool and answered envelopeJSON (validated here).
func (w *worker) done(transport, tool string, took time.Duration, envelopeJSON []byte) {
	outcome := w.validate(transport, tool, envelopeJSON)
	s := w.h.st
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[transport]++
	s.lat[transport] = append(s.lat[transport], took)
	s.outcomes[outcome]++
}

// validate checks an envelope against the schema and the contract; it returns the outcome.
func (w *worker) validate(transport, tool string, envelopeJSON []byte) string {
	s := w.h.st
	s.mu.Lock()
	s.envelopes++
	s.mu.Unlock()
	bad := func(err error) string {
		s.mu.Lock()
		if len(s.schemaBad) < 10 {
			s.schemaBad = append(s.schemaBad, fmt.Sprintf("%s %s: %v: %.300s", transport, tool, err, envelopeJSON))
		}
		s.mu.Unlock()
		return "schema violation"
	}
	if err := contract.Validate(envelopeJSON); err != nil {
		return bad(err)
	}
	var env contract.Envelope
	if err := json.Unmarshal(envelopeJSON, &env); err != nil {
		return bad(err)
	}
	if env.OK() {
		return "ok"
	}
	if e := env.Err(); e.Category == contract.Internal {
		if e.Code == contract.CodeUnhandledException {
			s.mu.Lock()
			if len(s.unhandled) < 3 {
				s.unhandled = append(s.unhandled, fmt.Sprintf("%s %s: %.600s", transport, tool, envelopeJSON))
			}
			s.mu.Unlock()
		}
		return "internal / " + string(e.Code) // unhandled-exception is a recovered panic
	}
	return env.Err().Category.String()
}

// refused records an answer that is not an envelope (a transport refusal): an HTTP status, or
// a JSON-RPC error code negated.
func (w *worker) refused(transport string, status int) {
	s := w.h.st
	s.mu.Lock()
	s.calls[transport]++
	if status > 30000 {
		s.outcomes[fmt.Sprintf("JSON-RPC error %d", -status)]++
		s.mu.Unlock()
		return
	}
	s.outcomes[fmt.Sprintf("HTTP %d", status)]++
	s.mu.Unlock()
}

// failed records a transport error: expected while a fault is in progress, a finding otherwise.
func (w *worker) failed(transport, tool string, err error) {
	s := w.h.st
	expected := w.h.expectErrors()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[transport]++
	if expected {
		s.expected++
		s.outcomes["transport error during a restart"]++
		return
	}
	s.nUnexp++
	s.outcomes["transport error"]++
	if len(s.unexpected) < 10 {
		s.unexpected = append(s.unexpected, fmt.Sprintf("%s %s %s: %v", time.Now().Format("15:04:05.000"), w.name, tool, err))
	}
}

// calm is how long after a fault ends its transport errors are still expected (clients notice
// a restarted server on their next call).
const calm = 5 * time.Second

func (h *harness) expectErrors() bool {
	return h.unstable.Load() > 0 || time.Since(time.Unix(0, h.calmAt.Load())) < calm
}

// disturb marks a fault that breaks connections; the returned function ends it.
func (h *harness) disturb() func() {
	h.unstable.Add(1)
	return func() {
		h.calmAt.Store(time.Now().UnixNano())
		h.unstable.Add(-1)
	}
}

// percentile of sorted durations.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := int(float64(len(d)-1) * p)
	return d[i]
}

func sortedCopy(d []time.Duration) []time.Duration {
	c := slices.Clone(d)
	sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
	return c
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
