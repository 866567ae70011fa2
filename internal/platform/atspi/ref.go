package atspi

import (
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"

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

// refAliases shortens the refs of objects whose paths FormatRef cannot abbreviate, or only to a
// long one (WebKitGTK's /org/a11y/atspi/accessible/<UUID>). GTK 4 puts
// each object at <application path>/a11y/<random UUID> (gnome-calculator:
// /org/gnome/Calculator/a11y/927af90a_16db_456f_baeb_2195900794aa), about 30 tokens a ref and a
// quarter of a GTK 4 outline's tokens. Such an object's ref is "bus:~N" instead, N counting the
// application's aliased objects in the order this client first saw them. An alias lasts as
// long as the client (a ref from another mcec process fails as unknown) and the application: it
// never moves to another object, so refs can still be compared as strings. Each application has
// at most maxAliases; objects past that keep their whole path.
type refAliases struct {
	mu     sync.Mutex
	byPath map[objRef]string                     // object → its ref
	byName map[string]map[string]dbus.ObjectPath // bus → "~N" → path
}

const maxAliases = 1 << 18

// maxPlainPath is the longest abbreviated path a ref keeps: the counters of at-spi2-atk, Qt,
// Gecko and Chromium are far shorter; WebKitGTK's UUIDs under the usual prefix are not.
const maxPlainPath = 16

// refOf is the ref of r: FormatRef's, or an alias for a path FormatRef keeps whole or that is
// long.
func (c *Client) refOf(r objRef) string {
	full := FormatRef(r.Bus, r.Path)
	if p := full[strings.LastIndexByte(full, ':')+1:]; !strings.HasPrefix(p, "/") && len(p) <= maxPlainPath {
		return full
	}
	a := &c.aliases
	a.mu.Lock()
	defer a.mu.Unlock()
	if ref, ok := a.byPath[r]; ok {
		return ref
	}
	names := a.byName[r.Bus]
	if len(names) >= maxAliases {
		return full
	}
	if a.byPath == nil {
		a.byPath, a.byName = make(map[objRef]string), make(map[string]map[string]dbus.ObjectPath)
	}
	if names == nil {
		names = make(map[string]dbus.ObjectPath)
		a.byName[r.Bus] = names
	}
	alias := "~" + strconv.Itoa(len(names)+1)
	names[alias] = r.Path
	ref := full[:strings.LastIndexByte(full, ':')+1] + alias
	a.byPath[r] = ref
	return ref
}

// parseRef decodes a ref made by refOf (or FormatRef). A well-formed alias this client does not
// know (any more) is stale; anything else malformed fails with platform.ErrBadRef.
func (c *Client) parseRef(ref string) (string, dbus.ObjectPath, error) {
	i := strings.LastIndexByte(ref, ':')
	if i <= 0 || !strings.HasPrefix(ref[i+1:], "~") {
		return ParseRef(ref)
	}
	b := ref[:i]
	bus := b
	if isDigit(b[0]) {
		bus = ":" + b
	}
	c.aliases.mu.Lock()
	path, ok := c.aliases.byName[bus][ref[i+1:]]
	c.aliases.mu.Unlock()
	if !ok {
		if n := ref[i+2:]; n != "" && n[0] != '0' && strings.Trim(n, "0123456789") == "" && validBusName(bus) {
			// Well formed: given out for an application that has left, or by another mcec.
			return "", "", fmt.Errorf("%w: %s: its application left the bus, or an earlier mcec gave it out (refs with ~ last as long as both)",
				platform.ErrElementStale, ref)
		}
		return "", "", fmt.Errorf("%w: %q", platform.ErrBadRef, ref)
	}
	return bus, path, nil
}

// forget drops the aliases of applications that left the bus.
func (a *refAliases) forget(live map[string]bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	maps.DeleteFunc(a.byName, func(bus string, _ map[string]dbus.ObjectPath) bool { return !live[bus] })
	maps.DeleteFunc(a.byPath, func(r objRef, _ string) bool { return !live[r.Bus] })
}
