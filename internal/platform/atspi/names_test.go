package atspi

import "testing"

// Names as agents see them: menu padding trimmed everywhere; GTK 4.8's type-name stand-ins
// dropped on GTK 4 only.
func TestDisplayName(t *testing.T) {
	gtk4, gtk3 := bridgeFor("GTK", "4.8.3"), bridgeFor("GTK", "3.24.38")
	for _, tc := range []struct {
		b          bridge
		name, want string
	}{
		{gtk3, "Save As...      ", "Save As..."},
		{gtk4, "GtkButton", ""},
		{gtk4, "AdwGizmo", ""},
		{gtk4, "HistoryView", ""},
		{gtk4, "GtkSourceView", ""},
		{gtk4, "Undo", "Undo"},
		{gtk4, "OK", "OK"},
		{gtk4, "PhD", "PhD"},
		{gtk4, "4 4", "4 4"},
		{gtk4, "Gtk Button", "Gtk Button"},
		{gtk3, "GtkButton", "GtkButton"},
	} {
		if got := tc.b.displayName(tc.name); got != tc.want {
			t.Errorf("%s %s: displayName(%q) = %q, want %q", tc.b.Toolkit, tc.b.Version, tc.name, got, tc.want)
		}
	}
}
