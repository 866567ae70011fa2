package atspi

import (
	"context"
	"fmt"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/mcec/mcec/internal/platform/atspi/dbuswire"
)

// A warm tree's calls (Cache.GetItems, extents, property reads and GetAll, text, states,
// children) go through a second, minimal connection with hand-decoded replies when it is up:
// godbus's per-call overhead and reflection were most of a tree's client CPU
// (internal/dev/bench/findings.md).
// Both paths keep the same deadline per call and the same failure classes, so callers see
// no difference; everything else, and everything when the fast connection is down, uses
// godbus.

// fastConn returns the fast connection, or nil when there is none or it has ended.
func (c *Client) fastConn() *dbuswire.Conn {
	fc := c.fast
	if fc == nil {
		return nil
	}
	select {
	case <-fc.Done():
		return nil
	default:
		return fc
	}
}

// fastCall makes one call on fc with a deadline; errors are converted to godbus's types so
// classify and callError treat them as they treat godbus's.
func (c *Client) fastCall(ctx context.Context, fc *dbuswire.Conn, dest string, path dbus.ObjectPath, iface, member string, args ...any) (*dbuswire.Reply, failure, error) {
	return c.fastCallWithin(ctx, fc, c.callTimeout(), dest, path, iface, member, args...)
}

// fastCallWithin is fastCall with its own deadline instead of CallTimeout.
// The call goes to dest's own socket when it has one (peer.go); a socket that closed sends it
// through the bus after all.
func (c *Client) fastCallWithin(ctx context.Context, fc *dbuswire.Conn, timeout time.Duration, dest string, path dbus.ObjectPath, iface, member string, args ...any) (*dbuswire.Reply, failure, error) {
	c.calls.Add(1)
	if pc := c.peerFor(dest); pc != nil {
		r, err := pc.Call(ctx, timeout, "", string(path), iface, member, args...)
		if err != dbuswire.ErrClosed {
			return c.fastResult(r, err, timeout, dest, path, iface, member)
		}
	}
	r, err := fc.Call(ctx, timeout, dest, string(path), iface, member, args...)
	return c.fastResult(r, err, timeout, dest, path, iface, member)
}

// fastResult converts a fast call's outcome to godbus's error types, so classify and
// callError treat it as they treat godbus's.
func (c *Client) fastResult(r *dbuswire.Reply, err error, timeout time.Duration, dest string, path dbus.ObjectPath, iface, member string) (*dbuswire.Reply, failure, error) {
	if err == nil && r.ErrorName != "" {
		e := dbus.Error{Name: r.ErrorName}
		if we, ok := r.Err().(*dbuswire.Error); ok && we.Message != "" {
			e.Body = []any{we.Message}
		}
		err = e
	}
	if err == nil {
		return r, 0, nil
	}
	if err == dbuswire.ErrClosed {
		err = dbus.ErrClosed
	}
	return nil, classify(err), c.callError(err, timeout, dest, path, iface+"."+member)
}

// extents reads Component.GetExtents in the coordinate type given (coordScreen or
// coordWindow); ok is false when the reply could not be decoded.
func (c *Client) extents(ctx context.Context, ref objRef, coords uint32) (r [4]int32, ok bool, f failure, err error) {
	if fc := c.fastConn(); fc != nil {
		rep, f, err := c.fastCall(ctx, fc, ref.Bus, ref.Path, ifComponent, "GetExtents", coords)
		if err != nil {
			return r, false, f, err
		}
		r, derr := rep.Int32x4()
		return r, derr == nil, 0, nil
	}
	call, f, err := c.call(ctx, ref.Bus, ref.Path, ifComponent+".GetExtents", coords)
	if err != nil {
		return r, false, f, err
	}
	var s struct{ X, Y, W, H int32 }
	if call.Store(&s) != nil {
		return r, false, 0, nil
	}
	return [4]int32{s.X, s.Y, s.W, s.H}, true, 0, nil
}

// callString makes a call whose reply is one string; ok is false when it is not.
func (c *Client) callString(ctx context.Context, ref objRef, iface, member string, args ...any) (s string, ok bool, f failure, err error) {
	if fc := c.fastConn(); fc != nil {
		rep, f, err := c.fastCall(ctx, fc, ref.Bus, ref.Path, iface, member, args...)
		if err != nil {
			return "", false, f, err
		}
		s, derr := rep.String()
		return s, derr == nil, 0, nil
	}
	call, f, err := c.call(ctx, ref.Bus, ref.Path, iface+"."+member, args...)
	if err != nil {
		return "", false, f, err
	}
	ok = call.Store(&s) == nil
	return s, ok, 0, nil
}

// states reads Accessible.GetState.
func (c *Client) states(ctx context.Context, ref objRef) (stateBits, failure, error) {
	var words []uint32
	if fc := c.fastConn(); fc != nil {
		rep, f, err := c.fastCall(ctx, fc, ref.Bus, ref.Path, ifAccessible, "GetState")
		if err != nil {
			return stateBits{}, f, err
		}
		words, _ = rep.Uint32s()
	} else {
		call, f, err := c.call(ctx, ref.Bus, ref.Path, ifAccessible+".GetState")
		if err != nil {
			return stateBits{}, f, err
		}
		_ = call.Store(&words)
	}
	return c.knownBridge(ref.Bus).normalize(bitsFrom(words)), 0, nil
}

// fastProperty reads a property of a basic type into v (*int32, *uint32, *float64, *string
// or *bool). handled is false when v is another type or there is no fast connection.
func (c *Client) fastProperty(ctx context.Context, dest string, path dbus.ObjectPath, iface, name string, v any) (handled bool, f failure, err error) {
	switch v.(type) {
	case *int32, *uint32, *float64, *string, *bool:
	default:
		return false, 0, nil
	}
	fc := c.fastConn()
	if fc == nil {
		return false, 0, nil
	}
	rep, f, err := c.fastCall(ctx, fc, dest, path, "org.freedesktop.DBus.Properties", "Get", iface, name)
	if err != nil {
		return true, f, err
	}
	got, err := rep.Variant()
	if err != nil {
		return true, failOther, err
	}
	ok := false
	switch p := v.(type) {
	case *int32:
		*p, ok = got.(int32)
	case *uint32:
		*p, ok = got.(uint32)
	case *float64:
		*p, ok = got.(float64)
	case *string:
		*p, ok = got.(string)
	case *bool:
		*p, ok = got.(bool)
	}
	if !ok {
		return true, failOther, fmt.Errorf("atspi: %s.%s: %T, want %T", iface, name, got, v)
	}
	return true, 0, nil
}

// children reads Accessible.GetChildren; ok is false when the reply could not be decoded.
func (c *Client) children(ctx context.Context, ref objRef) (refs []objRef, ok bool, f failure, err error) {
	if fc := c.fastConn(); fc != nil {
		rep, f, err := c.fastCall(ctx, fc, ref.Bus, ref.Path, ifAccessible, "GetChildren")
		if err != nil {
			return nil, false, f, err
		}
		d, err := rep.Decoder("a(so)")
		if err != nil {
			return nil, false, 0, nil
		}
		end := d.Array(8)
		for d.More(end) {
			d.Struct()
			refs = append(refs, objRef{Bus: d.String(), Path: dbus.ObjectPath(d.String())})
		}
		d.End(end)
		if d.Err() != nil {
			return nil, false, 0, nil
		}
		return refs, true, 0, nil
	}
	call, f, err := c.call(ctx, ref.Bus, ref.Path, ifAccessible+".GetChildren")
	if err != nil {
		return nil, false, f, err
	}
	ok = call.Store(&refs) == nil
	return refs, ok, 0, nil
}

// decodeAccessibleAll stores a GetAll reply of the Accessible interface in info; false when
// the reply holds a type the decoder does not know (info is then unchanged).
func decodeAccessibleAll(rep *dbuswire.Reply, info *objInfo) bool {
	d, err := rep.Decoder("a{sv}")
	if err != nil {
		return false
	}
	var (
		name, desc, id string
		count          int32
		hasID          bool
	)
	end := d.Array(8)
	for d.More(end) {
		d.Struct()
		key, sig := d.String(), d.Signature()
		switch {
		case key == "Name" && sig == "s":
			name = d.String()
		case key == "Description" && sig == "s":
			desc = d.String()
		case key == "ChildCount" && sig == "i":
			count = d.Int32()
		case key == "AccessibleId" && sig == "s":
			id, hasID = d.String(), true
		default:
			d.Skip(sig)
		}
	}
	d.End(end)
	if d.Err() != nil {
		return false
	}
	info.name, info.desc, info.childCount = name, desc, count
	if hasID {
		info.id = id
	}
	info.idKnown = true
	return true
}
