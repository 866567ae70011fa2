// Package portal drives the desktop's RemoteDesktop portal (org.freedesktop.portal.RemoteDesktop,
// xdg-desktop-portal): input to every window of a Wayland session, once the user allows it in
// the dialog the portal shows. GNOME offers it to every program, where nothing else sends input
// to native Wayland windows without mcec's Shell extension.
//
// A portal call answers with a request object, and the result comes later as that request's
// Response signal (after the user's answer, for Start). The request's path is known before the
// call (the caller's unique name and a token of its own), so the signal is subscribed to first
// and cannot be missed.
package portal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/godbus/dbus/v5"
)

const (
	busName      = "org.freedesktop.portal.Desktop"
	objectPath   = "/org/freedesktop/portal/desktop"
	remoteIface  = "org.freedesktop.portal.RemoteDesktop"
	requestIface = "org.freedesktop.portal.Request"
	sessionIface = "org.freedesktop.portal.Session"
)

// Devices are the kinds of input a session asks for (RemoteDesktop's device types).
type Devices uint32

const (
	Keyboard Devices = 1
	Pointer  Devices = 2
)

var (
	// ErrUnavailable: the session bus has no RemoteDesktop portal (no xdg-desktop-portal, or no
	// backend for this desktop that offers it: xdg-desktop-portal-wlr does not).
	ErrUnavailable = errors.New("no RemoteDesktop portal on the session bus")
	// ErrDenied: the user cancelled the portal's dialog, or allowed no input.
	ErrDenied = errors.New("the user did not allow remote interaction")
	// ErrClosed: the session ended (the user stopped it, or the portal went away).
	ErrClosed = errors.New("the remote desktop session was closed")
)

// Session is a started RemoteDesktop session on its own bus connection (its signals are its own).
type Session struct {
	conn    *dbus.Conn
	handle  dbus.ObjectPath
	devices Devices
	signals chan *dbus.Signal
	closed  chan struct{}
	done    atomic.Bool
}

var tokens atomic.Uint64

// token is a handle token unique in this process (the portal's request and session paths are
// built from it).
func token() string { return fmt.Sprintf("mcec%d", tokens.Add(1)) }

// Start opens a RemoteDesktop session on the session bus at address ("" = the process's) for
// devices, and waits, within ctx, until the user answers the portal's dialog.
func Start(ctx context.Context, address string, devices Devices) (*Session, error) {
	// Not dbus.WithContext: that would close the connection, and the session with it, when ctx
	// ends; ctx bounds the start only.
	var conn *dbus.Conn
	var err error
	if address == "" {
		conn, err = dbus.ConnectSessionBus()
	} else {
		conn, err = dbus.Connect(address)
	}
	if err != nil {
		return nil, fmt.Errorf("portal: session bus: %w", err)
	}
	s := &Session{conn: conn, signals: make(chan *dbus.Signal, 16), closed: make(chan struct{})}
	conn.Signal(s.signals)
	if err := s.start(ctx, devices); err != nil {
		conn.Close()
		return nil, err
	}
	go s.watch()
	return s, nil
}

// Version is the RemoteDesktop portal's interface version on conn's bus, or ErrUnavailable. A
// bus that activates xdg-desktop-portal starts it: ctx bounds that.
func Version(ctx context.Context, conn *dbus.Conn) (uint32, error) {
	var v dbus.Variant
	err := conn.Object(busName, objectPath).CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0, remoteIface, "version").Store(&v)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	n, _ := v.Value().(uint32)
	return n, nil
}

// Probe is Version on the session bus at address ("" = the process's).
func Probe(ctx context.Context, address string) (uint32, error) {
	var conn *dbus.Conn
	var err error
	if address == "" {
		conn, err = dbus.ConnectSessionBus(dbus.WithContext(ctx))
	} else {
		conn, err = dbus.Connect(address, dbus.WithContext(ctx))
	}
	if err != nil {
		return 0, fmt.Errorf("portal: session bus: %w", err)
	}
	defer conn.Close()
	return Version(ctx, conn)
}

func (s *Session) start(ctx context.Context, devices Devices) error {
	if _, err := Version(ctx, s.conn); err != nil {
		return err
	}
	res, err := s.request(ctx, "CreateSession", map[string]dbus.Variant{"session_handle_token": dbus.MakeVariant(token())})
	if err != nil {
		return err
	}
	handle, _ := res["session_handle"].Value().(string)
	if handle == "" {
		return fmt.Errorf("portal: CreateSession answered no session")
	}
	s.handle = dbus.ObjectPath(handle)
	if err := s.conn.AddMatchSignalContext(ctx, dbus.WithMatchObjectPath(s.handle), dbus.WithMatchInterface(sessionIface),
		dbus.WithMatchMember("Closed")); err != nil {
		return fmt.Errorf("portal: %w", err)
	}
	if _, err := s.request(ctx, "SelectDevices", map[string]dbus.Variant{"types": dbus.MakeVariant(uint32(devices))}, s.handle); err != nil {
		s.closeSession()
		return err
	}
	res, err = s.request(ctx, "Start", map[string]dbus.Variant{}, s.handle, "")
	if err != nil {
		s.closeSession()
		return err
	}
	got, _ := res["devices"].Value().(uint32)
	s.devices = Devices(got)
	if s.devices&devices == 0 {
		s.closeSession()
		return fmt.Errorf("%w: the portal's dialog was answered without allowing input (GNOME: \"Allow remote interaction\" off)", ErrDenied)
	}
	return nil
}

// request calls method with args and options (the last argument), and returns the results of
// the Response signal of its request.
func (s *Session) request(ctx context.Context, method string, options map[string]dbus.Variant, args ...any) (map[string]dbus.Variant, error) {
	tok := token()
	options["handle_token"] = dbus.MakeVariant(tok)
	sender := strings.ReplaceAll(strings.TrimPrefix(s.conn.Names()[0], ":"), ".", "_")
	path := dbus.ObjectPath(objectPath + "/request/" + sender + "/" + tok)
	match := []dbus.MatchOption{dbus.WithMatchObjectPath(path), dbus.WithMatchInterface(requestIface), dbus.WithMatchMember("Response")}
	if err := s.conn.AddMatchSignalContext(ctx, match...); err != nil {
		return nil, fmt.Errorf("portal: %w", err)
	}
	defer s.conn.RemoveMatchSignalContext(context.WithoutCancel(ctx), match...)
	var got dbus.ObjectPath
	if err := s.conn.Object(busName, objectPath).CallWithContext(ctx, remoteIface+"."+method, 0, append(args, options)...).Store(&got); err != nil {
		var de dbus.Error
		if errors.As(err, &de) && strings.HasPrefix(de.Name, "org.freedesktop.DBus.Error.") {
			return nil, fmt.Errorf("%w: %s: %v", ErrUnavailable, method, err)
		}
		return nil, fmt.Errorf("portal: %s: %w", method, err)
	}
	for {
		select {
		case sig, ok := <-s.signals:
			if !ok {
				return nil, fmt.Errorf("portal: %s: %w", method, ErrClosed)
			}
			if sig.Path != got && sig.Path != path || sig.Name != requestIface+".Response" || len(sig.Body) < 2 {
				continue
			}
			code, _ := sig.Body[0].(uint32)
			res, _ := sig.Body[1].(map[string]dbus.Variant)
			switch code {
			case 0:
				return res, nil
			case 1:
				return nil, fmt.Errorf("%w (%s cancelled)", ErrDenied, method)
			default:
				return nil, fmt.Errorf("portal: %s failed", method)
			}
		case <-ctx.Done():
			// The dialog may still be open: closing the request takes it down.
			s.conn.Object(busName, got).Go(requestIface+".Close", dbus.FlagNoReplyExpected, nil)
			return nil, fmt.Errorf("portal: %s: %w", method, ctx.Err())
		}
	}
}

// watch closes s.closed when the portal closes the session or the connection ends.
func (s *Session) watch() {
	defer s.markClosed()
	for sig := range s.signals {
		if sig.Path == s.handle && sig.Name == sessionIface+".Closed" {
			return
		}
	}
}

func (s *Session) markClosed() {
	if s.done.CompareAndSwap(false, true) {
		close(s.closed)
	}
}

// Devices are the kinds of input the user allowed.
func (s *Session) Devices() Devices { return s.devices }

// Closed is closed once the session has ended.
func (s *Session) Closed() <-chan struct{} { return s.closed }

// Keysym presses or releases the key of keysym sym: the compositor finds it on the session's
// keyboard layout (pressing Shift or AltGr for its level), and drops a keysym the layout lacks.
func (s *Session) Keysym(ctx context.Context, sym uint32, pressed bool) error {
	return s.notify(ctx, "NotifyKeyboardKeysym", int32(sym), state(pressed))
}

// Keycode presses or releases the key of evdev code code.
func (s *Session) Keycode(ctx context.Context, code uint32, pressed bool) error {
	return s.notify(ctx, "NotifyKeyboardKeycode", int32(code), state(pressed))
}

func state(pressed bool) uint32 {
	if pressed {
		return 1
	}
	return 0
}

func (s *Session) notify(ctx context.Context, method string, args ...any) error {
	select {
	case <-s.closed:
		return ErrClosed
	default:
	}
	call := s.conn.Object(busName, objectPath).CallWithContext(ctx, remoteIface+"."+method, 0,
		append([]any{s.handle, map[string]dbus.Variant{}}, args...)...)
	if call.Err != nil {
		return fmt.Errorf("portal: %s: %w", method, call.Err)
	}
	return nil
}

// closeSession asks the portal to end the session, without waiting for an answer (a hung
// portal must not hold mcec's exit).
func (s *Session) closeSession() {
	if s.handle != "" {
		// Go, not Call: godbus's Call waits for the reply a no-reply call never gets.
		s.conn.Object(busName, s.handle).Go(sessionIface+".Close", dbus.FlagNoReplyExpected, nil)
	}
}

// Close ends the session and its connection.
func (s *Session) Close() error {
	s.closeSession()
	err := s.conn.Close()
	s.markClosed()
	return err
}
