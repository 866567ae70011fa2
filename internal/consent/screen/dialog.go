package screen

import (
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"os"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/consent"
	"github.com/mcec/mcec/internal/xgbext"
	"github.com/mcec/mcec/internal/xinput2"
)

// xLimit bounds every X round trip; a server that does not answer in time is given up on (the
// connection is closed) and the question is left to `mcec consent`.
const xLimit = 5 * time.Second

// StateProperty is a STRING property on the dialog window: "waiting" while presses do not count
// yet (ArmDelay), then "armed".
const StateProperty = "_MCEC_CONSENT_STATE"

// conns is the dialog's two connections to the display: xgb for the window and its pixels,
// xinput2 for the device events xgb cannot read.
type conns struct {
	x      *xgb.Conn
	xi     *xinput2.Conn
	screen *xproto.ScreenInfo
	maxReq int // bytes in one request
}

// connect opens both connections and checks the screen can show the dialog's pixels: a
// TrueColor depth-24 root visual stored as 32-bit little-endian pixels, as on every current X
// server.
func connect(ctx context.Context, display string) (*conns, error) {
	ctx, cancel := context.WithTimeout(ctx, xLimit)
	defer cancel()
	xi, err := xinput2.Dial(ctx, display)
	if err != nil {
		return nil, err
	}
	x, err := xgbext.Dial(ctx, display)
	if err != nil {
		xi.Close()
		return nil, fmt.Errorf("connect to X display %s: %w", display, err)
	}
	c := &conns{x: x, xi: xi}
	setup := xproto.Setup(x)
	c.screen = setup.DefaultScreen(x)
	c.maxReq = int(setup.MaximumRequestLength) * 4
	if err := checkVisual(setup, c.screen); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func checkVisual(setup *xproto.SetupInfo, s *xproto.ScreenInfo) error {
	if s.RootDepth != 24 || setup.ImageByteOrder != xproto.ImageOrderLSBFirst {
		return fmt.Errorf("unsupported screen: depth %d, image byte order %d (want depth 24, LSB first)", s.RootDepth, setup.ImageByteOrder)
	}
	bpp := 0
	for _, f := range setup.PixmapFormats {
		if f.Depth == 24 {
			bpp = int(f.BitsPerPixel)
		}
	}
	if bpp != 32 {
		return fmt.Errorf("unsupported screen: depth 24 stored in %d bits per pixel (want 32)", bpp)
	}
	for _, d := range s.AllowedDepths {
		for _, v := range d.Visuals {
			if v.VisualId == s.RootVisual {
				if v.Class != xproto.VisualClassTrueColor || v.RedMask != 0xff0000 || v.GreenMask != 0xff00 || v.BlueMask != 0xff {
					return fmt.Errorf("unsupported root visual (class %d, masks %#x %#x %#x)", v.Class, v.RedMask, v.GreenMask, v.BlueMask)
				}
				return nil
			}
		}
	}
	return errors.New("the root visual is not among the screen's visuals")
}

func (c *conns) close() {
	c.x.Close()
	c.xi.Close()
}

// within runs f, which waits on xgb replies, for at most xLimit; past that the xgb connection
// is closed, which fails f's pending replies and ends the dialog.
func (c *conns) within(what string, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	t := time.NewTimer(xLimit)
	defer t.Stop()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	case <-t.C:
		c.x.Close()
		return fmt.Errorf("%s: the X server did not answer within %s", what, xLimit)
	}
}

// press is a hardware press that answers the question.
type press struct {
	answer consent.Answer
	device string
}

// dialog is one question on screen.
type dialog struct {
	c      *conns
	log    *slog.Logger
	win    xproto.Window
	lay    *layout
	state  xproto.Atom
	core   chan xgb.Event // Expose, MapNotify, ...; closed when the connection ends
	press  chan press     // hardware presses on an answer
	xiDone chan struct{}
	// activeAtom is _NET_ACTIVE_WINDOW.
	activeAtom xproto.Atom
}

// atoms the dialog sets.
var atomNames = []string{"_NET_WM_NAME", "UTF8_STRING", "_NET_WM_PID", "_NET_WM_WINDOW_TYPE", "_NET_WM_WINDOW_TYPE_DIALOG",
	"_NET_WM_STATE", "_NET_WM_STATE_ABOVE", "_NET_ACTIVE_WINDOW", "WM_PROTOCOLS", "WM_DELETE_WINDOW", StateProperty}

// open creates and maps the dialog window for q. It is a normal managed top-level window that
// asks the window manager to keep it above others (_NET_WM_STATE_ABOVE) and to focus it, so the
// operator sees it and keys reach it; it claims mcec's pid and class so no tool lists or
// targets it (xgbext.OwnClass).
func open(ctx context.Context, display string, q consent.Question, log *slog.Logger) (*dialog, error) {
	lay, err := lay(q)
	if err != nil {
		return nil, err
	}
	c, err := connect(ctx, display)
	if err != nil {
		return nil, err
	}
	d := &dialog{c: c, log: log, lay: lay, core: make(chan xgb.Event, 16), press: make(chan press, 4), xiDone: make(chan struct{})}
	if err := d.create(q); err != nil {
		c.close()
		return nil, err
	}
	go d.readCore()
	hw, err := newHardware(c.xi, uint32(d.win), lay, log)
	if err != nil {
		c.close()
		return nil, err
	}
	go func() {
		defer close(d.xiDone)
		hw.run(d.press)
	}()
	if err := c.within("mapping the consent dialog", func() error {
		return xproto.MapWindowChecked(c.x, d.win).Check()
	}); err != nil {
		d.close()
		return nil, err
	}
	return d, nil
}

func (d *dialog) create(q consent.Question) error {
	c := d.c
	return c.within("creating the consent dialog", func() error {
		cookies := make([]xproto.InternAtomCookie, len(atomNames))
		for i, n := range atomNames {
			cookies[i] = xproto.InternAtom(c.x, false, uint16(len(n)), n)
		}
		atom := map[string]xproto.Atom{}
		for i, ck := range cookies {
			r, err := ck.Reply()
			if err != nil {
				return err
			}
			atom[atomNames[i]] = r.Atom
		}
		d.state = atom[StateProperty]
		id, err := xproto.NewWindowId(c.x)
		if err != nil {
			return err
		}
		s := c.screen
		w, h := d.lay.size.X, d.lay.size.Y
		x, y := (int(s.WidthInPixels)-w)/2, (int(s.HeightInPixels)-h)/3
		if err := xproto.CreateWindowChecked(c.x, s.RootDepth, id, s.Root, int16(max(x, 0)), int16(max(y, 0)), uint16(w), uint16(h), 0,
			xproto.WindowClassInputOutput, s.RootVisual, xproto.CwBackPixel|xproto.CwEventMask,
			[]uint32{0xf6f6f4, xproto.EventMaskExposure | xproto.EventMaskStructureNotify}).Check(); err != nil {
			return err
		}
		d.win = id
		set := func(prop, typ xproto.Atom, format byte, data []byte) xproto.ChangePropertyCookie {
			return xproto.ChangePropertyChecked(c.x, xproto.PropModeReplace, id, prop, typ, format, uint32(len(data)*8/int(format)), data)
		}
		u32s := func(vs ...uint32) []byte {
			b := make([]byte, 4*len(vs))
			for i, v := range vs {
				xgb.Put32(b[4*i:], v)
			}
			return b
		}
		host, _ := os.Hostname()
		sizeHints := make([]uint32, 18)
		sizeHints[0] = 1 | 4 | 16 | 32 // USPosition, PPosition, PMinSize, PMaxSize: a fixed-size dialog
		sizeHints[1], sizeHints[2] = uint32(max(x, 0)), uint32(max(y, 0))
		sizeHints[5], sizeHints[6], sizeHints[7], sizeHints[8] = uint32(w), uint32(h), uint32(w), uint32(h)
		cks := []xproto.ChangePropertyCookie{
			set(xproto.AtomWmName, xproto.AtomString, 8, []byte(Title)),
			set(atom["_NET_WM_NAME"], atom["UTF8_STRING"], 8, []byte(Title)),
			set(xproto.AtomWmClass, xproto.AtomString, 8, []byte("mcec\x00"+xgbext.OwnClass+"\x00")),
			set(xproto.AtomWmClientMachine, xproto.AtomString, 8, []byte(host)),
			set(atom["_NET_WM_PID"], xproto.AtomCardinal, 32, u32s(uint32(os.Getpid()))),
			set(atom["_NET_WM_WINDOW_TYPE"], xproto.AtomAtom, 32, u32s(uint32(atom["_NET_WM_WINDOW_TYPE_DIALOG"]))),
			set(atom["_NET_WM_STATE"], xproto.AtomAtom, 32, u32s(uint32(atom["_NET_WM_STATE_ABOVE"]))),
			// WM_DELETE_WINDOW: the window manager's close button asks, and the dialog stays (it
			// closes when answered or when the question ends), rather than the server
			// killing the connection.
			set(atom["WM_PROTOCOLS"], xproto.AtomAtom, 32, u32s(uint32(atom["WM_DELETE_WINDOW"]))),
			set(xproto.AtomWmHints, xproto.AtomWmHints, 32, u32s(1, 1, 1, 0, 0, 0, 0, 0, 0)), // InputHint: true; NormalState
			set(xproto.AtomWmNormalHints, xproto.AtomWmSizeHints, 32, u32s(sizeHints...)),
			set(d.state, xproto.AtomString, 8, []byte("waiting")),
		}
		for _, ck := range cks {
			if err := ck.Check(); err != nil {
				return err
			}
		}
		d.activeAtom = atom["_NET_ACTIVE_WINDOW"]
		return nil
	})
}

// readCore forwards the xgb connection's events; X errors of unchecked requests are logged.
func (d *dialog) readCore() {
	defer close(d.core)
	for {
		ev, err := d.c.x.WaitForEvent()
		if ev == nil && err == nil {
			return // connection closed
		}
		if err != nil {
			d.log.Debug("consent dialog: X error", "err", err)
			continue
		}
		d.core <- ev
	}
}

// paint puts the image on the window in requests under the server's maximum request length.
func (d *dialog) paint(armed bool) error {
	img := d.lay.draw(armed)
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	rows := max(1, (d.c.maxReq-24)/(w*4))
	return d.c.within("drawing the consent dialog", func() error {
		gc, err := xproto.NewGcontextId(d.c.x)
		if err != nil {
			return err
		}
		if err := xproto.CreateGCChecked(d.c.x, gc, xproto.Drawable(d.win), 0, nil).Check(); err != nil {
			return err
		}
		defer xproto.FreeGC(d.c.x, gc)
		for y := 0; y < h; y += rows {
			n := min(rows, h-y)
			xproto.PutImage(d.c.x, xproto.ImageFormatZPixmap, xproto.Drawable(d.win), gc, uint16(w), uint16(n), 0, int16(y), 0, 24, bgrx(img, y, y+n))
		}
		_, err = xproto.GetInputFocus(d.c.x).Reply() // a round trip: the pixels are there
		return err
	})
}

// setState sets StateProperty.
func (d *dialog) setState(s string) error {
	return d.c.within("marking the consent dialog", func() error {
		return xproto.ChangePropertyChecked(d.c.x, xproto.PropModeReplace, d.win, d.state, xproto.AtomString, 8, uint32(len(s)), []byte(s)).Check()
	})
}

// focus asks the window manager to activate the dialog (EWMH _NET_ACTIVE_WINDOW, as a pager
// would), which raises it and gives it the keyboard.
func (d *dialog) focus() error {
	return d.c.within("focusing the consent dialog", func() error {
		ev := xproto.ClientMessageEvent{Format: 32, Window: d.win, Type: d.activeAtom,
			Data: xproto.ClientMessageDataUnionData32New([]uint32{2, 0, 0, 0, 0})}
		return xproto.SendEventChecked(d.c.x, false, d.c.screen.Root,
			xproto.EventMaskSubstructureRedirect|xproto.EventMaskSubstructureNotify, string(ev.Bytes())).Check()
	})
}

// close destroys the window and closes both connections.
func (d *dialog) close() {
	_ = d.c.within("closing the consent dialog", func() error {
		return xproto.DestroyWindowChecked(d.c.x, d.win).Check()
	})
	d.c.close()
	<-d.xiDone
}

// hardware reads the XI2 presses on the dialog and keeps those of a physical device.
type hardware struct {
	xi   *xinput2.Conn
	win  uint32
	lay  *layout
	log  *slog.Logger
	devs map[uint16]xinput2.Device
	keys map[uint32]consent.Answer
}

func newHardware(xi *xinput2.Conn, win uint32, lay *layout, log *slog.Logger) (*hardware, error) {
	h := &hardware{xi: xi, win: win, lay: lay, log: log}
	if err := xi.SelectWindowPresses(win); err != nil {
		return nil, err
	}
	if err := h.refreshDevices(); err != nil {
		return nil, err
	}
	if err := h.refreshKeys(); err != nil {
		return nil, err
	}
	return h, nil
}

func (h *hardware) refreshDevices() error {
	devs, err := h.xi.QueryDevices()
	if err != nil {
		return fmt.Errorf("XIQueryDevice: %w", err)
	}
	h.devs = make(map[uint16]xinput2.Device, len(devs))
	for _, d := range devs {
		h.devs[d.ID] = d
	}
	return nil
}

func (h *hardware) refreshKeys() error {
	km, err := h.xi.KeyboardMapping()
	if err != nil {
		return fmt.Errorf("GetKeyboardMapping: %w", err)
	}
	h.keys = map[uint32]consent.Answer{}
	for _, b := range h.lay.buttons {
		upper := b.key - 'a' + 'A'
		for _, code := range km.Codes(uint32(b.key), uint32(upper)) {
			h.keys[code] = b.answer
		}
	}
	return nil
}

// physical reports whether source is a slave device that is not an XTEST device (every XTEST
// client's input, mcec's own and xdotool's included, comes from an XTEST device). An unknown
// source makes it re-read the device list once.
func (h *hardware) physical(source uint16) (xinput2.Device, bool) {
	d, ok := h.devs[source]
	if !ok {
		if err := h.refreshDevices(); err != nil {
			return d, false
		}
		if d, ok = h.devs[source]; !ok {
			return d, false
		}
	}
	return d, d.Physical()
}

// Modifier bits that make a key press not an answer (Control, Mod1/Alt, Mod4/Super).
const skipMods = 1<<2 | 1<<3 | 1<<6

// run reads events until the connection closes.
func (h *hardware) run(out chan<- press) {
	for {
		ev, err := h.xi.NextEvent()
		if err != nil {
			return
		}
		var a consent.Answer
		switch ev.Kind {
		case xinput2.ButtonPress:
			b, ok := h.lay.hit(image.Pt(ev.EventX, ev.EventY))
			if ev.Window != h.win || ev.Detail != 1 || !ok {
				continue
			}
			a = b.answer
		case xinput2.KeyPress:
			k, ok := h.keys[ev.Detail]
			if ev.Window != h.win || !ok || ev.Flags&xinput2.KeyRepeat != 0 || ev.Mods&skipMods != 0 {
				continue
			}
			a = k
		case xinput2.HierarchyChanged:
			_ = h.refreshDevices()
			continue
		case xinput2.MappingNotify:
			if ev.Request == 1 {
				_ = h.refreshKeys()
			}
			continue
		default:
			continue
		}
		dev, ok := h.physical(ev.Source)
		if ev.Synthetic || !ok {
			h.log.Info("consent dialog: ignored a press that is not from a physical device", "device", dev.Name, "source", ev.Source)
			continue
		}
		select {
		case out <- press{answer: a, device: dev.Name}:
		default: // an answer is already waiting
		}
	}
}
