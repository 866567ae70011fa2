// Package gnome talks to mcec's GNOME Shell extension (internal/gnomeext) over the session bus:
// windows with their frame and surface rectangles, window operations and their events,
// screenshots, and input through the Shell's own virtual devices. GNOME Shell lets no ordinary
// program do any of it (shared/spec/wayland-notes.md §1.2); the extension does it from inside
// the Shell, for the one executable `mcec setup gnome` names.
package gnome

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"strings"

	"github.com/godbus/dbus/v5"
)

const (
	service = "org.mcec.Shell"
	path    = "/org/mcec/Shell"
	iface   = "org.mcec.Shell"
)

var (
	// ErrNoExtension says mcec's extension is not running in the session's GNOME Shell.
	ErrNoExtension = errors.New("mcec's GNOME Shell extension is not running (org.mcec.Shell is not on the session bus)")
	// ErrNotAllowed says the extension runs but refuses this program: it is not the executable
	// the extension was set up for.
	ErrNotAllowed = errors.New("mcec's GNOME Shell extension refuses this program: it serves only the mcec executable `mcec setup gnome` named")
	// ErrNoWindow says the Shell has no window with the given id.
	ErrNoWindow = errors.New("GNOME Shell has no such window")
)

// Conn is one connection to the extension. It is safe for concurrent use.
type Conn struct {
	addr string
	bus  *dbus.Conn
	obj  dbus.BusObject
}

// Dial connects to the session bus at address and checks that the extension answers.
func Dial(ctx context.Context, address string) (*Conn, error) {
	// Not dbus.WithContext: that closes the connection when ctx ends, and it outlives Dial.
	bus, err := dbus.Connect(address)
	if err != nil {
		return nil, fmt.Errorf("session bus %s: %w", address, err)
	}
	c := &Conn{addr: address, bus: bus, obj: bus.Object(service, path)}
	if _, err := c.Version(ctx); err != nil {
		bus.Close()
		return nil, err
	}
	return c, nil
}

// Close closes the connection.
func (c *Conn) Close() error { return c.bus.Close() }

// Version is the extension's interface version.
func (c *Conn) Version(ctx context.Context) (uint32, error) {
	var v dbus.Variant
	err := c.obj.CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0, iface, "Version").Store(&v)
	if err != nil {
		return 0, busErr(err)
	}
	n, ok := v.Value().(uint32)
	if !ok {
		return 0, fmt.Errorf("gnome: the extension's version is a %T", v.Value())
	}
	return n, nil
}

// ShellVersion is GNOME Shell's version ("43.9").
func (c *Conn) ShellVersion(ctx context.Context) (string, error) {
	var v dbus.Variant
	err := c.bus.Object("org.gnome.Shell", "/org/gnome/Shell").CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0,
		"org.gnome.Shell", "ShellVersion").Store(&v)
	if err != nil {
		return "", busErr(err)
	}
	s, _ := v.Value().(string)
	return s, nil
}

// Rect is a rectangle in the Shell's logical layout.
type Rect struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Window is one application window as the extension describes it.
type Window struct {
	ID    string `json:"id"` // meta_window id: stable for the window's life
	Title string `json:"title"`
	Class string `json:"wmClass"`
	PID   int    `json:"pid"`
	// Frame is the window's frame (its window geometry); Buffer the surface, client-side
	// shadow included.
	Frame        Rect   `json:"frame"`
	Buffer       Rect   `json:"buffer"`
	Minimized    bool   `json:"minimized"`
	Maximized    bool   `json:"maximized"`
	Fullscreen   bool   `json:"fullscreen"`
	Focused      bool   `json:"focused"`
	Modal        bool   `json:"modal"`
	Dialog       bool   `json:"dialog"`
	TransientFor string `json:"transientFor"`
	X11          bool   `json:"x11"`
	Popup        bool   `json:"popup"` // a menu's or a list's popup surface, transient for a window
}

// Windows lists the application windows and their popups, bottom to top.
func (c *Conn) Windows(ctx context.Context) ([]Window, error) {
	var s string
	if err := c.obj.CallWithContext(ctx, iface+".Windows", 0).Store(&s); err != nil {
		return nil, busErr(err)
	}
	var out []Window
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("gnome: the extension's window list: %w", err)
	}
	return out, nil
}

// Do applies op ("activate", "minimize", "maximize", "restore", "move" to r's corner,
// "geometry" to r) to window id; ErrNoWindow when it is gone.
func (c *Conn) Do(ctx context.Context, id, op string, r Rect) error {
	var n uint64
	if _, err := fmt.Sscan(id, &n); err != nil {
		return fmt.Errorf("gnome: window id %q: %w", id, err)
	}
	var found bool
	err := c.obj.CallWithContext(ctx, iface+".WindowOp", 0, n, op, int32(r.X), int32(r.Y), int32(r.Width), int32(r.Height)).Store(&found)
	if err != nil {
		return busErr(err)
	}
	if !found {
		return fmt.Errorf("%w: %s", ErrNoWindow, id)
	}
	return nil
}

// Watch reports window changes (the extension's WindowsChanged signal, one per burst), until
// ctx ends.
func (c *Conn) Watch(ctx context.Context) (<-chan struct{}, error) {
	bus, err := dbus.Connect(c.addr) // its own connection: signals for it alone
	if err != nil {
		return nil, err
	}
	if err := bus.AddMatchSignal(dbus.WithMatchInterface(iface), dbus.WithMatchMember("WindowsChanged")); err != nil {
		bus.Close()
		return nil, busErr(err)
	}
	sigs := make(chan *dbus.Signal, 16)
	bus.Signal(sigs)
	out := make(chan struct{}, 1)
	go func() {
		defer close(out)
		defer bus.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case _, ok := <-sigs:
				if !ok {
					return
				}
				select {
				case out <- struct{}{}:
				default: // a wake-up is pending already
				}
			}
		}
	}()
	return out, nil
}

// Screenshot grabs r of the screen, in logical coordinates, as an opaque RGBA image of r's
// size (a scaled output's larger image is sampled down).
func (c *Conn) Screenshot(ctx context.Context, r image.Rectangle) (*image.RGBA, error) {
	if r.Empty() {
		return nil, fmt.Errorf("gnome: empty capture area %v", r)
	}
	var b []byte
	if err := c.obj.CallWithContext(ctx, iface+".Screenshot", 0, int32(r.Min.X), int32(r.Min.Y), int32(r.Dx()), int32(r.Dy())).Store(&b); err != nil {
		return nil, busErr(err)
	}
	src, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("gnome: the screenshot: %w", err)
	}
	img := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	sb := src.Bounds()
	if sb.Dx() == r.Dx() && sb.Dy() == r.Dy() {
		draw.Draw(img, img.Bounds(), src, sb.Min, draw.Src)
	} else {
		for y := range r.Dy() {
			for x := range r.Dx() {
				img.Set(x, y, src.At(sb.Min.X+x*sb.Dx()/r.Dx(), sb.Min.Y+y*sb.Dy()/r.Dy()))
			}
		}
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 0xff
	}
	return img, nil
}

// PointerMotion moves the pointer to x,y.
func (c *Conn) PointerMotion(ctx context.Context, x, y float64) error {
	return busErr(c.obj.CallWithContext(ctx, iface+".PointerMotion", 0, x, y).Err)
}

// PointerButton presses or releases a button (1 left, 2 middle, 3 right).
func (c *Conn) PointerButton(ctx context.Context, button uint32, pressed bool) error {
	return busErr(c.obj.CallWithContext(ctx, iface+".PointerButton", 0, button, pressed).Err)
}

// PointerScroll turns the wheel by clicks: dy > 0 down, dx > 0 right.
func (c *Conn) PointerScroll(ctx context.Context, dx, dy int) error {
	return busErr(c.obj.CallWithContext(ctx, iface+".PointerScroll", 0, int32(dx), int32(dy)).Err)
}

// Key presses or releases the key of an evdev code, read through the session's keymap.
func (c *Conn) Key(ctx context.Context, code uint32, pressed bool) error {
	return busErr(c.obj.CallWithContext(ctx, iface+".Key", 0, code, pressed).Err)
}

// Layout is the Shell's current input source, "type:id" ("xkb:us", "xkb:de"), through which
// keys are read.
func (c *Conn) Layout(ctx context.Context) (string, error) {
	var s string
	return s, busErr(c.obj.CallWithContext(ctx, iface+".Layout", 0).Store(&s))
}

// ClipboardGet reads the clipboard's text.
func (c *Conn) ClipboardGet(ctx context.Context) (string, error) {
	var s string
	return s, busErr(c.obj.CallWithContext(ctx, iface+".ClipboardGet", 0).Store(&s))
}

// ClipboardSet puts text on the clipboard.
func (c *Conn) ClipboardSet(ctx context.Context, text string) error {
	return busErr(c.obj.CallWithContext(ctx, iface+".ClipboardSet", 0, text).Err)
}

// busErr names the extension's D-Bus errors.
func busErr(err error) error {
	if err == nil {
		return nil
	}
	var de dbus.Error
	if errors.As(err, &de) {
		switch {
		case de.Name == "org.freedesktop.DBus.Error.ServiceUnknown" || de.Name == "org.freedesktop.DBus.Error.NameHasNoOwner":
			return ErrNoExtension
		case de.Name == "org.mcec.Shell.Error.NotAllowed":
			return ErrNotAllowed
		case strings.HasPrefix(de.Name, "org.mcec.Shell.Error."):
			return fmt.Errorf("gnome: the extension: %s", strings.Join(toStrings(de.Body), "; "))
		}
	}
	return fmt.Errorf("gnome: %w", err)
}

func toStrings(body []any) []string {
	out := make([]string, 0, len(body))
	for _, b := range body {
		out = append(out, fmt.Sprint(b))
	}
	return out
}
