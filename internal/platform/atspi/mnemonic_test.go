package atspi

import "testing"

// TestUnmnemonic: GTK 4.8's names with a raw mnemonic label take the text the label child
// shows; every other name stays.
func TestUnmnemonic(t *testing.T) {
	for _, c := range []struct{ name, shown, want string }{
		{"_Mnemo Mnemo", "Mnemo", "Mnemo"},
		{"7 7", "7", "7"},
		{"_Check me", "Check me", "Check me"},
		{"S_elect Select", "Select", "Select"},
		{"_Open File Open File", "Open File", "Open File"},
		{"Save __as Save _as", "Save _as", "Save _as"},
		{"Plain", "Plain", "Plain"},
		{"Bye Bye", "", "Bye Bye"},        // no label child showing the half
		{"Bye Bye", "Bye Bye", "Bye Bye"}, // a label really so
		{"file_name.txt", "other", "file_name.txt"},
		{"Go Stop", "Stop", "Go Stop"},
		{"", "π", "π"}, // a nameless button (the caller asks only for content-named roles)
	} {
		if got := unmnemonic(c.name, c.shown); got != c.want {
			t.Errorf("unmnemonic(%q, %q) = %q, want %q", c.name, c.shown, got, c.want)
		}
	}
	for _, c := range []struct {
		role, name string
		suspect    bool
	}{{"push button", "_Mnemo Mnemo", true}, {"push button", "7 7", true}, {"check box", "_Check me", true},
		{"push button", "Plain", false}, {"push button", "Go Stop", false}, {"push button", "", true}, {"panel", "", false}} {
		if got := mnemonicSuspect(c.role, c.name); got != c.suspect {
			t.Errorf("mnemonicSuspect(%q, %q) = %v", c.role, c.name, got)
		}
	}
}
