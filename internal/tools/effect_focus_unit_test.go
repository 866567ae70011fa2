package tools

import (
	"strings"
	"testing"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/rawcmd"
)

// A button that writes into the focused field (GNOME Calculator's digits): the lean walk reads no
// values, so the focused field's value change is reported from the focus reads.
func TestFocusValueChange(t *testing.T) {
	el := func(ref, role, value string) *platform.Element {
		return &platform.Element{Node: platform.Node{Ref: ref, Role: role, Value: &value}}
	}
	var eff Effect
	focusValueChange(&eff, el("1.4:7", "text", "1"), el("1.4:7", "text", "12"), "1.4:9")
	if len(eff.Changed) != 1 || *eff.Changed[0].Value != "12" || *eff.Changed[0].Was.Value != "1" || !eff.observed() {
		t.Fatalf("effect %+v: want the display's 1 → 12", eff)
	}
	for _, tc := range []struct {
		name          string
		before, after *platform.Element
		target        string
	}{
		{"same value", el("1.4:7", "text", "1"), el("1.4:7", "text", "1"), ""},
		{"focus moved", el("1.4:7", "text", "1"), el("1.4:8", "text", "2"), ""},
		{"the target itself", el("1.4:7", "text", "1"), el("1.4:7", "text", "2"), "1.4:7"},
		{"a password field", el("1.4:7", "password text", "•"), el("1.4:7", "password text", "••"), ""},
		{"no focus before", nil, el("1.4:7", "text", "2"), ""},
	} {
		var eff Effect
		focusValueChange(&eff, tc.before, tc.after, tc.target)
		if len(eff.Changed) != 0 {
			t.Errorf("%s: reported %+v", tc.name, eff.Changed)
		}
	}
}

// A long text reports the part that changed with some context, not the whole text twice.
func TestChangedValuesClipLongText(t *testing.T) {
	long := strings.Repeat("a", 1000)
	before, after := long+"END", long+"hello END"
	was, now := changedValues(&before, &after)
	if !strings.HasPrefix(*now, "…") || !strings.Contains(*now, "hello END") || len([]rune(*now)) > maxEffectValue+2 {
		t.Errorf("now = %q", *now)
	}
	if !strings.HasPrefix(*was, "…") || !strings.HasSuffix(*was, "END") || len([]rune(*was)) > maxEffectValue+2 {
		t.Errorf("was = %q", *was)
	}
	short1, short2 := "1", "12"
	if w, n := changedValues(&short1, &short2); *w != "1" || *n != "12" {
		t.Errorf("short values changed: %q %q", *w, *n)
	}
}

// TestConclusive: a press alone, a focus lost to nothing alone, and a focus gone out of the window
// before any window opened keep the settle wait going; anything else ends it.
func TestConclusive(t *testing.T) {
	field := &NodeBrief{Ref: "1.2:3", Role: "text"}
	for _, c := range []struct {
		name string
		eff  Effect
		want bool
	}{
		{"nothing", Effect{}, false},
		{"only pressed", Effect{Target: &NodeChange{States: "+pressed"}}, false},
		{"focus to nothing (a window closing)", Effect{Focus: &FocusMove{From: field}}, false},
		{"focus to nothing, the window closed", Effect{Focus: &FocusMove{From: field}, WindowsClosed: []WindowBrief{{Handle: 7}}}, true},
		{"focus moved", Effect{Focus: &FocusMove{From: field, To: &NodeBrief{Ref: "1.2:4"}}}, true},
		{"focus moved out of the window, no window yet", Effect{Focus: &FocusMove{From: field, To: &NodeBrief{Ref: "1.2:9"}}, focusAway: true}, false},
		{"focus moved out of the window, which opened", Effect{Focus: &FocusMove{From: field, To: &NodeBrief{Ref: "1.2:9"}}, focusAway: true,
			WindowsOpened: []WindowBrief{{Handle: 8}}}, true},
		{"a value changed", Effect{Changed: []NodeChange{{}}}, true},
	} {
		if got := c.eff.conclusive(); got != c.want {
			t.Errorf("%s: conclusive %v, want %v", c.name, got, c.want)
		}
	}
}

// TestObservedCommands: typing, keys and mouse input are observed; a held button, a held modifier,
// a pause and meta commands are not (waiting after a press would make it a long press).
func TestObservedCommands(t *testing.T) {
	table := rawcmd.Builtins(nil)
	for line, want := range map[string]bool{
		"chars:hi": true, "key:Return": true, "enter": true, "mouse:lbc": true, "mouse:mm,5,0": true,
		"mouse:lbu": true, "mouse:drag,1,2,3,4": true,
		"mouse:lbd": false, "mouse:down": false, "shiftdown:ctrl": false, "pause:100": false, "mcec:ver": false,
	} {
		if got := synthesizesInput(table, line); got != want {
			t.Errorf("%s: observed %v, want %v", line, got, want)
		}
	}
}

// A menu closing after its item was activated is the way to the item's effect, not the effect;
// a weak effect keeps the settle wait going.
func TestWeakEffects(t *testing.T) {
	menu := NodeChange{NodeBrief: NodeBrief{Ref: "1.2:10", Role: "menu", Name: "Help"}, States: "-selected"}
	label := NodeChange{NodeBrief: NodeBrief{Ref: "1.2:11", Role: "label", Name: "count: 1"}, Was: &Was{}}
	focus := &FocusMove{To: &NodeBrief{Ref: "1.2:3", Role: "push button"}}
	was, now := "page go=0", "page go=1"
	for _, tc := range []struct {
		name                 string
		eff                  Effect
		menuOnly, forerunner bool
	}{
		{"a menu closed", Effect{Changed: []NodeChange{menu}}, true, false},
		{"a menu closed and a window opened", Effect{Changed: []NodeChange{menu}, WindowsOpened: []WindowBrief{{Title: "About"}}}, false, false},
		{"a menu closed and a label changed", Effect{Changed: []NodeChange{menu, label}}, false, false},
		{"the focus moved", Effect{Focus: focus}, false, true},
		{"the focus moved and a label changed", Effect{Focus: focus, Changed: []NodeChange{label}}, false, false},
		{"the title changed", Effect{Window: &WindowDelta{From: WindowGeometry{Width: 9, Title: &was}, To: WindowGeometry{Width: 9, Title: &now}}}, false, true},
		{"the focus moved and the title changed", Effect{Focus: focus, Window: &WindowDelta{From: WindowGeometry{Title: &was}, To: WindowGeometry{Title: &now}}}, false, true},
		{"the window was resized", Effect{Focus: focus, Window: &WindowDelta{From: WindowGeometry{Width: 9}, To: WindowGeometry{Width: 10}}}, false, false},
		{"the title changed and a label changed", Effect{Window: &WindowDelta{From: WindowGeometry{Title: &was}, To: WindowGeometry{Title: &now}}, Changed: []NodeChange{label}}, false, false},
	} {
		if got := tc.eff.menuOnly(); got != tc.menuOnly {
			t.Errorf("%s: menuOnly %v, want %v", tc.name, got, tc.menuOnly)
		}
		if got := tc.eff.forerunner(); got != tc.forerunner {
			t.Errorf("%s: forerunner %v, want %v", tc.name, got, tc.forerunner)
		}
	}
}
