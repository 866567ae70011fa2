package estop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync/atomic"
	"time"

	"github.com/mcec/mcec/internal/xinput2"
)

// dialLimit bounds connecting to the display and setting up the listener.
const dialLimit = 5 * time.Second

// xconn is what the listener asks of its X connection (an *xinput2.Conn).
type xconn interface {
	SelectRawInput() error
	QueryDevices() ([]xinput2.Device, error)
	KeyboardMapping() (xinput2.Keymap, error)
	NextEvent() (xinput2.Event, error)
	Close() error
}

// Listener reads the hotkey on its own X connection and goroutine.
type Listener struct {
	c      xconn
	hk     Hotkey
	latch  *Latch
	log    *slog.Logger
	t      *tracker
	devs   map[uint16]xinput2.Device
	closed atomic.Bool
	done   chan struct{}

	// physicalInput, when set, is told of every press of a person's key (not a modifier alone,
	// not the stop's chord) or button: the take-over gives them control.
	physicalInput atomic.Pointer[func()]
	modifiers     map[uint32]bool // keycodes of modifier keys
}

// OnPhysicalInput makes f be called, on the listener's goroutine, for every press of a
// person's key or button: a device that is not XTEST, so neither mcec's own input nor any other
// XTEST client's counts. A modifier pressed alone and the stop's chord do not count. f must not
// block.
func (ls *Listener) OnPhysicalInput(f func()) { ls.physicalInput.Store(&f) }

// modifierKeysyms are the keysyms of keys that only modify others (X11 keysymdef.h): a person
// reaching for a chord has not started using the desktop yet.
var modifierKeysyms = []uint32{
	0xffe1, 0xffe2, // Shift_L, Shift_R
	0xffe3, 0xffe4, // Control_L, Control_R
	0xffe5, 0xffe6, // Caps_Lock, Shift_Lock
	0xffe7, 0xffe8, 0xffe9, 0xffea, // Meta_L, Meta_R, Alt_L, Alt_R
	0xffeb, 0xffec, 0xffed, 0xffee, // Super_L, Super_R, Hyper_L, Hyper_R
	0xfe03, 0xff7f, // ISO_Level3_Shift, Num_Lock
}

func (ls *Listener) physical(kind string) {
	if f := ls.physicalInput.Load(); f != nil {
		ls.log.Debug("physical input", "kind", kind)
		(*f)()
	}
}

// Listen connects to display, selects raw key events and starts reading them. On failure the
// latch is marked unavailable (with the reason) and the error returned: the server goes on
// without the hotkey.
func Listen(ctx context.Context, display string, hk Hotkey, latch *Latch, log *slog.Logger) (*Listener, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ls, err := listen(ctx, display, hk, latch, log)
	if err != nil {
		latch.SetHotkey(hk.String(), err.Error())
		return nil, err
	}
	latch.SetHotkey(hk.String(), "")
	go ls.run()
	return ls, nil
}

func listen(ctx context.Context, display string, hk Hotkey, latch *Latch, log *slog.Logger) (*Listener, error) {
	ctx, cancel := context.WithTimeout(ctx, dialLimit)
	defer cancel()
	c, err := xinput2.Dial(ctx, display)
	if err != nil {
		return nil, fmt.Errorf("emergency stop hotkey: %w", err)
	}
	ls := &Listener{c: c, hk: hk, latch: latch, log: log, t: newTracker(hk), done: make(chan struct{})}
	if err := ls.setup(); err != nil {
		c.Close()
		return nil, fmt.Errorf("emergency stop hotkey: %w", err)
	}
	return ls, nil
}

func (ls *Listener) setup() error {
	if err := ls.c.SelectRawInput(); err != nil {
		return err
	}
	if err := ls.refreshDevices(); err != nil {
		return err
	}
	return ls.refreshKeymap()
}

func (ls *Listener) refreshDevices() error {
	devs, err := ls.c.QueryDevices()
	if err != nil {
		return fmt.Errorf("XIQueryDevice: %w", err)
	}
	m := make(map[uint16]xinput2.Device, len(devs))
	var xtest []string
	for _, d := range devs {
		m[d.ID] = d
		if d.IsXTest() {
			xtest = append(xtest, fmt.Sprintf("%d %q", d.ID, d.Name))
		}
	}
	ls.devs = m
	ls.t.forget(func(id uint16) bool { _, ok := m[id]; return ok })
	ls.log.Debug("emergency stop: input devices", "count", len(devs), "ignored XTEST devices", xtest)
	return nil
}

func (ls *Listener) refreshKeymap() error {
	km, err := ls.c.KeyboardMapping()
	if err != nil {
		return fmt.Errorf("GetKeyboardMapping: %w", err)
	}
	mods := map[uint32]bool{}
	for _, c := range km.Codes(modifierKeysyms...) {
		mods[c] = true
	}
	ls.modifiers = mods
	return ls.t.setKeymap(km)
}

// fromPerson reports whether source is a slave device that is not an XTEST device. A source
// not in the table makes it re-read the device list once (a keyboard plugged in just now).
func (ls *Listener) fromPerson(source uint16) bool {
	d, ok := ls.devs[source]
	if !ok {
		if err := ls.refreshDevices(); err != nil {
			if !ls.ending(err) {
				ls.log.Warn("emergency stop: cannot list input devices", "err", err)
			}
			return false
		}
		if d, ok = ls.devs[source]; !ok {
			return false
		}
	}
	return d.Physical()
}

func (ls *Listener) run() {
	defer close(ls.done)
	for {
		ev, err := ls.c.NextEvent()
		// Once Close has begun, events already read off the socket are not worth a request
		// that can only fail on the closed connection (and log a warning per event).
		if ls.closed.Load() {
			return
		}
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				ls.log.Warn("emergency stop hotkey: lost the X connection; the hotkey no longer works (mcec rearm and the control socket still do)", "err", err)
				ls.latch.SetHotkey(ls.hk.String(), "lost the X connection: "+err.Error())
			}
			return
		}
		switch ev.Kind {
		case xinput2.RawKeyPress, xinput2.RawKeyRelease:
			if ev.Synthetic || ev.Flags&xinput2.KeyRepeat != 0 || !ls.fromPerson(ev.Source) {
				continue
			}
			press := ev.Kind == xinput2.RawKeyPress
			if ls.t.event(ev.Source, ev.Keycode, press) {
				ls.log.Info("emergency stop hotkey pressed", "device", ls.devs[ev.Source].Name)
				ls.latch.Chord()
			} else if press && !ls.modifiers[ev.Keycode] {
				ls.physical("key")
			}
		case xinput2.RawButtonPress:
			if !ev.Synthetic && ls.fromPerson(ev.Source) {
				ls.physical("button")
			}
		case xinput2.HierarchyChanged:
			if err := ls.refreshDevices(); err != nil && !ls.ending(err) {
				ls.log.Warn("emergency stop: cannot list input devices", "err", err)
			}
		case xinput2.MappingNotify:
			if ev.Request != 1 { // keyboard
				continue
			}
			// mcec's own typing remaps spare keycodes; the chord's keys are not among them, but a
			// layout change may move them.
			if err := ls.refreshKeymap(); err != nil && !ls.ending(err) {
				ls.log.Warn("emergency stop: cannot re-read the keyboard map", "err", err)
			}
		case xinput2.XError:
			ls.log.Debug("emergency stop: X error", "code", ev.ErrorCode)
		}
	}
}

// ending reports whether err is the connection closing under a request (Close, racing with an
// event just read): the end, not a failure to report.
func (ls *Listener) ending(err error) bool {
	return ls.closed.Load() || errors.Is(err, net.ErrClosed)
}

// Close stops listening and closes the connection.
func (ls *Listener) Close() error {
	if ls == nil {
		return nil
	}
	ls.closed.Store(true)
	err := ls.c.Close()
	<-ls.done
	return err
}
