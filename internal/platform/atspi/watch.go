package atspi

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/godbus/dbus/v5"

	"github.com/mcec/mcec/internal/platform"
)

// AT-SPI event interfaces.
const (
	evObject = "org.a11y.atspi.Event.Object"
	evWindow = "org.a11y.atspi.Event.Window"
)

// watchedSignals are the signals that count as a change of an application's tree.
// BoundsChanged is left out on purpose: windows moving are not tree changes, and GTK emits it
// for every child of a moved container.
var watchedSignals = map[string]bool{
	evObject + ".ChildrenChanged": true,
	evObject + ".StateChanged":    true,
	evObject + ".TextChanged":     true,
	evObject + ".PropertyChange":  true,
	evObject + ".ValueChanged":    true,
	evWindow + ".Create":          true,
	evWindow + ".Destroy":         true,
}

// watchEvents are registered with the registry while any watch runs: toolkit bridges emit
// only the event types some client registered (GTK's bridge sends children, state and
// name changes regardless, to keep caches current). window:create is not among them:
// Connect holds it for the life of the client, and DeregisterEvent drops every
// registration of a type by the same connection, so a watch must never deregister it.
var watchEvents = []string{
	"object:children-changed", "object:state-changed", "object:text-changed",
	"object:property-change", "object:value-changed", "window:destroy",
}

// hub is the connection's signal handler: godbus calls DeliverSignal on its reading
// goroutine, which also delivers method replies, so it must never block — it only does
// map lookups and non-blocking sends. One handler serves every watch of the client.
type hub struct {
	mu       sync.RWMutex
	registry string                     // the registry daemon's unique name, once known
	bySender map[string]map[*watch]bool // application bus name → watches listening to it
	watches  map[*watch]bool
	mirrored map[string]*mirrorSub // application bus name → its mirror's event count (mirror.go)
	appsGen  atomic.Uint64         // the registry's application list changed this often
	done     chan struct{}         // closed when the connection closes
	doneOnce sync.Once
}

func newHub() *hub {
	return &hub{bySender: make(map[string]map[*watch]bool), watches: make(map[*watch]bool),
		mirrored: make(map[string]*mirrorSub), done: make(chan struct{})}
}

// DeliverSignal implements dbus.SignalHandler.
func (h *hub) DeliverSignal(_, _ string, s *dbus.Signal) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if s.Sender == h.registry && h.registry != "" {
		// The registry's root announces applications arriving and leaving.
		if s.Name == evObject+".ChildrenChanged" && s.Path == registryRoot {
			h.appsGen.Add(1)
			for w := range h.watches {
				poke(w.apps)
			}
		}
		return
	}
	if m := h.mirrored[s.Sender]; m != nil {
		// Every signal counts, not only events: at-spi2-atk adds new children to the cache
		// GetItems answers from an idle callback after their children-changed event, and
		// announces that with Cache.AddAccessible; a walk between the two read a cache that
		// lagged the tree, and only this signal says so.
		m.count(s)
	}
	if !watchedSignals[s.Name] {
		return
	}
	for w := range h.bySender[s.Sender] {
		w.signals.Add(1)
		poke(w.out)
	}
}

// Terminate implements dbus.Terminator; godbus calls it when the connection closes.
func (h *hub) Terminate() { h.doneOnce.Do(func() { close(h.done) }) }

// poke sends on a coalescing channel of capacity 1: a value already pending stands for this
// one too.
func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// watch is one WatchTree call.
type watch struct {
	pid     int
	out     chan struct{}   // the caller's channel; capacity 1
	apps    chan struct{}   // the registry's application list changed; capacity 1
	senders map[string]bool // written under hub.mu, by the watch's own goroutine only
	rules   []string        // match rules added for this watch, removed when it ends
	signals atomic.Int64    // signals delivered, for tests
}

// eventRegs counts the watches that need watchEvents registered with the registry.
type eventRegs struct {
	mu sync.Mutex
	n  int
}

// WatchTree reports changes in the accessible trees of the applications of process pid:
// children added or removed, states, text, names and values, windows created and destroyed.
// The returned channel gets one value per burst of changes (capacity 1, sends never block, so
// a notebook page switch that emits hundreds of events leaves at most one value pending) and
// is closed once ctx ends and the watch's match rules and event registrations are removed.
//
// Applications of pid that register on the bus after the call are watched from then on (the
// registry announces them), and their arrival counts as a change. Several watches may run
// at once; they share the client's connection.
func (c *Client) WatchTree(ctx context.Context, pid int) (<-chan struct{}, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := c.knowRegistry(ctx); err != nil {
		return nil, err
	}
	if err := c.acquireEvents(ctx); err != nil {
		return nil, err
	}
	w := &watch{pid: pid, out: make(chan struct{}, 1), apps: make(chan struct{}, 1), senders: make(map[string]bool)}
	c.hub.mu.Lock()
	c.hub.watches[w] = true
	c.hub.mu.Unlock()
	// Listen to the registry before listing applications, so one that registers in between
	// is announced and picked up by the loop.
	err := c.addRule(ctx, w, fmt.Sprintf("type='signal',sender='%s',path='%s',interface='%s',member='ChildrenChanged'",
		registryName, registryRoot, evObject))
	if err == nil {
		err = c.resolve(ctx, w)
	}
	if err != nil {
		c.endWatch(ctx, w)
		return nil, err
	}
	go c.runWatch(ctx, w)
	return w.out, nil
}

// knowRegistry learns the registry daemon's unique name: signals carry the sender's unique
// name, never the well-known one.
func (c *Client) knowRegistry(ctx context.Context) error {
	c.hub.mu.RLock()
	known := c.hub.registry != ""
	c.hub.mu.RUnlock()
	if known {
		return nil
	}
	call, _, err := c.call(ctx, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.GetNameOwner", registryName)
	if err != nil {
		return fmt.Errorf("%w: the AT-SPI registry has no owner: %v", platform.ErrAtspiUnavailable, err)
	}
	var owner string
	if err := call.Store(&owner); err != nil {
		return fmt.Errorf("atspi: registry owner: %w", err)
	}
	c.hub.mu.Lock()
	c.hub.registry = owner
	c.hub.mu.Unlock()
	return nil
}

// acquireEvents registers watchEvents when the first watch starts.
func (c *Client) acquireEvents(ctx context.Context) error {
	c.regs.mu.Lock()
	defer c.regs.mu.Unlock()
	if c.regs.n == 0 {
		for i, ev := range watchEvents {
			if err := c.registerEvent(ctx, ev); err != nil {
				c.deregister(ctx, watchEvents[:i])
				if f := classify(err); f == failCanceled {
					return err
				}
				return fmt.Errorf("%w: Registry.RegisterEvent %s: %v", platform.ErrAtspiUnavailable, ev, err)
			}
		}
	}
	c.regs.n++
	return nil
}

// releaseEvents deregisters watchEvents when the last watch ends, so applications stop
// sending events nobody reads.
func (c *Client) releaseEvents(ctx context.Context) {
	c.regs.mu.Lock()
	defer c.regs.mu.Unlock()
	c.regs.n--
	if c.regs.n == 0 {
		c.deregister(ctx, watchEvents)
	}
}

func (c *Client) deregister(ctx context.Context, events []string) {
	reg := c.conn.Object(registryName, registryPath)
	for _, ev := range events {
		cctx, cancel := c.callContext(ctx)
		err := reg.CallWithContext(cctx, "org.a11y.atspi.Registry.DeregisterEvent", 0, ev).Err
		cancel()
		if err != nil {
			c.log.Debug("atspi: DeregisterEvent", "event", ev, "err", err)
		}
	}
}

// addRule adds a match rule on the bus for w; the bus counts identical rules, so watches
// add and remove their own.
func (c *Client) addRule(ctx context.Context, w *watch, rule string) error {
	_, _, err := c.call(ctx, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.AddMatch", rule)
	if err != nil {
		return err
	}
	w.rules = append(w.rules, rule)
	return nil
}

func (c *Client) removeRule(ctx context.Context, rule string) {
	if _, _, err := c.call(ctx, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.RemoveMatch", rule); err != nil {
		c.log.Debug("atspi: RemoveMatch", "rule", rule, "err", err)
	}
}

func senderRules(bus string) []string {
	return []string{
		fmt.Sprintf("type='signal',sender='%s',interface='%s'", bus, evObject),
		fmt.Sprintf("type='signal',sender='%s',interface='%s'", bus, evWindow),
	}
}

// resolve brings w's senders up to date with the applications of its pid: new ones are
// listened to (and count as a change), ones that left are dropped.
func (c *Client) resolve(ctx context.Context, w *watch) error {
	apps, err := c.appsOf(ctx, w.pid)
	if err != nil {
		return err
	}
	now := make(map[string]bool, len(apps))
	for _, a := range apps {
		now[a.Bus] = true
	}
	for _, bus := range c.embedsOf(w.pid) {
		now[bus] = true // the plugs its windows embed (a WebKitGTK page's web process)
	}
	changed := false
	for bus := range now {
		if w.senders[bus] {
			continue
		}
		// Into the hub first: a signal that arrives as soon as the rule exists is not lost.
		c.hub.mu.Lock()
		if c.hub.bySender[bus] == nil {
			c.hub.bySender[bus] = make(map[*watch]bool)
		}
		c.hub.bySender[bus][w] = true
		w.senders[bus] = true
		c.hub.mu.Unlock()
		for _, r := range senderRules(bus) {
			if err := c.addRule(ctx, w, r); err != nil {
				return err
			}
		}
		changed = true
	}
	for bus := range w.senders {
		if now[bus] {
			continue
		}
		c.dropSender(w, bus)
		for _, r := range senderRules(bus) {
			c.removeRule(ctx, r)
			w.dropRule(r)
		}
		changed = true
	}
	if changed {
		poke(w.out)
	}
	return nil
}

func (c *Client) dropSender(w *watch, bus string) {
	c.hub.mu.Lock()
	delete(c.hub.bySender[bus], w)
	if len(c.hub.bySender[bus]) == 0 {
		delete(c.hub.bySender, bus)
	}
	delete(w.senders, bus)
	c.hub.mu.Unlock()
}

func (w *watch) dropRule(rule string) {
	for i, r := range w.rules {
		if r == rule {
			w.rules = append(w.rules[:i], w.rules[i+1:]...)
			return
		}
	}
}

// runWatch follows the registry until ctx ends or the connection closes.
func (c *Client) runWatch(ctx context.Context, w *watch) {
	for {
		select {
		case <-ctx.Done():
			c.endWatch(ctx, w)
			return
		case <-c.hub.done:
			c.endWatch(ctx, w)
			return
		case <-w.apps:
			if err := c.resolve(ctx, w); err != nil && !errors.Is(err, context.Canceled) {
				// Keep what is watched; the next announcement tries again.
				c.log.Debug("atspi: watch: re-resolving applications", "pid", w.pid, "err", err)
			}
		}
	}
}

// endWatch unhooks w from the hub (no send can follow), removes its rules and registrations,
// and only then closes its channel, so a caller that sees the channel closed knows the bus
// is clean.
func (c *Client) endWatch(ctx context.Context, w *watch) {
	c.hub.mu.Lock()
	delete(c.hub.watches, w)
	for bus := range w.senders {
		delete(c.hub.bySender[bus], w)
		if len(c.hub.bySender[bus]) == 0 {
			delete(c.hub.bySender, bus)
		}
	}
	c.hub.mu.Unlock()
	// ctx is usually over by now; cleanup calls get their own deadlines.
	cctx := context.WithoutCancel(ctx)
	select {
	case <-c.hub.done:
		// The connection is gone, and with it every rule and registration it made.
	default:
		for _, r := range w.rules {
			c.removeRule(cctx, r)
		}
	}
	w.rules = nil
	c.releaseEvents(cctx)
	close(w.out)
}
