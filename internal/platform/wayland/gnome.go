package wayland

import (
	"context"
	"errors"
	"fmt"
	"image"
	"strings"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/wayland/gnome"
	"github.com/mcec/mcec/internal/wayland/wlclient"
)

// gnomeShell drives GNOME Shell through mcec's extension (internal/gnomeext, spoken to by
// internal/wayland/gnome): windows, operations, events, pixels and input all come from inside
// the Shell.
type gnomeShell struct{ g *gnome.Conn }

// gnomeSetupHint says how a GNOME user installs the extension.
const gnomeSetupHint = "run `mcec setup gnome` (it installs and enables mcec's GNOME Shell extension, docs/wayland.md), then log out and back in"

func dialGNOME(ctx context.Context, bus string, wl *wlclient.Client) (*shellComp, error) {
	g, err := gnome.Dial(ctx, bus)
	if err != nil {
		return nil, fmt.Errorf("%w: GNOME Shell: %w; %s", platform.ErrDisplayUnavailable, err, gnomeSetupHint)
	}
	return newShellComp(gnomeShell{g}, wl), nil
}

func (s gnomeShell) close() error { return s.g.Close() }

func (s gnomeShell) name(ctx context.Context) (string, error) {
	v, err := s.g.ShellVersion(ctx)
	if err != nil {
		return "", gnomeErr(err)
	}
	return "GNOME Shell " + v, nil
}

func (s gnomeShell) windows(ctx context.Context) ([]shellWindow, error) {
	ws, err := s.g.Windows(ctx)
	if err != nil {
		return nil, gnomeErr(err)
	}
	out := make([]shellWindow, 0, len(ws))
	for _, w := range ws {
		out = append(out, shellWindow{ID: w.ID, Title: w.Title, Class: w.Class, PID: w.PID,
			Frame: gnomeRect(w.Frame), Buffer: gnomeRect(w.Buffer), Minimized: w.Minimized, Maximized: w.Maximized,
			Fullscreen: w.Fullscreen, Focused: w.Focused, Modal: w.Modal, Dialog: w.Dialog, TransientFor: w.TransientFor, X11: w.X11,
			Popup: w.Popup})
	}
	return out, nil
}

func gnomeRect(r gnome.Rect) platform.Rect {
	return platform.Rect{X: r.X, Y: r.Y, Width: r.Width, Height: r.Height}
}

func (s gnomeShell) do(ctx context.Context, id, op string, frame platform.Rect) error {
	return gnomeErr(s.g.Do(ctx, id, op, gnome.Rect{X: frame.X, Y: frame.Y, Width: frame.Width, Height: frame.Height}))
}

func (s gnomeShell) watch(ctx context.Context) (<-chan struct{}, error) {
	ch, err := s.g.Watch(ctx)
	return ch, gnomeErr(err)
}

func (s gnomeShell) capture(ctx context.Context, r image.Rectangle) (*image.RGBA, error) {
	img, err := s.g.Screenshot(ctx, r)
	return img, gnomeErr(err)
}

func (s gnomeShell) input(context.Context, *wlclient.Client) (pointerDevice, keyDevice, error) {
	d := gnomeDevice(s)
	return d, d, nil
}

// layout is the XKB layout keys go through: the Shell's current input source.
func (s gnomeShell) layout(ctx context.Context) (string, error) {
	src, err := s.g.Layout(ctx)
	if err != nil {
		return "", gnomeErr(err)
	}
	kind, id, _ := strings.Cut(src, ":")
	if kind != "xkb" {
		return src, nil // an input method: not a plain layout
	}
	return id, nil
}

// The clipboard comes from the Shell: mutter offers no data-control.
func (s gnomeShell) clipboardGet(ctx context.Context) (string, error) {
	t, err := s.g.ClipboardGet(ctx)
	return t, gnomeErr(err)
}

func (s gnomeShell) clipboardSet(ctx context.Context, text string) error {
	return gnomeErr(s.g.ClipboardSet(ctx, text))
}

// gnomeDevice is the Shell's own virtual pointer and keyboard, through the extension. Every
// event is a D-Bus call the Shell has queued before it answers.
type gnomeDevice struct{ g *gnome.Conn }

func (d gnomeDevice) MotionAbsolute(ctx context.Context, x, y int) error {
	return gnomeErr(d.g.PointerMotion(ctx, float64(x)+0.5, float64(y)+0.5))
}

// Button maps evdev's button codes to Clutter's numbers.
func (d gnomeDevice) Button(ctx context.Context, code uint32, pressed bool) error {
	b, ok := map[uint32]uint32{0x110: 1, 0x112: 2, 0x111: 3}[code]
	if !ok {
		return fmt.Errorf("%w: button code %#x", platform.ErrUnsupported, code)
	}
	return gnomeErr(d.g.PointerButton(ctx, b, pressed))
}

func (d gnomeDevice) Axis(ctx context.Context, vertical bool, clicks int) error {
	if vertical {
		return gnomeErr(d.g.PointerScroll(ctx, 0, clicks))
	}
	return gnomeErr(d.g.PointerScroll(ctx, clicks, 0))
}

func (d gnomeDevice) Key(ctx context.Context, code uint32, pressed bool) error {
	return gnomeErr(d.g.Key(ctx, code, pressed))
}

// gnomeErr converts the extension's failures to the platform's.
func gnomeErr(err error) error {
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, gnome.ErrNoWindow):
		return fmt.Errorf("%w: %w", platform.ErrWindowClosed, err)
	case errors.Is(err, gnome.ErrNotAllowed):
		return fmt.Errorf("%w: %w; %s", platform.ErrCompositorUnsupported, err, gnomeSetupHint)
	case errors.Is(err, gnome.ErrNoExtension):
		return fmt.Errorf("%w: %w; %s", platform.ErrDisplayUnavailable, err, gnomeSetupHint)
	}
	return fmt.Errorf("%w: %w", platform.ErrDisplayUnavailable, err)
}
