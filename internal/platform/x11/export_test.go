package x11

import "time"

// Knobs for tests: paths a healthy Xvfb never takes, and measurements.

// SetSHM turns MIT-SHM capture off (or back on, when the connection has it).
func SetSHM(c *Conn, on bool) { c.ext.SHM = on && c.shm != nil }

// SetXRes pretends the server has no X Resource extension (or gives it back).
func SetXRes(c *Conn, on bool) { c.ext.XRes = on }

// SetComposite pretends the server has no Composite extension.
func SetComposite(c *Conn, on bool) { c.ext.Composite = on }

// SetStripBytes makes captures split into strips of at most n bytes.
func SetStripBytes(c *Conn, n int) { c.stripBytes = n }

// SetSpareLimit makes typing use at most n spare keycodes (0: all), to exercise segments.
func SetSpareLimit(c *Conn, n int) { c.in.spareLimit = n }

// SetRemapSettle makes a gesture wait d before restoring remapped keycodes instead of pinging
// the application (nil: ping again), to measure what applications need.
func SetRemapSettle(c *Conn, d *time.Duration) { c.in.settle = d }

// Watchers counts the WatchWindows subscribers (and window operations in progress).
func Watchers(c *Conn) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.wakes[c.scr.root])
}

// SetMoveResizeMessage turns the use of _NET_MOVERESIZE_WINDOW off (ConfigureWindow only).
func SetMoveResizeMessage(c *Conn, on bool) { c.noMoveResizeMessage = !on }
