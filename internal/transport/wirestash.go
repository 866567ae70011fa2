package transport

import (
	"bytes"
	"context"
	"strconv"
	"sync"
)

// A wireStash lets a pre-encoded tools/call result skip the SDK's JSON layer on stdio. However a
// result marshals itself, encoding/json scans (compacts) the bytes once more: ≈ 1.3 ms for a
// capture's 300 KB (internal/dev/bench/findings.md). With a stash in the serving context, preEncode
// hands the SDK a few bytes of placeholder and parks the real result here; the stdio connection
// that writes the response swaps it back in. Transports without a stash (HTTP, in-memory) get
// the result itself, as before.
type wireStash struct {
	mu   sync.Mutex
	next uint64
	m    map[uint64][]byte
}

// maxStashed bounds results parked for responses that were never written (a connection closing
// under them): the oldest are dropped.
const maxStashed = 64

type stashKey struct{}

// stashFrom returns the stash of the connection serving ctx, or nil.
func stashFrom(ctx context.Context) *wireStash {
	s, _ := ctx.Value(stashKey{}).(*wireStash)
	return s
}

const stashPrefix = `{"\u0000mcec-wire":`

// put parks wire and returns the placeholder that stands for it: a JSON object no result the
// SDK builds can equal (a key with a NUL in it).
func (s *wireStash) put(wire []byte) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[uint64][]byte{}
	}
	s.next++
	id := s.next
	s.m[id] = wire
	if len(s.m) > maxStashed {
		for k := range s.m {
			if k+maxStashed <= id {
				delete(s.m, k)
			}
		}
	}
	return append(strconv.AppendUint([]byte(stashPrefix), id, 10), '}')
}

// take returns (and forgets) the result a placeholder stands for.
func (s *wireStash) take(placeholder []byte) ([]byte, bool) {
	if s == nil || len(placeholder) > 64 || !bytes.HasPrefix(placeholder, []byte(stashPrefix)) ||
		placeholder[len(placeholder)-1] != '}' {
		return nil, false
	}
	id, err := strconv.ParseUint(string(placeholder[len(stashPrefix):len(placeholder)-1]), 10, 64)
	if err != nil {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	wire, ok := s.m[id]
	delete(s.m, id)
	return wire, ok
}
