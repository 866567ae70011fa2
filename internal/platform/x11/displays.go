package x11

import (
	"context"
	"math"

	"github.com/jezek/xgb/randr"
	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/platform"
)

// Displays lists the RandR monitors (one monitor covering the root when RandR 1.5 is missing)
// and the virtual screen bounds.
func (c *Conn) Displays(ctx context.Context) (platform.Displays, error) {
	var out platform.Displays
	err := c.await(ctx, "listing displays", func() error {
		geomC := xproto.GetGeometry(c.xc, xproto.Drawable(c.scr.root))
		waC := xproto.GetProperty(c.xc, false, c.scr.root, c.atoms.netWorkarea, xproto.AtomCardinal, 0, 4)
		var monC randr.GetMonitorsCookie
		if c.ext.RandR {
			monC = randr.GetMonitors(c.xc, c.scr.root, true)
		}
		geom, err := geomC.Reply()
		if err != nil {
			return err
		}
		wa, err := waC.Reply()
		if err != nil {
			return err
		}
		out.VirtualBounds = platform.Rect{Width: int(geom.Width), Height: int(geom.Height)}
		c.bounds.Store(&out.VirtualBounds)

		var mons []randr.MonitorInfo
		if c.ext.RandR {
			r, err := monC.Reply()
			if err != nil {
				return err
			}
			mons = r.Monitors
		}
		names, err := c.atomNamesOf(mons)
		if err != nil {
			return err
		}
		var workarea *platform.Rect
		if v := prop32(wa); len(v) >= 4 {
			workarea = &platform.Rect{X: int(int32(v[0])), Y: int(int32(v[1])), Width: int(v[2]), Height: int(v[3])}
		}
		out.Monitors = c.monitors(mons, names, out.VirtualBounds, workarea)
		return nil
	})
	if err != nil {
		return platform.Displays{}, xerr(err, platform.ErrDisplayUnavailable, "listing displays")
	}
	return out, nil
}

// monitors builds the monitor list; with no RandR monitors, the root is the one monitor.
func (c *Conn) monitors(mons []randr.MonitorInfo, names []string, root platform.Rect, workarea *platform.Rect) []platform.Monitor {
	if len(mons) == 0 {
		return []platform.Monitor{c.monitor(0, true, "default", root, 0, workarea)}
	}
	out := make([]platform.Monitor, 0, len(mons))
	primary := false
	for i, m := range mons {
		b := platform.Rect{X: int(m.X), Y: int(m.Y), Width: int(m.Width), Height: int(m.Height)}
		out = append(out, c.monitor(i, m.Primary, names[i], b, m.WidthInMillimeters, workarea))
		primary = primary || m.Primary
	}
	if !primary {
		// X has no primary until someone sets one; clients then treat the first as primary.
		out[0].Primary = true
	}
	return out
}

func (c *Conn) monitor(i int, primary bool, name string, b platform.Rect, widthMM uint32, workarea *platform.Rect) platform.Monitor {
	dpi := 96.0
	switch {
	case widthMM > 0 && b.Width > 0:
		dpi = float64(b.Width) / (float64(widthMM) / 25.4)
	case c.scr.widthMM > 0:
		// RandR monitors without a physical size inherit the screen's pixels per millimetre.
		dpi = float64(c.scr.widthPx) / (float64(c.scr.widthMM) / 25.4)
	}
	wa := b
	if workarea != nil {
		if in := workarea.Intersect(b); !in.Empty() {
			wa = in
		}
	}
	return platform.Monitor{
		Index:       i,
		Primary:     primary,
		Name:        name,
		Bounds:      b,
		WorkingArea: wa,
		DPI:         round2(dpi),
		Scale:       round2(dpi / 96),
	}
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

// atomNamesOf resolves monitor name atoms through a per-connection cache; only unknown atoms
// cost a (pipelined) round trip.
func (c *Conn) atomNamesOf(mons []randr.MonitorInfo) ([]string, error) {
	names := make([]string, len(mons))
	var unknown []int
	c.mu.Lock()
	for i, m := range mons {
		if n, ok := c.atomNames[m.Name]; ok {
			names[i] = n
		} else if m.Name != 0 {
			unknown = append(unknown, i)
		}
	}
	c.mu.Unlock()
	// Requests are never issued under c.mu: sending can block, and the event loop takes c.mu.
	pending := map[int]xproto.GetAtomNameCookie{}
	for _, i := range unknown {
		pending[i] = xproto.GetAtomName(c.xc, mons[i].Name)
	}
	for i, ck := range pending {
		r, err := ck.Reply()
		if err != nil {
			return nil, err
		}
		names[i] = r.Name
		c.mu.Lock()
		c.atomNames[mons[i].Name] = r.Name
		c.mu.Unlock()
	}
	return names, nil
}
