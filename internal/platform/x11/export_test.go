package x11

// Knobs for tests of paths a healthy Xvfb never takes.

// SetSHM turns MIT-SHM capture off (or back on, when the connection has it).
func SetSHM(c *Conn, on bool) { c.ext.SHM = on && c.shm != nil }

// SetComposite pretends the server has no Composite extension.
func SetComposite(c *Conn, on bool) { c.ext.Composite = on }

// SetStripBytes makes captures split into strips of at most n bytes.
func SetStripBytes(c *Conn, n int) { c.stripBytes = n }
