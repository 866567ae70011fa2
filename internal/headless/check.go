package headless

import (
	"context"
	"errors"
	"fmt"

	"github.com/godbus/dbus/v5"
)

// Check reports whether the desktop is still usable (nil) or what is wrong with it: every
// process Start started is running, the X server (or the Wayland compositor) answers a round trip, the window manager's
// _NET_SUPPORTING_WM_CHECK is set (unless started without one), and the AT-SPI registry answers
// on the accessibility bus. It is what a readiness probe asks; it changes nothing on the desktop.
func (d *Desktop) Check(ctx context.Context) error {
	if d == nil || d.x == nil && d.waylandSocket == "" {
		return errors.New("no desktop")
	}
	for _, c := range d.procs {
		if c.exited() {
			return fmt.Errorf("%s (pid %d) has exited", c.name, c.pid)
		}
	}
	if d.x == nil {
		// Wayland: the compositor accepts clients on both of its sockets.
		for _, s := range []string{d.waylandSocket, d.swaySocket} {
			if !answers(s) {
				return fmt.Errorf("the compositor does not accept connections on %s", s)
			}
		}
		return d.checkA11y(ctx)
	}
	atom, err := d.x.atom(ctx, "_NET_SUPPORTING_WM_CHECK")
	if err != nil {
		return fmt.Errorf("the X server: %w", err)
	}
	wm, err := d.x.rootWindowProp(ctx, atom)
	if err != nil {
		return fmt.Errorf("the X server: %w", err)
	}
	if wm == 0 && d.hasWM() {
		return errors.New("no window manager manages the screen")
	}
	return d.checkA11y(ctx)
}

// checkA11y checks that the AT-SPI registry answers on the accessibility bus.
func (d *Desktop) checkA11y(ctx context.Context) error {
	if d.a11yAddr == "" {
		return errors.New("no accessibility bus")
	}
	// A fresh connection each time: a probe must see the bus as a new client (an app) would.
	a11y, err := dbus.Connect(d.a11yAddr, dbus.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("accessibility bus: %w", err)
	}
	defer a11y.Close()
	var apps []struct {
		Name string
		Path dbus.ObjectPath
	}
	err = a11y.Object("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root").
		CallWithContext(ctx, "org.a11y.atspi.Accessible.GetChildren", 0).Store(&apps)
	if err != nil {
		return fmt.Errorf("AT-SPI registry: %w", err)
	}
	return nil
}

// hasWM reports whether Start started a window manager.
func (d *Desktop) hasWM() bool {
	for _, c := range d.procs {
		if c.name == "openbox" {
			return true
		}
	}
	return false
}
