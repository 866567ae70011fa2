// Package xgbext is what mcec adds to the xgb X client, for every X client of mcec: it registers
// xgb's extension event and error decoders in xgb's process-wide maps, silences xgb's logger
// (quiet.go), dials with a deadline (dial.go) and names mcec's own windows (own.go). It is a
// leaf: the backend, the desktop, the consent dialog and the input clean-up all import it.
//
// xgb's reader goroutines (one per connection) read those maps without a lock, so writing them
// while any connection is alive is a data race. Registration therefore happens once per process
// and extension numbering, as early as possible: the private desktop registers right after it
// dials the X server it has just started, before any application exists to send events; later
// connections to a server with the same numbering then write nothing.
package xgbext

import (
	"sync"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// Extensions are the X extensions mcec uses; their decoders are registered together.
var Extensions = []string{"Composite", "DAMAGE", "XFIXES", "MIT-SHM", "RANDR", "XTEST"}

var (
	mu         sync.Mutex
	registered = map[string][2]byte{}
)

// Register records that extension name is present on c with these first event and error
// numbers, doing what each xgb extension's Init does (xgb panics on an extension request before
// Init). The global decoder maps are written only for numbering not registered before.
func Register(c *xgb.Conn, name string, opcode, firstEvent, firstError byte) {
	c.ExtLock.Lock()
	c.Extensions[name] = opcode
	c.ExtLock.Unlock()
	mu.Lock()
	defer mu.Unlock()
	if nums, ok := registered[name]; ok && nums == [2]byte{firstEvent, firstError} {
		return
	}
	for n, fun := range xgb.NewExtEventFuncs[name] {
		xgb.NewEventFuncs[int(firstEvent)+n] = fun
	}
	for n, fun := range xgb.NewExtErrorFuncs[name] {
		xgb.NewErrorFuncs[int(firstError)+n] = fun
	}
	registered[name] = [2]byte{firstEvent, firstError}
}

// Query is a QueryExtension for each of Extensions, in flight: it can be sent along with other
// requests, and Register reads it.
type Query struct {
	c       *xgb.Conn
	cookies []xproto.QueryExtensionCookie
}

// StartQuery sends a QueryExtension for each of Extensions on c without waiting for the replies.
func StartQuery(c *xgb.Conn) *Query {
	q := &Query{c: c, cookies: make([]xproto.QueryExtensionCookie, len(Extensions))}
	for i, n := range Extensions {
		q.cookies[i] = xproto.QueryExtension(c, uint16(len(n)), n)
	}
	return q
}

// Register reads the replies, registers the extensions present and reports which they are.
func (q *Query) Register() (present map[string]bool, err error) {
	present = map[string]bool{}
	for i, ck := range q.cookies {
		r, err := ck.Reply()
		if err != nil {
			return nil, err
		}
		if r.Present {
			Register(q.c, Extensions[i], r.MajorOpcode, r.FirstEvent, r.FirstError)
			present[Extensions[i]] = true
		}
	}
	return present, nil
}

// RegisterAll queries every extension of Extensions on c, registers those present and reports
// which they are. It is what the first connection of a process should do before the server has
// other clients.
func RegisterAll(c *xgb.Conn) (present map[string]bool, err error) {
	return StartQuery(c).Register()
}
