// Package wayland is the display-server half of the Linux backend on a Wayland compositor:
// windows and window operations through sway's IPC (internal/wayland/swayipc), pixels through
// wlr-screencopy, input through a persistent virtual pointer and keyboard, and the clipboard
// through data-control (internal/wayland/wlclient). internal/platform/linux joins it with the
// AT-SPI trees, which on Wayland are window-local: Origin places them on screen.
//
// sway (wlroots) is the compositor it drives: mcec's private Wayland desktop is headless sway
// (internal/headless), and every protocol used here is offered by wlroots compositors to any
// client without consent (shared/spec/wayland-notes.md §1.1).
package wayland

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/wayland/swayipc"
	"github.com/mcec/mcec/internal/wayland/wlclient"
)

// Config says which compositor to attach to.
type Config struct {
	Socket string // the Wayland display socket, absolute
	Sway   string // sway's IPC socket, absolute
	Logger *slog.Logger
}

// Conn is one attachment to a compositor. It is safe for concurrent use.
type Conn struct {
	cfg Config
	log *slog.Logger
	wl  *wlclient.Client
	ipc *swayipc.Conn
	in  *input
}

// Dial connects to the compositor's Wayland socket and to its IPC.
func Dial(ctx context.Context, cfg Config) (*Conn, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Sway == "" {
		return nil, fmt.Errorf("%w: no sway IPC socket (SWAYSOCK): windows and window operations need sway's IPC; other compositors are not supported yet",
			platform.ErrDisplayUnavailable)
	}
	wl, err := wlclient.Dial(ctx, cfg.Socket)
	if err != nil {
		return nil, fmt.Errorf("%w: wayland %s: %w", platform.ErrDisplayUnavailable, cfg.Socket, err)
	}
	ipc, err := swayipc.Dial(ctx, cfg.Sway)
	if err != nil {
		wl.Close()
		return nil, fmt.Errorf("%w: sway IPC %s: %w", platform.ErrDisplayUnavailable, cfg.Sway, err)
	}
	c := &Conn{cfg: cfg, log: cfg.Logger, wl: wl, ipc: ipc}
	c.in = newInput(c)
	return c, nil
}

// Close releases what input holds and closes both connections.
func (c *Conn) Close() error {
	return errors.Join(c.in.close(), c.wl.Close(), c.ipc.Close())
}

// WindowManagerName names the compositor and its version ("sway 1.7").
func (c *Conn) WindowManagerName(ctx context.Context) (string, error) {
	v, err := c.ipc.Version(ctx)
	if err != nil {
		return "", c.ipcErr(err)
	}
	return "sway " + v.HumanReadable, nil
}

// ClipboardGet implements platform.Clipboard through data-control (no focus needed).
func (c *Conn) ClipboardGet(ctx context.Context) (string, error) {
	s, err := c.wl.ClipboardGet(ctx)
	return s, c.wlErr("read the clipboard", err)
}

// ClipboardSet implements platform.Clipboard: mcec serves text until another client takes the
// selection.
func (c *Conn) ClipboardSet(ctx context.Context, text string) error {
	return c.wlErr("set the clipboard", c.wl.ClipboardSet(ctx, text))
}

// ipcErr converts a failure of sway's IPC: the compositor is gone or stuck.
func (c *Conn) ipcErr(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var cmd *swayipc.CommandError
	if errors.As(err, &cmd) {
		return err
	}
	return fmt.Errorf("%w: sway IPC: %w", platform.ErrDisplayUnavailable, err)
}

// wlErr converts a failure of the Wayland connection, naming what was being done.
func (c *Conn) wlErr(what string, err error) error {
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, wlclient.ErrUnsupported):
		return fmt.Errorf("%w: %s: the compositor lacks %w", platform.ErrCompositorUnsupported, what, err)
	}
	return fmt.Errorf("%w: %s: %w", platform.ErrDisplayUnavailable, what, err)
}
