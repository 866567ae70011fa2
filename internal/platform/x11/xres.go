package x11

import (
	"maps"
	"os"

	"github.com/jezek/xgb/res"
	"github.com/jezek/xgb/xproto"
)

// The X Resource extension (XRes ≥ 1.2) names the process behind a window whose client set no
// _NET_WM_PID (Tk, Motif, many older toolkits): the server records every local client's pid from
// its socket when it connects, and QueryClientIds with the LocalClientPID mask reads it back for
// any XID the client owns.
//
// The pid is asked afresh in every listing rather than cached per client: the server hands the
// resource base of a client that disconnected to the next one at once, so a cached pid would
// name the wrong process as soon as an app exits and another starts. One request covers every
// listed client and travels with the property requests, so it costs no round trip.

const xresName = "X-Resource"

// queryOwnPID asks for this connection's own pid, sent before the version is known (an old
// server answers BadRequest, which isOwn reads as no).
func (c *Conn) queryOwnPID() clientPIDs {
	base := xproto.Setup(c.xc).ResourceIdBase
	spec := []res.ClientIdSpec{{Client: base, Mask: res.ClientIdMaskLocalClientPID}}
	return clientPIDs{cookie: res.QueryClientIds(c.xc, 1, spec), sent: true, mask: c.idMask, own: base}
}

// isOwn reports whether the server names this process as the owner of the connection. Only then
// are its pids ours to read: a server reached over TCP or ssh forwarding, or running in another
// pid namespace, reports none or pids of another machine or namespace, which would name the
// wrong process here.
func (q clientPIDs) isOwn() bool {
	return q.sent && q.read().of(xproto.Window(q.own)) == os.Getpid()
}

// clientPIDs is one QueryClientIds in flight, for the owners of some windows.
type clientPIDs struct {
	cookie res.QueryClientIdsCookie
	sent   bool
	mask   uint32 // the setup's resource-id mask: window &^ mask is its client's resource base
	own    uint32 // queryOwnPID: this connection's resource base
}

// queryClientPIDs asks for the pids of the clients owning ws (one spec per client). Nothing is
// sent when the server lacks XRes 1.2.
func (c *Conn) queryClientPIDs(ws ...xproto.Window) clientPIDs {
	if !c.ext.XRes || len(ws) == 0 {
		return clientPIDs{}
	}
	specs := make([]res.ClientIdSpec, 0, len(ws))
	seen := make(map[uint32]bool, len(ws))
	for _, w := range ws {
		base := uint32(w) &^ c.idMask
		// Base 0 is the server's own client, and a spec of 0 would mean every client.
		if base == 0 || seen[base] {
			continue
		}
		seen[base] = true
		specs = append(specs, res.ClientIdSpec{Client: base, Mask: res.ClientIdMaskLocalClientPID})
	}
	if len(specs) == 0 {
		return clientPIDs{}
	}
	return clientPIDs{cookie: res.QueryClientIds(c.xc, uint32(len(specs)), specs), sent: true, mask: c.idMask}
}

// read collects the answer. An error leaves it empty: a missing pid is what the listing had
// before XRes, and is no reason to fail it.
func (q clientPIDs) read() ownerPIDs {
	o := ownerPIDs{mask: q.mask}
	if !q.sent {
		return o
	}
	r, err := q.cookie.Reply()
	if err != nil || r == nil {
		return o
	}
	o.byBase = make(map[uint32]int, len(r.Ids))
	for _, id := range r.Ids {
		if id.Spec.Mask&res.ClientIdMaskLocalClientPID != 0 && len(id.Value) > 0 {
			o.byBase[id.Spec.Client&^q.mask] = int(id.Value[0])
		}
	}
	return o
}

// ownerPIDs are the pids of some clients by resource base. Clients the server knows no pid for
// (remote ones, or gone by now) are absent.
type ownerPIDs struct {
	byBase map[uint32]int
	mask   uint32
}

// merge adds o2's owners to o.
func (o *ownerPIDs) merge(o2 ownerPIDs) {
	if len(o2.byBase) == 0 {
		return
	}
	if o.byBase == nil {
		o.byBase, o.mask = make(map[uint32]int, len(o2.byBase)), o2.mask
	}
	maps.Copy(o.byBase, o2.byBase)
}

// of is the pid of the client owning w, 0 when unknown.
func (o ownerPIDs) of(w xproto.Window) int { return o.byBase[uint32(w)&^o.mask] }
