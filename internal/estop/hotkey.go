package estop

import (
	"fmt"
	"strings"

	"github.com/mcec/mcec/internal/xinput2"
)

// DefaultHotkey is the emergency stop chord unless config.toml says otherwise.
const DefaultHotkey = "ctrl+alt+shift+s"

// X keysyms of the modifiers and of the named keys a hotkey may use.
var (
	modifierSyms = map[string][]uint32{
		"ctrl":  {0xffe3, 0xffe4},                 // Control_L, Control_R
		"alt":   {0xffe9, 0xffea, 0xffe7, 0xffe8}, // Alt_L, Alt_R, Meta_L, Meta_R
		"shift": {0xffe1, 0xffe2},                 // Shift_L, Shift_R
		"super": {0xffeb, 0xffec},                 // Super_L, Super_R
	}
	modifierAliases = map[string]string{"control": "ctrl", "meta": "alt", "win": "super", "mod4": "super"}
	namedKeys       = map[string]uint32{
		"escape": 0xff1b, "pause": 0xff13, "scroll_lock": 0xff14, "space": 0x20, "return": 0xff0d,
		"enter": 0xff0d, "delete": 0xffff, "backspace": 0xff08, "tab": 0xff09, "insert": 0xff63,
		"home": 0xff50, "end": 0xff57, "print": 0xff61,
	}
)

// Hotkey is a parsed chord: modifiers (each satisfied by either side's key) and one key.
type Hotkey struct {
	spec   string
	groups [][]uint32 // one keysym set per modifier
	key    []uint32   // keysyms of the main key (both cases of a letter)
}

// String is the chord as configured, normalized.
func (h Hotkey) String() string { return h.spec }

// ParseHotkey reads "ctrl+alt+shift+s": modifiers ctrl, alt, shift, super (aliases control,
// meta, win, mod4) and one key — a letter, a digit, f1…f24, or escape, pause, scroll_lock,
// space, return, delete, backspace, tab, insert, home, end, print. At least one modifier is
// required, so ordinary typing cannot stop the server.
func ParseHotkey(s string) (Hotkey, error) {
	parts := strings.Split(strings.ToLower(strings.TrimSpace(s)), "+")
	if len(parts) < 2 {
		return Hotkey{}, fmt.Errorf("hotkey %q: want modifiers and a key, like %q", s, DefaultHotkey)
	}
	var h Hotkey
	seen := map[string]bool{}
	var names []string
	for _, p := range parts[:len(parts)-1] {
		p = strings.TrimSpace(p)
		if a, ok := modifierAliases[p]; ok {
			p = a
		}
		syms, ok := modifierSyms[p]
		if !ok {
			return Hotkey{}, fmt.Errorf("hotkey %q: %q is not a modifier (ctrl, alt, shift, super)", s, p)
		}
		if seen[p] {
			return Hotkey{}, fmt.Errorf("hotkey %q: %s twice", s, p)
		}
		seen[p] = true
		names = append(names, p)
		h.groups = append(h.groups, syms)
	}
	key := strings.TrimSpace(parts[len(parts)-1])
	switch {
	case len(key) == 1 && key[0] >= 'a' && key[0] <= 'z':
		h.key = []uint32{uint32(key[0]), uint32(key[0] - 'a' + 'A')}
	case len(key) == 1 && key[0] >= '0' && key[0] <= '9':
		h.key = []uint32{uint32(key[0])}
	case len(key) >= 2 && key[0] == 'f':
		var n int
		if _, err := fmt.Sscanf(key[1:], "%d", &n); err != nil || n < 1 || n > 24 || fmt.Sprint(n) != key[1:] {
			return Hotkey{}, fmt.Errorf("hotkey %q: unknown key %q", s, key)
		}
		h.key = []uint32{0xffbe + uint32(n-1)} // F1 = 0xffbe
	default:
		sym, ok := namedKeys[key]
		if !ok {
			return Hotkey{}, fmt.Errorf("hotkey %q: unknown key %q", s, key)
		}
		h.key = []uint32{sym}
	}
	h.spec = strings.Join(append(names, key), "+")
	return h, nil
}

// pressKey is one key down on one device.
type pressKey struct {
	source  uint16
	keycode uint32
}

// tracker recognizes the chord from raw key presses and releases of physical devices. Raw
// events carry no modifier state, so it keeps its own: which keycodes are down, per source
// device (a release on one keyboard does not lift the same key held on another).
type tracker struct {
	hk       Hotkey
	modCodes map[uint32]uint32 // keycode → bit set of the modifier groups it satisfies
	keyCodes map[uint32]bool
	down     map[pressKey]bool
}

func newTracker(hk Hotkey) *tracker {
	return &tracker{hk: hk, down: map[pressKey]bool{}}
}

// setKeymap resolves the chord's keysyms to keycodes. It fails when a key of the chord is on no
// keycode (the chord could never be pressed).
func (t *tracker) setKeymap(km xinput2.Keymap) error {
	mods := map[uint32]uint32{}
	for g, syms := range t.hk.groups {
		codes := km.Codes(syms...)
		if len(codes) == 0 {
			return fmt.Errorf("hotkey %s: modifier %d is on no key of the keyboard map", t.hk, g+1)
		}
		for _, c := range codes {
			mods[c] |= 1 << g
		}
	}
	keys := map[uint32]bool{}
	for _, c := range km.Codes(t.hk.key...) {
		keys[c] = true
	}
	if len(keys) == 0 {
		return fmt.Errorf("hotkey %s: its key is on no key of the keyboard map", t.hk)
	}
	t.modCodes, t.keyCodes = mods, keys
	return nil
}

// event records a physical key press or release and reports whether it completed the chord:
// a press of the key (not a repeat) while every modifier is held.
func (t *tracker) event(source uint16, keycode uint32, press bool) bool {
	k := pressKey{source, keycode}
	if !press {
		delete(t.down, k)
		return false
	}
	repeat := t.down[k]
	t.down[k] = true
	if repeat || !t.keyCodes[keycode] {
		return false
	}
	var held uint32
	for d := range t.down {
		held |= t.modCodes[d.keycode]
	}
	all := uint32(1)<<len(t.hk.groups) - 1
	return held&all == all
}

// forget drops the keys of devices that are no longer there.
func (t *tracker) forget(alive func(uint16) bool) {
	for k := range t.down {
		if !alive(k.source) {
			delete(t.down, k)
		}
	}
}
