package headless

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/xgbext"
)

// requiredExtensions are what mcec's X backend relies on (all of them in xgbext.Extensions).
var requiredExtensions = []string{"XTEST", "Composite", "MIT-SHM", "RANDR"}

// xconn is the desktop's own X connection, open for the desktop's life: it
// owns the D-Bus autolaunch selection, so it must outlive every app.
type xconn struct {
	c       *xgb.Conn
	root    xproto.Window
	present map[string]bool // the extensions of xgbext.Extensions the server has
}

// dialX connects to display, bounded by ctx.
func dialX(ctx context.Context, display string) (*xconn, error) {
	c, err := xgbext.Dial(ctx, display)
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, err
	}
	x := &xconn{c: c, root: xproto.Setup(c).DefaultScreen(c).Root}
	// The first connection to a fresh server, before any application exists: the safe moment
	// to register extension decoders for the whole process (see xgbext).
	present, err := xcall(ctx, func() (map[string]bool, error) { return xgbext.RegisterAll(x.c) })
	if err != nil {
		x.c.Close()
		return nil, fmt.Errorf("query X extensions: %w", err)
	}
	x.present = present
	go x.drain()
	return x, nil
}

// registerX connects to a compositor's fresh Xwayland once, for dialX's registration of the
// extension decoders, and closes the connection again.
func registerX(ctx context.Context, display string) error {
	x, err := dialX(ctx, display)
	if err != nil {
		return err
	}
	x.close(time.Second)
	return nil
}

// drain discards events and async errors: xgb stops reading replies once
// its event buffer is full, and the selection owner receives events nobody
// asked for (SelectionClear, SelectionRequest).
func (x *xconn) drain() {
	for {
		ev, err := x.c.WaitForEvent()
		if ev == nil && err == nil {
			return
		}
	}
}

// close closes the connection without waiting more than timeout: xgb's
// Close does a round trip, which never returns if the server is wedged.
func (x *xconn) close(timeout time.Duration) {
	done := make(chan struct{})
	go func() {
		x.c.Close()
		close(done)
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// xcall runs one blocking xgb round trip under ctx. xgb has no deadlines;
// an abandoned call is released when the connection closes.
func xcall[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, context.Cause(ctx)
	}
}

func (x *xconn) atom(ctx context.Context, name string) (xproto.Atom, error) {
	r, err := xcall(ctx, xproto.InternAtom(x.c, false, uint16(len(name)), name).Reply)
	if err != nil {
		return 0, fmt.Errorf("intern %s: %w", name, err)
	}
	return r.Atom, nil
}

// checkExtensions reports the required extensions the server lacks.
func (x *xconn) checkExtensions() error {
	var missing []string
	for _, name := range requiredExtensions {
		if !x.present[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("server lacks X extensions %s", strings.Join(missing, ", "))
	}
	return nil
}

// rootWindowProp returns the first 32-bit value of a root window property,
// or 0 when it is unset.
func (x *xconn) rootWindowProp(ctx context.Context, prop xproto.Atom) (uint32, error) {
	r, err := xcall(ctx, xproto.GetProperty(x.c, false, x.root, prop, xproto.AtomAny, 0, 1).Reply)
	if err != nil {
		return 0, err
	}
	if r.Format != 32 || len(r.Value) < 4 {
		return 0, nil
	}
	return xgb.Get32(r.Value), nil
}

// waitFrameExtents asks the window manager for the frame extents of a small unmapped window of
// ours until it answers, which proves its event loop runs. exited stops the wait early.
func (x *xconn) waitFrameExtents(ctx context.Context, exited func() bool) error {
	req, err := x.atom(ctx, "_NET_REQUEST_FRAME_EXTENTS")
	if err != nil {
		return err
	}
	extents, err := x.atom(ctx, "_NET_FRAME_EXTENTS")
	if err != nil {
		return err
	}
	probe, err := xproto.NewWindowId(x.c)
	if err != nil {
		return err
	}
	if _, err := xcall(ctx, func() (struct{}, error) {
		return struct{}{}, xproto.CreateWindowChecked(x.c, 0, probe, x.root, -10, -10, 1, 1, 0,
			xproto.WindowClassInputOutput, 0, 0, nil).Check()
	}); err != nil {
		return fmt.Errorf("create probe window: %w", err)
	}
	defer xproto.DestroyWindow(x.c, probe)
	ask := func() {
		ev := xproto.ClientMessageEvent{Format: 32, Window: probe, Type: req,
			Data: xproto.ClientMessageDataUnionData32New(make([]uint32, 5))}
		xproto.SendEvent(x.c, false, x.root, xproto.EventMaskSubstructureRedirect|xproto.EventMaskSubstructureNotify, string(ev.Bytes()))
	}
	ask()
	asked := time.Now()
	err = poll(ctx, pollEvery, func() (bool, error) {
		if exited() {
			return false, errors.New("the window manager exited")
		}
		r, err := xcall(ctx, xproto.GetProperty(x.c, false, probe, extents, xproto.GetPropertyTypeAny, 0, 4).Reply)
		if err != nil {
			return false, err
		}
		if r.Type != xproto.AtomNone {
			return true, nil
		}
		if time.Since(asked) > 200*time.Millisecond { // a request sent before the loop ran is lost
			ask()
			asked = time.Now()
		}
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the window manager to answer _NET_REQUEST_FRAME_EXTENTS: %w", err)
	}
	return nil
}

// publishSessionBus makes dbus-launch --autolaunch (what libdbus and GLib
// fall back to when DBUS_SESSION_BUS_ADDRESS is unset) find our session bus
// instead of starting a second one, whose AT-SPI launcher would take over
// the display's a11y bus. This is dbus-launch's own protocol: a window owning
// the selection _DBUS_SESSION_BUS_SELECTION_<user>_<machine-id>, carrying
// the address and the daemon's pid.
func (x *xconn) publishSessionBus(ctx context.Context, address string, pid int) error {
	machine := machineID()
	u, err := user.Current()
	if machine == "" || err != nil {
		return nil // dbus-launch cannot autolaunch here either
	}
	sel, err := x.atom(ctx, "_DBUS_SESSION_BUS_SELECTION_"+u.Username+"_"+machine)
	if err != nil {
		return err
	}
	addrAtom, err := x.atom(ctx, "_DBUS_SESSION_BUS_ADDRESS")
	if err != nil {
		return err
	}
	pidAtom, err := x.atom(ctx, "_DBUS_SESSION_BUS_PID")
	if err != nil {
		return err
	}
	wid, err := xproto.NewWindowId(x.c)
	if err != nil {
		return err
	}
	pidBytes := make([]byte, 4)
	xgb.Put32(pidBytes, uint32(pid))
	checks := []func() error{
		xproto.CreateWindowChecked(x.c, 0, wid, x.root, -20, -20, 10, 10, 0,
			xproto.WindowClassInputOnly, 0, 0, nil).Check,
		xproto.ChangePropertyChecked(x.c, xproto.PropModeReplace, wid, addrAtom,
			xproto.AtomString, 8, uint32(len(address)), []byte(address)).Check,
		xproto.ChangePropertyChecked(x.c, xproto.PropModeReplace, wid, pidAtom,
			xproto.AtomCardinal, 32, 1, pidBytes).Check,
		xproto.SetSelectionOwnerChecked(x.c, wid, sel, xproto.TimeCurrentTime).Check,
	}
	for _, check := range checks {
		if _, err := xcall(ctx, func() (struct{}, error) { return struct{}{}, check() }); err != nil {
			return fmt.Errorf("publish session bus on X: %w", err)
		}
	}
	return nil
}

// machineID is what libdbus reads, in its order.
func machineID() string {
	for _, p := range []string{"/var/lib/dbus/machine-id", "/etc/machine-id"} {
		if b, err := os.ReadFile(p); err == nil {
			if s := strings.TrimSpace(string(b)); s != "" {
				return s
			}
		}
	}
	return ""
}
