package safety

import "testing"

// [emergency_stop] reaches Settings; absent, the hotkey is on with the default chord.
func TestEmergencyStopConfig(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       EmergencyStop
	}{
		{"absent", "", EmergencyStop{}},
		{"hotkey", "[emergency_stop]\nhotkey = \"ctrl+alt+f12\"\n", EmergencyStop{Hotkey: "ctrl+alt+f12"}},
		{"disabled", "[emergency_stop]\nenabled = false\n", EmergencyStop{HotkeyDisabled: true}},
		{"enabled", "[emergency_stop]\nenabled = true\nhotkey = \"super+escape\"\n", EmergencyStop{Hotkey: "super+escape"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := Parse("config.toml", []byte(c.body))
			if err != nil {
				t.Fatal(err)
			}
			s, err := Resolve(f, env(nil), Overrides{})
			if err != nil {
				t.Fatal(err)
			}
			if s.EmergencyStop != c.want {
				t.Errorf("got %+v, want %+v", s.EmergencyStop, c.want)
			}
		})
	}
	if _, err := Parse("config.toml", []byte("[emergency_stop]\nhotkeys = \"x\"\n")); err == nil {
		t.Error("a misspelt emergency_stop setting was accepted")
	}
}
