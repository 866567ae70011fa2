package atspi

import (
	"fmt"
	"strings"

	"github.com/godbus/dbus/v5"

	"github.com/mcec/mcec/internal/platform"
)

// accessiblePrefix is where at-spi2-atk (and Qt) put their objects; refs abbreviate it.
const accessiblePrefix = "/org/a11y/atspi/accessible/"

// FormatRef encodes a live object as an opaque element reference.
//
// The ref is the bus name, a colon, and the object path, both abbreviated in the common case:
// a unique name ":1.23" drops its leading colon, and a path under /org/a11y/atspi/accessible/
// keeps only its last element. ":1.23" + "/org/a11y/atspi/accessible/42" is "1.23:42";
// other paths stay whole ("1.23:/org/qt/x"). Object paths hold no colon, so ParseRef splits at
// the last one.
func FormatRef(bus string, path dbus.ObjectPath) string {
	b := bus
	if len(b) > 1 && b[0] == ':' && isDigit(b[1]) {
		b = b[1:]
	}
	p := string(path)
	if rest, ok := strings.CutPrefix(p, accessiblePrefix); ok && rest != "" && !strings.Contains(rest, "/") {
		p = rest
	}
	return b + ":" + p
}

// ParseRef decodes a reference made by FormatRef. It accepts only the canonical form, so
// FormatRef(ParseRef(s)) == s for every s it accepts and refs can be compared as strings;
// anything else fails with platform.ErrBadRef.
func ParseRef(ref string) (bus string, path dbus.ObjectPath, err error) {
	i := strings.LastIndexByte(ref, ':')
	if i <= 0 || i == len(ref)-1 {
		return "", "", fmt.Errorf("%w: %q", platform.ErrBadRef, ref)
	}
	b, p := ref[:i], ref[i+1:]
	if isDigit(b[0]) {
		bus = ":" + b
	} else {
		bus = b
	}
	if p[0] == '/' {
		path = dbus.ObjectPath(p)
	} else {
		path = dbus.ObjectPath(accessiblePrefix + p)
	}
	if !validBusName(bus) || !path.IsValid() || FormatRef(bus, path) != ref {
		return "", "", fmt.Errorf("%w: %q", platform.ErrBadRef, ref)
	}
	return bus, path, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// validBusName follows the D-Bus specification: at most 255 bytes, at least two
// dot-separated non-empty elements of [A-Za-z0-9_-]; only unique names (leading ':') may have
// elements that start with a digit.
func validBusName(name string) bool {
	if len(name) == 0 || len(name) > 255 {
		return false
	}
	unique := name[0] == ':'
	if unique {
		name = name[1:]
	}
	elems := strings.Split(name, ".")
	if len(elems) < 2 {
		return false
	}
	for _, e := range elems {
		if e == "" || (!unique && isDigit(e[0])) {
			return false
		}
		for i := 0; i < len(e); i++ {
			c := e[i]
			if !(isDigit(c) || c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
				return false
			}
		}
	}
	return true
}
