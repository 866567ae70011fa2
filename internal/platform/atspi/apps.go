package atspi

import (
	"context"
	"errors"
	"fmt"

	"github.com/godbus/dbus/v5"

	"github.com/mcec/mcec/internal/platform"
)

// App is one application registered on the accessibility bus.
type App struct {
	BusName        string // unique bus name, e.g. ":1.23"
	Path           dbus.ObjectPath
	PID            int    // 0 when the bus daemon does not know it
	Name           string // accessible name of the application, usually the program name
	Toolkit        string // Application.ToolkitName, e.g. "gtk", "Qt"
	ToolkitVersion string
	// Err is set when the application did not answer (it wraps platform.ErrAppNotResponding
	// for a hung app); the other fields that need no app call are still filled in.
	Err error
}

// objRef is an AT-SPI object reference, marshalled as (so).
type objRef struct {
	Bus  string
	Path dbus.ObjectPath
}

func (r objRef) null() bool { return r.Bus == "" || r.Path == nullPath || r.Path == "" }

// registered lists the applications on the registry's desktop. Only the registry answers, so
// a hung app cannot block it. The registry is asked twice before it counts as down: on a loaded
// CI machine it once missed one 2 s deadline while LibreOffice started (reach, Writer), and
// every tool would have failed internal/atspi-unavailable for that call.
func (c *Client) registered(ctx context.Context) ([]objRef, error) {
	call, f, err := c.call(ctx, registryName, registryRoot, ifAccessible+".GetChildren")
	if err != nil && f == failHung && ctx.Err() == nil {
		c.log.Debug("atspi: the registry did not answer in time; asking again", "err", err)
		call, f, err = c.call(ctx, registryName, registryRoot, ifAccessible+".GetChildren")
	}
	if err != nil {
		switch {
		case f == failHung && ctx.Err() == nil:
			// Busy, not gone: beside a second make test the registry missed both deadlines while
			// LibreOffice handed a document to its running instance. A timeout, which waits (launch,
			// wait-for) ride out within their own deadlines.
			return nil, fmt.Errorf("%w: the AT-SPI registry did not answer twice in a row (it is busy): %v", platform.ErrAppNotResponding, err)
		case f == failGone && ctx.Err() == nil:
			// The registry daemon, not an application: the accessibility layer itself is down.
			return nil, fmt.Errorf("%w: the AT-SPI registry is gone: %v", platform.ErrAtspiUnavailable, err)
		}
		return nil, err
	}
	var apps []objRef
	if err := call.Store(&apps); err != nil {
		return nil, fmt.Errorf("atspi: registry children: %w", err)
	}
	live := make(map[string]bool, len(apps))
	out := apps[:0]
	for _, a := range apps {
		if !a.null() {
			out = append(out, a)
			live[a.Bus] = true
		}
	}
	c.forget(live)
	return out, nil
}

// Apps lists the registered applications with their process ids, names and toolkits, for
// diagnostics. An application that does not answer is listed with Err set.
func (c *Client) Apps(ctx context.Context) ([]App, error) {
	refs, err := c.registered(ctx)
	if err != nil {
		return nil, err
	}
	apps := make([]App, len(refs))
	var jobs []job
	for i, r := range refs {
		a := &apps[i]
		a.BusName, a.Path = r.Bus, r.Path
		jobs = append(jobs, func(ctx context.Context) error {
			p, err := c.pid(ctx, r.Bus)
			if err == nil {
				a.PID = p
			}
			return nil
		}, func(ctx context.Context) error {
			// Sequential per app: once one call to an app times out, the others would too.
			if f, err := c.property(ctx, r.Bus, r.Path, ifAccessible, "Name", &a.Name); f.fatal() {
				a.Err = err
				return nil
			}
			_, _ = c.property(ctx, r.Bus, r.Path, ifApplication, "ToolkitName", &a.Toolkit)
			_, _ = c.property(ctx, r.Bus, r.Path, ifApplication, "Version", &a.ToolkitVersion)
			return nil
		})
	}
	if err := run(ctx, nil, jobs); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return apps, nil
}

// appsOf returns the registered applications whose connection belongs to pid.
func (c *Client) appsOf(ctx context.Context, pid int) ([]objRef, error) {
	refs, err := c.registered(ctx)
	if err != nil {
		return nil, err
	}
	match := make([]bool, len(refs))
	var jobs []job
	for i, r := range refs {
		jobs = append(jobs, func(ctx context.Context) error {
			p, err := c.pid(ctx, r.Bus)
			if err != nil {
				// An app that just left the bus is simply not a match.
				if errors.Is(err, platform.ErrWindowClosed) {
					return nil
				}
				return err
			}
			match[i] = p == pid
			return nil
		})
	}
	if err := run(ctx, nil, jobs); err != nil {
		return nil, err
	}
	var out []objRef
	for i, r := range refs {
		if match[i] {
			out = append(out, r)
		}
	}
	return out, nil
}

// Frame is one top-level object of an application: where the display server does not say which
// process owns a window (a wlroots compositor without sway's IPC) it is found by its frame, and
// where it lists no windows at all (GNOME Shell without mcec's extension) frames stand for them.
type Frame struct {
	PID  int
	Name string
	// Ref, Role, Active and Showing describe the object further, for listing it as a window
	// where the compositor lists none (GNOME Shell without mcec's extension).
	Ref             string
	Role            string
	Active, Showing bool
}

// Frames lists the top-level objects of every registered application with their names, but
// not those already defunct (a window closing). An application that does not answer, or whose
// pid the bus does not know, is left out: it cannot own a window mcec finds this way. When ctx
// ends first, what was read is returned with ctx's error: a hung application costs the caller's
// deadline only.
func (c *Client) Frames(ctx context.Context) ([]Frame, error) {
	refs, err := c.registered(ctx)
	if err != nil {
		return nil, err
	}
	per := make([][]Frame, len(refs))
	var jobs []job
	for i, r := range refs {
		jobs = append(jobs, func(ctx context.Context) error {
			pid, err := c.pid(ctx, r.Bus)
			if err != nil || pid <= 0 {
				return nil
			}
			kids, ok, _, err := c.children(ctx, r)
			if err != nil || !ok {
				return nil
			}
			for _, k := range kids {
				var name string
				if _, err := c.property(ctx, k.Bus, k.Path, ifAccessible, "Name", &name); err != nil {
					continue
				}
				st, _, err := c.states(ctx, k)
				if err != nil || st.has(stateDefunct) {
					continue
				}
				role := ""
				if code, _, err := c.kind(ctx, k); err == nil {
					role, _ = roleName(code)
				}
				per[i] = append(per[i], Frame{PID: pid, Name: name, Ref: c.refOf(k), Role: role,
					Active: st.has(stateActive), Showing: st.has(stateShowing) && st.has(stateVisible)})
			}
			return nil
		})
	}
	err = run(ctx, nil, jobs)
	var out []Frame
	for _, fs := range per {
		out = append(out, fs...)
	}
	return out, err
}

// PIDOf is the process of the application that ref's object belongs to.
func (c *Client) PIDOf(ctx context.Context, ref string) (int, error) {
	bus, _, err := c.parseRef(ref)
	if err != nil {
		return 0, err
	}
	return c.pid(ctx, bus)
}
