package atspi

import (
	"context"

	"github.com/godbus/dbus/v5"
)

// WalkWithoutCache makes c ignore Cache.GetItems, so tests and benchmarks exercise the
// fallback walk by calls on a GTK application. Call it before c is used.
func WalkWithoutCache(c *Client) { c.noCache = true }

// Unstretched keeps c's deadlines as given whatever the machine's load, for tests that measure
// the deadlines themselves.
func Unstretched(c *Client) { c.unstretched = true }

// WatchStats reports the live watches of c, the applications they listen to in all, and the
// watched signals delivered to them in all.
func WatchStats(c *Client) (watches, senders int, signals int64) {
	c.hub.mu.RLock()
	defer c.hub.mu.RUnlock()
	for w := range c.hub.watches {
		watches++
		senders += len(w.senders)
		signals += w.signals.Load()
	}
	return watches, senders, signals
}

// ConnName is c's unique name on the accessibility bus.
func ConnName(c *Client) string { return c.conn.Names()[0] }

// WithoutMirror makes every Tree of c walk, for fresh walks to compare the mirror with.
func WithoutMirror(c *Client) { c.noMirror = true }

// WithoutPeers keeps every fast call on the bus (no application sockets, peer.go).
func WithoutPeers(c *Client) { c.noPeer = true }

// ReadingCellText makes c read every table cell's text (bridge.cellTextIsName off).
func ReadingCellText(c *Client) { c.readCellText = true }

// MeasuringEveryCell makes c ask every table cell's extents (bridge.cellsInRows off).
func MeasuringEveryCell(c *Client) { c.everyExtent = true }

// PeeredAny reports whether c talks to any application over its own socket.
func PeeredAny(c *Client) (found bool) {
	c.peers.m.Range(func(k, _ any) bool {
		found = c.peerFor(k.(string)) != nil
		return !found
	})
	return found
}

// MirrorStats reports c's trees answered from the mirror and walked.
func MirrorStats(c *Client) (hits, misses int64) { return c.MirrorStats() }

// MirrorEveryToolkit mirrors c's trees whatever their toolkit, to measure which changes a
// toolkit's events miss.
func MirrorEveryToolkit(c *Client) { c.mirrorAll = true }

// DropMirror forgets every tree c mirrors.
func DropMirror(c *Client) {
	c.mirror.mu.Lock()
	defer c.mirror.mu.Unlock()
	c.mirror.entries, c.mirror.order, c.mirror.nodes = nil, nil, 0
}

// MirrorGens reports each mirrored application's event count.
func MirrorGens(c *Client) map[string]uint64 {
	out := map[string]uint64{}
	c.mirror.mu.Lock()
	defer c.mirror.mu.Unlock()
	for bus, s := range c.mirror.subs {
		out[bus] = s.gen.Load()
	}
	return out
}

// LogMirrorEvents hands every event counted for bus to f.
func LogMirrorEvents(c *Client, bus string, f func(name, path string, body []any)) {
	c.mirror.mu.Lock()
	defer c.mirror.mu.Unlock()
	c.hub.mu.Lock()
	defer c.hub.mu.Unlock()
	c.mirror.subs[bus].log = func(s *dbus.Signal) { f(s.Name, string(s.Path), s.Body) }
}

// Calls reports the D-Bus calls c made.
func Calls(c *Client) int64 { return c.calls.Load() }

// SetMaxInFlight sets the calls one operation keeps outstanding; call it before any walk runs.
func SetMaxInFlight(n int) { maxInFlight = n }

// RegistryPID is the process id of the AT-SPI registry daemon c talks to.
func RegistryPID(ctx context.Context, c *Client) (int, error) { return c.pid(ctx, registryName) }

// TieWithin is awaitCall's tie window, for tests that time a modal verdict.
const TieWithin = tieWithin
