package atspi

// WalkWithoutCache makes c ignore Cache.GetItems, so tests and benchmarks exercise the
// fallback walk by calls on a GTK application. Call it before c is used.
func WalkWithoutCache(c *Client) { c.noCache = true }
