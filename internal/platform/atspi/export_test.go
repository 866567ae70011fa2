package atspi

// WalkWithoutCache makes c ignore Cache.GetItems, so tests and benchmarks exercise the
// fallback walk by calls on a GTK application. Call it before c is used.
func WalkWithoutCache(c *Client) { c.noCache = true }

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
