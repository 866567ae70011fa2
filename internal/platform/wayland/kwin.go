package wayland

import (
	"context"
	"errors"
	"fmt"
	"image"
	"strconv"
	"strings"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/wayland/kwin"
	"github.com/mcec/mcec/internal/wayland/wlclient"
)

// kwinShell drives KWin (KDE Plasma): windows, window operations and their events through KWin
// scripts, pixels through ScreenShot2 (internal/wayland/kwin).
type kwinShell struct {
	k          *kwin.Conn
	configHome string // KWin's XDG_CONFIG_HOME; "" for the user's
}

func dialKWin(ctx context.Context, bus, configHome string, wl *wlclient.Client) (*shellComp, error) {
	k, err := kwin.Dial(ctx, bus)
	if err != nil {
		return nil, fmt.Errorf("%w: KWin: %w", platform.ErrDisplayUnavailable, err)
	}
	return newShellComp(kwinShell{k: k, configHome: configHome}, wl), nil
}

func (s kwinShell) close() error { return s.k.Close() }

func (s kwinShell) name(ctx context.Context) (string, error) {
	v, err := s.k.Version(ctx)
	if err != nil {
		return "", kwinErr(err)
	}
	return "KWin " + v, nil
}

func (s kwinShell) windows(ctx context.Context) ([]shellWindow, error) {
	ws, err := s.k.Windows(ctx)
	if err != nil {
		return nil, kwinErr(err)
	}
	out := make([]shellWindow, 0, len(ws))
	for _, w := range ws {
		out = append(out, shellWindow{ID: w.ID, Title: kwinTitle(w.Caption), Class: w.ResourceClass, PID: w.PID,
			Frame: kwinRect(w.Frame), Buffer: kwinRect(w.Buffer), Minimized: w.Minimized, Maximized: w.Maximized,
			Fullscreen: w.FullScreen, Focused: w.Active, Modal: w.Modal, Dialog: w.Dialog, TransientFor: w.TransientFor, X11: w.X11})
	}
	return out, nil
}

func kwinRect(r kwin.Rect) platform.Rect {
	return platform.Rect{X: r.X, Y: r.Y, Width: r.Width, Height: r.Height}
}

func (s kwinShell) do(ctx context.Context, id, op string, frame platform.Rect) error {
	return kwinErr(s.k.Do(ctx, id, kwin.Op{Kind: op, Frame: kwin.Rect{X: frame.X, Y: frame.Y, Width: frame.Width, Height: frame.Height}}))
}

func (s kwinShell) watch(ctx context.Context) (<-chan struct{}, error) {
	ch, err := s.k.Watch(ctx)
	return ch, kwinErr(err)
}

// input is KWin's fake input, which KWin offers only to programs a desktop file allows.
func (s kwinShell) input(ctx context.Context, wl *wlclient.Client) (pointerDevice, keyDevice, error) {
	f, err := wl.FakeInput(ctx)
	if err != nil {
		if errors.Is(err, wlclient.ErrUnsupported) {
			err = fmt.Errorf("%w; KWin offers it to the programs a desktop file allows: %s", err, kwinAuthorizeHint)
		}
		return nil, nil, err
	}
	return f, f, nil
}

// layout is the XKB layout KWin reads fake input's keys through: the current one of
// org.kde.keyboard where KWin offers it (with more than one layout configured), else the first
// of the user's kxkbrc LayoutList, else "us", KWin's default.
func (s kwinShell) layout(ctx context.Context) (string, error) {
	if l, err := s.k.Layout(ctx); err == nil && l != "" {
		return l, nil
	}
	return kxkbrcLayout(s.configHome), nil
}

func (s kwinShell) capture(ctx context.Context, r image.Rectangle) (*image.RGBA, error) {
	img, err := s.k.CaptureArea(ctx, r)
	return img, kwinErr(err)
}

// kwinTitle is a window's title without the " <2>" KWin appends to the captions of windows
// whose titles an earlier window has already (KWin 5.27 offers scripts no caption without it).
// A title that really ends so loses its suffix too.
func kwinTitle(caption string) string {
	if base, n, ok := cutCaptionSuffix(caption); ok && n >= 2 {
		return base
	}
	return caption
}

// cutCaptionSuffix splits "title <N>" into title and N.
func cutCaptionSuffix(s string) (string, int, bool) {
	i := strings.LastIndex(s, " <")
	if i < 0 || !strings.HasSuffix(s, ">") {
		return s, 0, false
	}
	n, err := strconv.Atoi(s[i+2 : len(s)-1])
	if err != nil || n < 0 {
		return s, 0, false
	}
	return s[:i], n, true
}

// kwinAuthorizeHint says how a Plasma user lets mcec capture and send input.
const kwinAuthorizeHint = "run `mcec setup kde` (it installs a desktop file naming mcec, docs/wayland.md), then restart mcec"

// kwinErr converts KWin's failures to the platform's.
func kwinErr(err error) error {
	var se *kwin.ScriptError
	switch {
	case err == nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, kwin.ErrNoWindow):
		return fmt.Errorf("%w: %w", platform.ErrWindowClosed, err)
	case errors.Is(err, kwin.ErrNotAuthorized):
		return fmt.Errorf("%w: %w; %s", platform.ErrCompositorUnsupported, err, kwinAuthorizeHint)
	case errors.As(err, &se):
		return fmt.Errorf("%w: %w", platform.ErrCompositorUnsupported, err)
	}
	return fmt.Errorf("%w: %w", platform.ErrDisplayUnavailable, err)
}
