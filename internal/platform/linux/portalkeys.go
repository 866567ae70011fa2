package linux

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcec/mcec/internal/keysym"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/portal"
	"github.com/mcec/mcec/internal/sysload"
)

// nativeInput is the input of a desktop whose native Wayland windows come from the
// accessibility bus (native.go): the pointer and, while an X11 program's window is active, the
// keyboard are XWayland's (XTEST); otherwise (a native window is active, or the Shell itself)
// keys go through the desktop's RemoteDesktop portal, which the user allows once in the dialog
// it shows (GNOME: "Allow remote interaction"). XTEST keys would reach no native window.
//
// The portal takes keysyms and the compositor finds their keys on the session's layout; a
// keysym the layout lacks is dropped without a word, so text is checked against the layout
// first (Xwayland's keymap is the compositor's) and a character not on it is refused.
type nativeInput struct {
	platform.Input // XWayland's
	d              *Desktop
	keys           *portalKeys
}

// portalKeys is the RemoteDesktop session, started on first need and kept.
type portalKeys struct {
	bus string

	mu       sync.Mutex
	s        *portal.Session
	starting *portalStart // the start in progress
	err      error        // why the session failed for good: kept, the user is not asked again
	held     []uint32     // keysyms down now, in press order
	closed   bool         // the desktop is closed: a start that ends now closes its session
}

// portalStart is one start of the session; s and err are set before done is closed.
type portalStart struct {
	done chan struct{}
	s    *portal.Session
	err  error
}

// consentLimit bounds how long the portal's dialog waits for the user; consentWait how long
// one call waits for the answer before it fails and leaves the dialog open for the next.
const (
	consentLimit = 5 * time.Minute
	consentWait  = 20 * time.Second
	// releaseLimit bounds the release of what the portal holds.
	releaseLimit = 3 * time.Second
	// keyLimit bounds one key sent through the portal (a round trip through the portal, its
	// backend and the compositor: a millisecond or two).
	keyLimit = 2 * time.Second
)

// errX11Active routes keys to Xwayland: an X11 program's window is active.
var errX11Active = errors.New("an X11 program's window is active")

// session returns the started session, starting it first (and waiting for the user's answer,
// within consentWait) if there is none.
func (k *portalKeys) session(ctx context.Context) (*portal.Session, error) {
	k.mu.Lock()
	if k.s != nil {
		select {
		case <-k.s.Closed():
			k.s, k.err, k.held = nil, portalErr(portal.ErrClosed), nil // the compositor lets go of its keys
		default:
			s := k.s
			k.mu.Unlock()
			return s, nil
		}
	}
	if k.err != nil {
		err := k.err
		k.mu.Unlock()
		return nil, err
	}
	if k.starting == nil {
		k.starting = &portalStart{done: make(chan struct{})}
		go k.start(k.starting)
	}
	st := k.starting
	k.mu.Unlock()
	wait, cancel := context.WithTimeout(ctx, sysload.Scale(consentWait))
	defer cancel()
	select {
	case <-st.done:
		return st.s, st.err
	case <-wait.Done():
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: keys for a native Wayland window go through the desktop's RemoteDesktop portal, which is "+
			"waiting for the user to allow remote interaction in its dialog (or is still starting): the user must allow it "+
			"(GNOME: \"Allow remote interaction\" on, then Share); call again once they have", platform.ErrCompositorUnsupported)
	}
}

// start opens the session in the background: the user's answer may take longer than a call.
// A refusal, or a desktop without the portal, is kept; a dialog nobody answered within
// consentLimit is not (the next keys ask again).
func (k *portalKeys) start(st *portalStart) {
	ctx, cancel := context.WithTimeout(context.Background(), consentLimit)
	defer cancel()
	s, err := portal.Start(ctx, k.bus, portal.Keyboard)
	if err != nil {
		err = portalErr(err)
	}
	k.mu.Lock()
	if k.closed && s != nil {
		s.Close()
		s, err = nil, portalErr(portal.ErrClosed)
	}
	st.s, st.err = s, err
	k.s, k.starting = s, nil
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		k.err = err
	}
	k.mu.Unlock()
	close(st.done)
}

// portalErr says what a failed start means for the agent.
func portalErr(err error) error {
	switch {
	case errors.Is(err, portal.ErrUnavailable):
		return fmt.Errorf("%w: keys cannot reach a native Wayland window: the session offers no RemoteDesktop portal "+
			"(install xdg-desktop-portal and its desktop's backend, e.g. xdg-desktop-portal-gnome), nor mcec's Shell extension "+
			"(`mcec setup gnome`); use invoke, setvalue and select on its elements (%v)", platform.ErrCompositorUnsupported, err)
	case errors.Is(err, portal.ErrDenied):
		return fmt.Errorf("%w: keys cannot reach a native Wayland window: the user did not allow remote interaction in the "+
			"portal's dialog; mcec asks again only when restarted; use invoke, setvalue and select on its elements (%v)",
			platform.ErrCompositorUnsupported, err)
	case errors.Is(err, portal.ErrClosed):
		return fmt.Errorf("%w: keys cannot reach a native Wayland window: the remote interaction the user allowed has ended "+
			"(they stopped it, on GNOME in the top bar, or the portal went away: %v); mcec asks again only when restarted; "+
			"use invoke, setvalue and select on its elements", platform.ErrCompositorUnsupported, err)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w: keys cannot reach a native Wayland window: nobody answered the portal's dialog within %v; "+
			"the next keys ask again (%w)", platform.ErrCompositorUnsupported, consentLimit, err)
	}
	return fmt.Errorf("%w: keys cannot reach a native Wayland window: the RemoteDesktop portal failed: %v", platform.ErrCompositorUnsupported, err)
}

// route returns the portal session unless an X11 program's window is active: Xwayland then has
// the keyboard focus and takes XTEST's keys (errX11Active). Otherwise the focus is a native
// window's or the Shell's own (the Overview), which only the compositor's input reaches.
func (in nativeInput) route(ctx context.Context) (*portal.Session, error) {
	ws, err := in.d.x.Windows(ctx)
	if err != nil {
		return nil, err
	}
	if slices.ContainsFunc(ws, func(w platform.Window) bool { return w.Focused }) {
		return nil, errX11Active
	}
	return in.keys.session(ctx)
}

// onLayout fails unless every keysym of syms is on the session's keyboard layout; text, when
// given, is what syms type, one keysym per character, for the error to name the character.
func (in nativeInput) onLayout(ctx context.Context, syms []uint32, text string) error {
	kb, ok := in.d.x.(interface {
		OnKeyboard(context.Context) (func(uint32) bool, error)
	})
	if !ok {
		return nil
	}
	has, err := kb.OnKeyboard(ctx)
	if err != nil {
		return err
	}
	chars := []rune(text)
	for i, s := range syms {
		if has(s) {
			continue
		}
		what := keysym.Name(s)
		if i < len(chars) {
			what = fmt.Sprintf("%q (%s)", chars[i], what)
		}
		return fmt.Errorf("%w: %s is not on the session's keyboard layout, or only behind AltGr, and the RemoteDesktop portal "+
			"types only what the layout has (keys for a native Wayland window); nothing was typed; set the text with setvalue instead",
			platform.ErrCompositorUnsupported, what)
	}
	return nil
}

// press sends one key through s and records it. A portal that does not answer within keyLimit
// is taken for gone (its backend died, and the portal waits for it): the session is dropped, and
// later keys fail at once.
func (k *portalKeys) press(ctx context.Context, s *portal.Session, sym uint32, down bool) error {
	kctx, cancel := context.WithTimeout(ctx, sysload.Scale(keyLimit))
	err := s.Keysym(kctx, sym, down)
	timedOut := kctx.Err() != nil && ctx.Err() == nil
	cancel()
	switch {
	case errors.Is(err, portal.ErrClosed):
		return portalErr(err)
	case timedOut:
		k.mu.Lock()
		if k.s == s {
			// The compositor lets go of a closed session's keys.
			k.s, k.err, k.held = nil, portalErr(fmt.Errorf("%w: it stopped answering", portal.ErrClosed)), nil
		}
		k.mu.Unlock()
		go s.Close()
		return fmt.Errorf("%w: the RemoteDesktop portal did not take a key within %v: %v", platform.ErrCompositorUnsupported,
			sysload.Scale(keyLimit), err)
	case err != nil:
		return fmt.Errorf("%w: %v", platform.ErrCompositorUnsupported, err)
	}
	k.mu.Lock()
	if down {
		k.held = append(k.held, sym)
	} else if i := slices.Index(k.held, sym); i >= 0 {
		k.held = slices.Delete(k.held, i, i+1)
	}
	k.mu.Unlock()
	return nil
}

// releaseFrom lets go of what was pressed after the first n held keys, on a fresh context (the
// caller's may be what ended the gesture).
func (k *portalKeys) releaseFrom(s *portal.Session, n int) {
	ctx, cancel := context.WithTimeout(context.Background(), releaseLimit)
	defer cancel()
	k.mu.Lock()
	held := slices.Clone(k.held[min(n, len(k.held)):])
	k.mu.Unlock()
	for i := len(held) - 1; i >= 0; i-- {
		_ = k.press(ctx, s, held[i], false)
	}
}

func (k *portalKeys) heldCount() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.held)
}

// Chord implements platform.Input.
func (in nativeInput) Chord(ctx context.Context, keys ...string) error {
	s, err := in.route(ctx)
	if errors.Is(err, errX11Active) {
		return in.Input.Chord(ctx, keys...)
	}
	if err != nil {
		return err
	}
	syms := make([]uint32, len(keys))
	for i, name := range keys {
		if syms[i], err = keysym.FromName(name); err != nil {
			return fmt.Errorf("%w: %v", platform.ErrUnsupported, err)
		}
	}
	if err := in.onLayout(ctx, syms, ""); err != nil {
		return err
	}
	base := in.keys.heldCount()
	defer in.keys.releaseFrom(s, base)
	for _, sym := range syms {
		if err := in.keys.press(ctx, s, sym, true); err != nil {
			return err
		}
	}
	for i := len(syms) - 1; i >= 0; i-- {
		if err := in.keys.press(ctx, s, syms[i], false); err != nil {
			return err
		}
	}
	return nil
}

// Type implements platform.Input.
func (in nativeInput) Type(ctx context.Context, text string) error {
	s, err := in.route(ctx)
	if errors.Is(err, errX11Active) {
		return in.Input.Type(ctx, text)
	}
	if err != nil {
		return err
	}
	var syms []uint32
	for _, r := range text {
		choices := keysym.ForText(r)
		if len(choices) == 0 {
			return fmt.Errorf("%w: %q cannot be typed", platform.ErrUnsupported, r)
		}
		syms = append(syms, choices[0])
		if len(choices) > 1 { // a layout may carry the legacy keysym rather than the Unicode one
			if kb, ok := in.d.x.(interface {
				OnKeyboard(context.Context) (func(uint32) bool, error)
			}); ok {
				if has, err := kb.OnKeyboard(ctx); err == nil {
					if i := slices.IndexFunc(choices, has); i >= 0 {
						syms[len(syms)-1] = choices[i]
					}
				}
			}
		}
	}
	if err := in.onLayout(ctx, syms, text); err != nil {
		return err
	}
	base := in.keys.heldCount()
	defer in.keys.releaseFrom(s, base)
	for _, sym := range syms {
		if err := in.keys.press(ctx, s, sym, true); err != nil {
			return err
		}
		if err := in.keys.press(ctx, s, sym, false); err != nil {
			return err
		}
	}
	return nil
}

// Press implements platform.Input: a key held across calls goes where the keys go now.
func (in nativeInput) Press(ctx context.Context, key string) error {
	s, err := in.route(ctx)
	if errors.Is(err, errX11Active) {
		return in.Input.Press(ctx, key)
	}
	if err != nil {
		return err
	}
	sym, err := keysym.FromName(key)
	if err != nil {
		return fmt.Errorf("%w: %v", platform.ErrUnsupported, err)
	}
	if err := in.onLayout(ctx, []uint32{sym}, ""); err != nil {
		return err
	}
	return in.keys.press(ctx, s, sym, true)
}

// Release implements platform.Input: the key is let go where it was pressed.
func (in nativeInput) Release(ctx context.Context, key string) error {
	sym, err := keysym.FromName(key)
	in.keys.mu.Lock()
	s := in.keys.s
	portalHeld := err == nil && slices.Contains(in.keys.held, sym)
	in.keys.mu.Unlock()
	if !portalHeld || s == nil {
		return in.Input.Release(ctx, key)
	}
	return in.keys.press(ctx, s, sym, false)
}

// Held implements platform.Input.
func (in nativeInput) Held(ctx context.Context) ([]string, error) {
	held, err := in.Input.Held(ctx)
	in.keys.mu.Lock()
	for _, sym := range in.keys.held {
		held = append(held, keysym.Name(sym))
	}
	in.keys.mu.Unlock()
	return held, err
}

// close releases what the portal holds and ends its session.
func (k *portalKeys) close() error {
	k.mu.Lock()
	s := k.s
	k.s, k.err, k.closed = nil, portalErr(portal.ErrClosed), true
	k.mu.Unlock()
	if s == nil {
		return nil
	}
	k.releaseFrom(s, 0)
	return s.Close()
}
