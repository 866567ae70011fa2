// Package wlclient is what mcec asks of a Wayland compositor, on internal/wayland/wire: the
// globals it offers, the outputs and their layout (wl_output, xdg-output), pixels
// (wlr-screencopy into shared memory), a virtual pointer and keyboard (wlr-virtual-pointer,
// virtual-keyboard with keymaps of its own), and the clipboard (wlr-data-control). Each needs
// its global: where the compositor lacks one, the call fails with ErrUnsupported.
package wlclient

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/mcec/mcec/internal/wayland/wire"
)

// ErrUnsupported is the failure of a call whose protocol the compositor does not offer.
var ErrUnsupported = errors.New("wayland: protocol not offered by the compositor")

// Global is one global the compositor offers.
type Global struct {
	Name      uint32
	Interface string
	Version   uint32
}

// Output is one output, in the compositor's logical layout.
type Output struct {
	Name, Description, Make, Model    string
	X, Y, Width, Height               int // logical rectangle (xdg-output; else geometry and mode)
	PhysicalWidthMM, PhysicalHeightMM int
	Scale                             int // wl_output.scale
	ModeWidth, ModeHeight             int // the current mode, in pixels
	id                                uint32
	xdg                               bool // the logical rectangle came from xdg-output
}

// Client is a connection to a compositor with the globals mcec uses bound. It is safe for
// concurrent use.
type Client struct {
	c        *wire.Conn
	registry uint32

	mu       sync.Mutex
	globals  []Global
	bound    map[string]uint32    // interface → object id of the bound global (first of its kind)
	outputs  []*Output            // updated from events
	tops     map[uint32]*Toplevel // foreign toplevels by handle id, updated from events
	topSeq   uint32               // the last Toplevel.Seq given
	topFocus uint64               // the last Toplevel.Focus given
	// topWatchers are woken on every change of the toplevels (WatchToplevels).
	topWatchers map[chan struct{}]struct{}

	ptrOnce  sync.Once
	ptr      *Pointer
	ptrErr   error
	kbdOnce  sync.Once
	kbd      *Keyboard
	kbdErr   error
	fakeOnce sync.Once
	fake     *FakeInput
	fakeErr  error
	clip     *clipboard
}

// Dial connects to the compositor's socket and binds what it offers of the globals this package
// uses.
func Dial(ctx context.Context, socket string) (*Client, error) {
	c, err := wire.Dial(ctx, socket)
	if err != nil {
		return nil, err
	}
	cl := &Client{c: c, bound: map[string]uint32{}, tops: map[uint32]*Toplevel{}}
	if err := cl.start(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return cl, nil
}

func (cl *Client) start(ctx context.Context) error {
	var err error
	cl.registry, err = cl.c.GetRegistry(cl.registryEvent)
	if err != nil {
		return err
	}
	if err := cl.c.Roundtrip(ctx); err != nil { // the globals
		return err
	}
	cl.mu.Lock()
	globals := slices.Clone(cl.globals)
	cl.mu.Unlock()
	for _, g := range globals {
		want, ok := speaks[g.Interface]
		if !ok || g.Interface != ifOutput && cl.bound[g.Interface] != 0 {
			continue
		}
		if err := cl.bind(g, min(want, g.Version)); err != nil {
			return err
		}
	}
	if err := cl.c.Roundtrip(ctx); err != nil { // the outputs' first events
		return err
	}
	if mgr := cl.bound[ifXdgOutputMgr]; mgr != 0 {
		cl.mu.Lock()
		outs := slices.Clone(cl.outputs)
		cl.mu.Unlock()
		for _, o := range outs {
			if err := cl.watchXdgOutput(mgr, o); err != nil {
				return err
			}
		}
		return cl.c.Roundtrip(ctx)
	}
	return nil
}

func (cl *Client) registryEvent(op uint16, m *wire.Message) {
	switch op {
	case registryGlobal:
		g := Global{Name: m.Uint(), Interface: m.String(), Version: m.Uint()}
		if m.Err() == nil {
			cl.mu.Lock()
			cl.globals = append(cl.globals, g)
			cl.mu.Unlock()
		}
	case registryGlobalRemove:
		name := m.Uint()
		cl.mu.Lock()
		cl.globals = slices.DeleteFunc(cl.globals, func(g Global) bool { return g.Name == name })
		cl.mu.Unlock()
	}
}

// bind binds global g at version v.
func (cl *Client) bind(g Global, v uint32) error {
	var h wire.Handler
	var out *Output
	switch g.Interface {
	case ifOutput:
		out = &Output{Scale: 1}
		h = cl.outputEvent(out)
	case ifToplevels:
		h = cl.toplevelsEvent
	}
	id := cl.c.NewObject(h)
	if err := cl.c.Send(cl.registry, registryBind, wire.Uint(g.Name), wire.String(g.Interface), wire.Uint(v), wire.NewID(id)); err != nil {
		return err
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if out != nil {
		out.id = id
		cl.outputs = append(cl.outputs, out)
	}
	if cl.bound[g.Interface] == 0 {
		cl.bound[g.Interface] = id
	}
	return nil
}

// outputEvent keeps o up to date from wl_output's events.
func (cl *Client) outputEvent(o *Output) wire.Handler {
	return func(op uint16, m *wire.Message) {
		cl.mu.Lock()
		defer cl.mu.Unlock()
		switch op {
		case outputGeometry:
			x, y, pw, ph := m.Int(), m.Int(), m.Int(), m.Int()
			m.Int()
			o.Make, o.Model = m.String(), m.String()
			o.PhysicalWidthMM, o.PhysicalHeightMM = int(pw), int(ph)
			if !o.xdg {
				o.X, o.Y = int(x), int(y)
			}
		case outputMode:
			flags, w, h := m.Uint(), m.Int(), m.Int()
			if flags&outputModeCurrent != 0 {
				o.ModeWidth, o.ModeHeight = int(w), int(h)
				if !o.xdg {
					o.Width, o.Height = int(w)/max(o.Scale, 1), int(h)/max(o.Scale, 1)
				}
			}
		case outputScale:
			o.Scale = max(int(m.Int()), 1)
		case outputName:
			o.Name = m.String()
		case outputDescription:
			o.Description = m.String()
		}
	}
}

// watchXdgOutput asks xdg-output for o's logical rectangle and name.
func (cl *Client) watchXdgOutput(mgr uint32, o *Output) error {
	id := cl.c.NewObject(func(op uint16, m *wire.Message) {
		cl.mu.Lock()
		defer cl.mu.Unlock()
		switch op {
		case xdgOutputPosition:
			o.X, o.Y, o.xdg = int(m.Int()), int(m.Int()), true
		case xdgOutputSize:
			o.Width, o.Height, o.xdg = int(m.Int()), int(m.Int()), true
		case xdgOutputName:
			o.Name = m.String()
		case xdgOutputDesc:
			o.Description = m.String()
		}
	})
	return cl.c.Send(mgr, xdgOutputManagerGet, wire.NewID(id), wire.Object(o.id))
}

// Globals lists what the compositor offers.
func (cl *Client) Globals() []Global {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return slices.Clone(cl.globals)
}

// Has reports whether the compositor offers iface.
func (cl *Client) Has(iface string) bool {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return slices.ContainsFunc(cl.globals, func(g Global) bool { return g.Interface == iface })
}

// need returns the object of a bound global, or ErrUnsupported naming it.
func (cl *Client) need(iface string) (uint32, error) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if id := cl.bound[iface]; id != 0 {
		return id, nil
	}
	return 0, fmt.Errorf("%w: %s", ErrUnsupported, iface)
}

// Outputs lists the outputs as the compositor last described them.
func (cl *Client) Outputs(ctx context.Context) ([]Output, error) {
	if err := cl.c.Err(); err != nil {
		return nil, err
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	out := make([]Output, 0, len(cl.outputs))
	for _, o := range cl.outputs {
		out = append(out, *o)
	}
	return out, nil
}

// layout is the bounding box of every output.
func (cl *Client) layout() (x0, y0, x1, y1 int) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	for i, o := range cl.outputs {
		if i == 0 {
			x0, y0, x1, y1 = o.X, o.Y, o.X+o.Width, o.Y+o.Height
			continue
		}
		x0, y0 = min(x0, o.X), min(y0, o.Y)
		x1, y1 = max(x1, o.X+o.Width), max(y1, o.Y+o.Height)
	}
	return x0, y0, x1, y1
}

// CompositorPID is the process id of the compositor at the other end of the socket.
func (cl *Client) CompositorPID() (int, error) { return cl.c.PeerPID() }

// Roundtrip waits until the compositor has handled everything sent before.
func (cl *Client) Roundtrip(ctx context.Context) error { return cl.c.Roundtrip(ctx) }

// Close releases held input, destroys the devices and closes the connection.
func (cl *Client) Close() error {
	if cl.fake != nil {
		cl.fake.release()
	}
	if cl.kbd != nil {
		cl.kbd.destroy()
	}
	if cl.ptr != nil {
		cl.ptr.destroy()
	}
	return cl.c.Close()
}
