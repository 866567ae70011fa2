package atspi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/mcec/mcec/internal/platform"
)

// failure classifies a failed D-Bus call once, so callers decide by kind, never by message.
type failure int

const (
	failOther    failure = iota // anything else: the property is treated as absent
	failDead                    // the object is gone (UnknownObject, UnknownMethod on Accessible)
	failNoIface                 // the object lacks the interface or property asked for
	failHung                    // no answer before the deadline
	failDenied                  // the bus or the app refused access
	failGone                    // the application left the bus
	failClosed                  // our connection to the bus is closed
	failCanceled                // the caller canceled
)

func classify(err error) failure {
	var de dbus.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return failHung
	case errors.Is(err, context.Canceled):
		return failCanceled
	case errors.Is(err, dbus.ErrClosed), errors.Is(err, net.ErrClosed):
		// godbus reports a write that raced its own Close as the socket's error.
		return failClosed
	case errors.As(err, &de):
		switch de.Name {
		case "org.freedesktop.DBus.Error.UnknownObject":
			return failDead
		case "org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.UnknownInterface",
			"org.freedesktop.DBus.Error.UnknownProperty", "org.freedesktop.DBus.Error.Failed",
			"org.freedesktop.DBus.Error.NotSupported", "org.freedesktop.DBus.Error.InvalidArgs":
			return failNoIface
		case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout",
			"org.freedesktop.DBus.Error.TimedOut":
			return failHung
		case "org.freedesktop.DBus.Error.AccessDenied", "org.freedesktop.DBus.Error.AuthFailed":
			return failDenied
		case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
			"org.freedesktop.DBus.Error.Disconnected":
			return failGone
		}
	}
	return failOther
}

// fatal reports whether a failure ends the whole operation rather than one node or property.
func (f failure) fatal() bool {
	switch f {
	case failHung, failDenied, failGone, failClosed, failCanceled:
		return true
	}
	return false
}

// callError converts a failed call into the platform vocabulary, wrapping the matching
// sentinel with a detail for people; timeout is the deadline the call had. Caller
// cancellation stays context.Canceled.
func (c *Client) callError(err error, timeout time.Duration, dest string, path dbus.ObjectPath, method string) error {
	switch classify(err) {
	case failHung:
		return fmt.Errorf("%w: %s did not answer %s on %s within %v",
			platform.ErrAppNotResponding, dest, method, path, timeout)
	case failDenied:
		return fmt.Errorf("%w: %s %s: %v", platform.ErrElevated, dest, method, err)
	case failGone:
		return fmt.Errorf("%w: %s left the accessibility bus", platform.ErrWindowClosed, dest)
	case failClosed:
		return fmt.Errorf("%w: connection closed", platform.ErrAtspiUnavailable)
	case failCanceled:
		return err
	}
	return fmt.Errorf("atspi: %s %s on %s: %w", dest, method, path, err)
}
