package atspi

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/mcec/mcec/internal/platform/atspi/dbuswire"
)

// Peer-to-peer connections (issue 16). at-spi2-core's ATK bridge, behind GTK 3, LibreOffice,
// Firefox, Chromium and Java's ATK wrapper, serves its objects on a socket of its own as well
// as on the bus (Application.GetApplicationBusAddress; libatspi and Odilia's atspi crate talk to
// applications this way). A call there skips the bus daemon, which otherwise parses and relays
// every call and every reply: a third of the machine's CPU while a cold 1,500-row list is read
// (internal/dev/bench/findings.md). The fast path's calls to such an application go to its
// socket; everything else (godbus, signals, the registry) stays on the bus.
//
// The bridge serves that socket from the main loop like the bus, and also from inside a modal
// dialog's nested loop started by an accessibility call (the bus connection waits there until
// the dialog closes): a tree can then be read although actions through the bus still stall.
//
// A peer connection that ends (the application exited or closed it) is no longer used, and a call
// it failed is made again on the bus, whose answer says what became of the application.

// peerConns holds one entry per application bus name that was asked for its socket.
type peerConns struct {
	m sync.Map // unique bus name → *peerConn
}

// peerConn is one application's socket connection; conn stays nil while dialing and when the
// application offers no socket (peerFor also skips one that ended).
type peerConn struct {
	conn atomic.Pointer[dbuswire.Conn]
}

// connectPeer asks the application on bus for its socket and connects to it, once per bus name
// (later calls return at once); failures leave the application on the bus. Only bridges that
// serve a socket are asked (bridge.peer): asking Qt's for a method it lacks is pointless.
func (c *Client) connectPeer(ctx context.Context, bus string) {
	if c.noPeer || c.fastConn() == nil {
		return // the peer path is a variant of the fast path and falls back to it
	}
	if _, ok := c.peers.m.Load(bus); ok {
		return
	}
	p := &peerConn{}
	if _, loaded := c.peers.m.LoadOrStore(bus, p); loaded {
		return
	}
	var addr string
	call, f, err := c.call(ctx, bus, registryRoot, ifApplication+".GetApplicationBusAddress")
	if err == nil {
		err = call.Store(&addr)
	}
	if err != nil || addr == "" {
		c.log.Debug("atspi: no peer connection", "bus", bus, "failure", f, "err", err)
		c.retryPeerLater(ctx, bus, p)
		return
	}
	dctx, cancel := c.callContext(ctx)
	conn, err := dbuswire.DialPeer(dctx, addr)
	cancel()
	if err != nil {
		c.log.Debug("atspi: peer connection refused", "bus", bus, "addr", addr, "err", err)
		c.retryPeerLater(ctx, bus, p)
		return
	}
	if cur, ok := c.peers.m.Load(bus); !ok || cur != p {
		_ = conn.Close() // the application left while we dialed
		return
	}
	p.conn.Store(conn)
}

// retryPeerLater forgets an attempt that the caller's cancellation cut short, so that a later
// call asks again; any other failure is the application's answer and stands.
func (c *Client) retryPeerLater(ctx context.Context, bus string, p *peerConn) {
	if ctx.Err() != nil {
		c.peers.m.CompareAndDelete(bus, p)
	}
}

// peerFor returns the live peer connection of the application on bus, or nil.
func (c *Client) peerFor(bus string) *dbuswire.Conn {
	v, ok := c.peers.m.Load(bus)
	if !ok {
		return nil
	}
	conn := v.(*peerConn).conn.Load()
	if conn == nil {
		return nil
	}
	select {
	case <-conn.Done():
		return nil
	default:
		return conn
	}
}

// forgetPeers closes the connections of applications that left the bus (live: those still there).
func (c *Client) forgetPeers(live map[string]bool) {
	c.peers.m.Range(func(k, v any) bool {
		if !live[k.(string)] {
			c.peers.m.Delete(k)
			if conn := v.(*peerConn).conn.Load(); conn != nil {
				_ = conn.Close()
			}
		}
		return true
	})
}

// closePeers closes every peer connection (Client.Close).
func (c *Client) closePeers() { c.forgetPeers(nil) }
