package atspi_test

import (
	"errors"
	"testing"

	"github.com/godbus/dbus/v5"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/atspi"
)

func TestRefRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		bus  string
		path dbus.ObjectPath
		ref  string
	}{
		{":1.23", "/org/a11y/atspi/accessible/42", "1.23:42"},
		{":1.0", "/org/a11y/atspi/accessible/root", "1.0:root"},
		{":1.23", "/org/a11y/atspi/accessible/a/b", "1.23:/org/a11y/atspi/accessible/a/b"},
		{":1.23", "/org/qt/accessible/7", "1.23:/org/qt/accessible/7"},
		{":1.23", "/", "1.23:/"},
		{"org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root", "org.a11y.atspi.Registry:root"},
		{":abc.def", "/org/a11y/atspi/accessible/9", ":abc.def:9"}, // unique name not of dbus-daemon's form
	} {
		if got := atspi.FormatRef(tc.bus, tc.path); got != tc.ref {
			t.Errorf("FormatRef(%q, %q) = %q, want %q", tc.bus, tc.path, got, tc.ref)
		}
		bus, path, err := atspi.ParseRef(tc.ref)
		if err != nil || bus != tc.bus || path != tc.path {
			t.Errorf("ParseRef(%q) = %q, %q, %v; want %q, %q", tc.ref, bus, path, err, tc.bus, tc.path)
		}
	}
}

func TestParseRefRejects(t *testing.T) {
	for _, ref := range []string{
		"", ":", "1.23", "1.23:", ":42", "1.23:/org/a11y/atspi/accessible/42", // non-canonical
		"1.23:4-2", "1.23://x", "1.23:/x/", "org:42", "org.1x:42", "::1.2:42",
		"a..b:42", "1.23:/x y",
	} {
		if bus, path, err := atspi.ParseRef(ref); !errors.Is(err, platform.ErrBadRef) {
			t.Errorf("ParseRef(%q) = %q, %q, %v; want ErrBadRef", ref, bus, path, err)
		}
	}
}

// FuzzParseRef: whatever ParseRef accepts is a valid bus name and object path that
// FormatRef turns back into the same string.
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"1.23:42", "1.0:root", "org.a11y.atspi.Registry:root", "1.2:/a/b", ":x.y:1", "1.2:/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		bus, path, err := atspi.ParseRef(ref)
		if err != nil {
			if !errors.Is(err, platform.ErrBadRef) {
				t.Fatalf("ParseRef(%q): error %v is not ErrBadRef", ref, err)
			}
			return
		}
		if !path.IsValid() {
			t.Fatalf("ParseRef(%q): invalid path %q", ref, path)
		}
		if got := atspi.FormatRef(bus, path); got != ref {
			t.Fatalf("FormatRef(ParseRef(%q)) = %q", ref, got)
		}
	})
}
