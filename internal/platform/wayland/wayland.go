// Package wayland is the display-server half of the Linux backend on a Wayland compositor.
// What differs between compositors sits behind compositor:
//
//   - sway (and compositors speaking its IPC): windows and window operations through sway's
//     IPC (internal/wayland/swayipc), pixels through wlr-screencopy (sway.go);
//   - KWin (KDE Plasma): windows and window operations through KWin scripts, pixels through
//     ScreenShot2 (internal/wayland/kwin; kwin.go);
//   - GNOME Shell, through mcec's extension inside it (internal/gnomeext, internal/wayland/gnome;
//     gnome.go);
//   - any other wlroots compositor (Hyprland, labwc, Wayfire, river …), through the protocols
//     alone: windows and their state through wlr-foreign-toplevel, without places or pids
//     (wlr.go).
//
// KWin and GNOME Shell share shell.go: both describe windows by frame and surface.
//
// Input goes through whatever devices the compositor offers (input.go): wlroots' persistent
// virtual pointer and keyboard, KWin's fake input, or GNOME Shell's own virtual devices. The clipboard is data-control, displays
// are wl_output with xdg-output (internal/wayland/wlclient). internal/platform/linux joins it
// with the AT-SPI trees, which on Wayland are window-local: Origin places them on screen.
//
// mcec's private Wayland desktop is headless sway (internal/headless); every protocol used with
// sway is offered by wlroots compositors to any client without consent
// (shared/spec/wayland-notes.md §1.1). KWin asks for a desktop file (docs/wayland.md).
package wayland

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/wayland/wlclient"
)

// Config says which compositor to attach to: Socket and one of Sway, KWinBus, GNOMEBus or
// Toplevels.
type Config struct {
	Socket string // the Wayland display socket, absolute
	Sway   string // sway's IPC socket, absolute
	// Toplevels drives another wlroots compositor through the protocols alone (wlr.go).
	Toplevels bool
	KWinBus   string // the session bus KWin is on
	// KWinConfig is KWin's XDG_CONFIG_HOME where it is not the user's (mcec's private KWin
	// desktop): its keyboard settings are read there.
	KWinConfig string
	GNOMEBus   string // the session bus GNOME Shell (with mcec's extension) is on
	Logger     *slog.Logger
}

// compositor is what differs between the compositors mcec drives: windows and their
// operations and events, displays, pixels, and where a window's accessibility extents start.
type compositor interface {
	platform.WindowReader
	platform.WindowOperator
	platform.Capturer
	WindowManagerName(ctx context.Context) (string, error)
	Origin(w platform.Window, frame platform.Rect, children []platform.Rect) (platform.Point, bool)
	Close() error
}

// Conn is one attachment to a compositor. It is safe for concurrent use.
type Conn struct {
	compositor
	cfg Config
	log *slog.Logger
	wl  *wlclient.Client
	in  *input
}

// Dial connects to the compositor's Wayland socket and to its IPC.
func Dial(ctx context.Context, cfg Config) (*Conn, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Sway == "" && cfg.KWinBus == "" && cfg.GNOMEBus == "" && !cfg.Toplevels {
		return nil, fmt.Errorf("%w: no sway IPC socket (SWAYSOCK), KWin, GNOME Shell or wlroots compositor: windows and window operations need one of them",
			platform.ErrDisplayUnavailable)
	}
	wl, err := wlclient.Dial(ctx, cfg.Socket)
	if err != nil {
		return nil, fmt.Errorf("%w: wayland %s: %w", platform.ErrDisplayUnavailable, cfg.Socket, err)
	}
	var comp compositor
	switch {
	case cfg.Sway != "":
		comp, err = dialSway(ctx, cfg.Sway, wl)
	case cfg.KWinBus != "":
		comp, err = dialKWin(ctx, cfg.KWinBus, cfg.KWinConfig, wl)
	case cfg.GNOMEBus != "":
		comp, err = dialGNOME(ctx, cfg.GNOMEBus, wl)
	default:
		comp, err = dialToplevels(wl)
	}
	if err != nil {
		wl.Close()
		return nil, err
	}
	c := &Conn{compositor: comp, cfg: cfg, log: cfg.Logger, wl: wl}
	c.in = newInput(c)
	return c, nil
}

// Close releases what input holds and closes the connections.
func (c *Conn) Close() error {
	return errors.Join(c.in.close(), c.wl.Close(), c.compositor.Close())
}

// ClipboardGet implements platform.Clipboard through data-control (no focus needed), or the
// shell's own clipboard.
func (c *Conn) ClipboardGet(ctx context.Context) (string, error) {
	if sc, ok := c.shellClipboard(); ok {
		return sc.clipboardGet(ctx)
	}
	s, err := c.wl.ClipboardGet(ctx)
	return s, wlErr("read the clipboard", err)
}

// ClipboardSet implements platform.Clipboard: mcec serves text until another client takes the
// selection (data-control), or the shell does.
func (c *Conn) ClipboardSet(ctx context.Context, text string) error {
	if sc, ok := c.shellClipboard(); ok {
		return sc.clipboardSet(ctx, text)
	}
	return wlErr("set the clipboard", c.wl.ClipboardSet(ctx, text))
}

// PopupSurface finds a popup surface's screen corner where the compositor lists its popups
// (GNOME Shell): see shellComp.PopupSurface. Others never find one.
func (c *Conn) PopupSurface(ctx context.Context, pid int, top platform.Rect) (platform.Point, bool) {
	if s, ok := c.compositor.(*shellComp); ok {
		return s.PopupSurface(ctx, pid, top)
	}
	return platform.Point{}, false
}

func (c *Conn) shellClipboard() (shellClipboard, bool) {
	if s, ok := c.compositor.(*shellComp); ok {
		sc, ok := s.sh.(shellClipboard)
		return sc, ok
	}
	return nil, false
}

// wlErr converts a failure of the Wayland connection, naming what was being done.
func wlErr(what string, err error) error {
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, wlclient.ErrUnsupported):
		return fmt.Errorf("%w: %s: the compositor lacks %w", platform.ErrCompositorUnsupported, what, err)
	}
	return fmt.Errorf("%w: %s: %w", platform.ErrDisplayUnavailable, what, err)
}
