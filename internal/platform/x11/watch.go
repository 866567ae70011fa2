package x11

import (
	"context"
	"fmt"

	"github.com/jezek/xgb/xproto"
)

// rootEventMask is everything this connection selects on the root window.
const rootEventMask = xproto.EventMaskStructureNotify | xproto.EventMaskSubstructureNotify |
	xproto.EventMaskPropertyChange

// clientEventMask is what this connection selects on a client window it operates on or
// captures: DestroyNotify and ConfigureNotify, map state and property (_NET_WM_STATE) changes.
// Every selection on a client uses this one mask, since each replaces the previous one.
const clientEventMask = xproto.EventMaskStructureNotify | xproto.EventMaskPropertyChange

// WatchWindows reports changes of the window list, of the active window and of top-level
// windows mapping, unmapping or closing: one value per burst, on a channel buffered for one, so
// a slow reader sees one wake-up for many changes and the event loop never blocks. It stops
// when ctx ends. The channel is never closed: a reader selects on ctx as well.
func (c *Conn) WatchWindows(ctx context.Context) (<-chan struct{}, error) {
	if err := c.alive("watching windows"); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("watching windows: %w", err)
	}
	ch, cancel := c.subscribe(c.scr.root)
	go func() {
		select {
		case <-ctx.Done():
		case <-c.dead:
		}
		cancel()
	}()
	return ch, nil
}

// subscribe returns a channel that receives a value (coalesced, buffer one) whenever the event
// loop sees a relevant event for w: for the root, changes of the client list and the active
// window, and top-level (frame) map, unmap and destroy; for a client window, the events of
// clientEventMask. cancel must be called.
func (c *Conn) subscribe(w xproto.Window) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	c.mu.Lock()
	set := c.wakes[w]
	if set == nil {
		set = map[chan struct{}]struct{}{}
		c.wakes[w] = set
	}
	set[ch] = struct{}{}
	c.mu.Unlock()
	return ch, func() {
		c.mu.Lock()
		delete(c.wakes[w], ch)
		if len(c.wakes[w]) == 0 {
			delete(c.wakes, w)
		}
		c.mu.Unlock()
	}
}

// wake signals every subscriber of w without blocking.
func (c *Conn) wake(w xproto.Window) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for ch := range c.wakes[w] {
		select {
		case ch <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
}

// wakeStructure routes a Map/Unmap/DestroyNotify: received through the root's substructure mask
// (a frame or override-redirect window) it wakes the root's subscribers; received through a
// client's own structure mask it wakes the client's.
func (c *Conn) wakeStructure(event, window xproto.Window) {
	if event == c.scr.root {
		c.wake(c.scr.root)
	} else if event == window {
		c.wake(window)
	}
}

// routePong delivers a _NET_WM_PING reply (a client sends it back to the root) to its waiter.
func (c *Conn) routePong(e xproto.ClientMessageEvent) {
	if e.Window != c.scr.root || e.Type != c.atoms.wmProtocols || e.Format != 32 {
		return
	}
	d := e.Data.Data32
	if len(d) < 2 || xproto.Atom(d[0]) != c.atoms.netWMPing {
		return
	}
	c.mu.Lock()
	ch := c.pongs[d[1]]
	delete(c.pongs, d[1])
	c.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}
