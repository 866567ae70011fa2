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
		{"", "Label", ""},
	} {
		if got := unmnemonic(c.name, c.shown); got != c.want {
			t.Errorf("unmnemonic(%q, %q) = %q, want %q", c.name, c.shown, got, c.want)
		}
	}
	for _, c := range []struct {
		name    string
		suspect bool
	}{{"_Mnemo Mnemo", true}, {"7 7", true}, {"_Check me", true}, {"Plain", false}, {"Go Stop", false}} {
		if got := mnemonicSuspect(c.name); got != c.suspect {
			t.Errorf("mnemonicSuspect(%q) = %v", c.name, got)
		}
	}
}
