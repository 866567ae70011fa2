package wayland

import (
	"slices"

	"github.com/mcec/mcec/internal/keysym"
	"github.com/mcec/mcec/internal/wayland/wlclient"
)

// layout is the keyboard mcec types with on Wayland, uploaded as its virtual keyboard's keymap:
//   - a US keyboard's keys at their own evdev codes, each with its unshifted and shifted
//     character, so an application that reads the key's code sees the key it expects (Chromium
//     dropped every space when the space keysym sat on KEY_ESC's code);
//   - other characters on spare keys (KEY_F13 up), one each, added as text needs them. A keysym
//     keeps its key while the connection lives unless the spare keys run out: toolkits cache
//     what a key means (GTK 3 matched Control+a to a key that had typed another letter a keymap
//     before, and did not select all).
type layout struct {
	keys   []wlclient.Key
	where  map[uint32]place
	extras []uint32 // keysyms on spare keys, in key order
}

// place is where a keysym is: its key, and whether it takes Shift.
type place struct {
	code    uint32
	shifted bool
}

// The evdev codes of the spare keys (KEY_F13 to the last code a keymap holds).
const (
	firstSpare = 183
	spareKeys  = wlclient.MaxCode - firstSpare + 1
)

// usKeys are a US keyboard's keys: evdev code, then the unshifted and shifted keysym names.
var usKeys = []struct {
	code           uint32
	plain, shifted string
}{
	{1, "Escape", ""}, {2, "1", "exclam"}, {3, "2", "at"}, {4, "3", "numbersign"}, {5, "4", "dollar"}, {6, "5", "percent"},
	{7, "6", "asciicircum"}, {8, "7", "ampersand"}, {9, "8", "asterisk"}, {10, "9", "parenleft"}, {11, "0", "parenright"},
	{12, "minus", "underscore"}, {13, "equal", "plus"}, {14, "BackSpace", ""}, {15, "Tab", ""},
	{16, "q", "Q"}, {17, "w", "W"}, {18, "e", "E"}, {19, "r", "R"}, {20, "t", "T"}, {21, "y", "Y"}, {22, "u", "U"},
	{23, "i", "I"}, {24, "o", "O"}, {25, "p", "P"}, {26, "bracketleft", "braceleft"}, {27, "bracketright", "braceright"},
	{28, "Return", ""}, {29, "Control_L", ""}, {30, "a", "A"}, {31, "s", "S"}, {32, "d", "D"}, {33, "f", "F"},
	{34, "g", "G"}, {35, "h", "H"}, {36, "j", "J"}, {37, "k", "K"}, {38, "l", "L"}, {39, "semicolon", "colon"},
	{40, "apostrophe", "quotedbl"}, {41, "grave", "asciitilde"}, {42, "Shift_L", ""}, {43, "backslash", "bar"},
	{44, "z", "Z"}, {45, "x", "X"}, {46, "c", "C"}, {47, "v", "V"}, {48, "b", "B"}, {49, "n", "N"}, {50, "m", "M"},
	{51, "comma", "less"}, {52, "period", "greater"}, {53, "slash", "question"}, {54, "Shift_R", ""}, {56, "Alt_L", ""},
	{57, "space", ""}, {58, "Caps_Lock", ""}, {59, "F1", ""}, {60, "F2", ""}, {61, "F3", ""}, {62, "F4", ""}, {63, "F5", ""},
	{64, "F6", ""}, {65, "F7", ""}, {66, "F8", ""}, {67, "F9", ""}, {68, "F10", ""}, {87, "F11", ""}, {88, "F12", ""},
	{97, "Control_R", ""}, {100, "ISO_Level3_Shift", ""}, {102, "Home", ""}, {103, "Up", ""}, {104, "Page_Up", ""},
	{105, "Left", ""}, {106, "Right", ""}, {107, "End", ""}, {108, "Down", ""}, {109, "Page_Down", ""},
	{110, "Insert", ""}, {111, "Delete", ""}, {125, "Super_L", ""}, {126, "Super_R", ""}, {127, "Menu", ""},
}

// mustKeysym resolves a name of the table above.
func mustKeysym(name string) uint32 {
	s, err := keysym.FromName(name)
	if err != nil {
		panic(err) // a programmer's error in usKeys
	}
	return s
}

// newLayout is the US keyboard alone.
func newLayout() *layout {
	l := &layout{where: map[uint32]place{}}
	for _, k := range usKeys {
		key := wlclient.Key{Code: k.code, Syms: []uint32{mustKeysym(k.plain)}}
		l.where[key.Syms[0]] = place{code: k.code}
		if k.shifted != "" {
			s := mustKeysym(k.shifted)
			key.Syms = append(key.Syms, s)
			l.where[s] = place{code: k.code, shifted: true}
		}
		l.keys = append(l.keys, key)
	}
	return l
}

// base is the number of keys of the US keyboard.
var base = len(usKeys)

// place finds a keysym's key.
func (l *layout) place(sym uint32) (place, bool) {
	p, ok := l.where[sym]
	return p, ok
}

// add puts the keysyms missing from the layout on spare keys and reports whether the layout
// changed. When the spare keys run out, they start again with keep (keysyms held down now,
// which must keep their keys) and syms; more than fit is the caller's error (Type splits its
// text).
func (l *layout) add(syms, keep []uint32) bool {
	var missing []uint32
	for _, s := range syms {
		if _, ok := l.where[s]; !ok && !slices.Contains(missing, s) {
			missing = append(missing, s)
		}
	}
	if len(missing) == 0 {
		return false
	}
	if len(l.extras)+len(missing) > spareKeys {
		old := l.extras
		l.keys, l.extras = l.keys[:base], nil
		for _, s := range old {
			delete(l.where, s)
		}
		for _, s := range keep {
			if slices.Contains(old, s) {
				l.put(s)
			}
		}
		for _, s := range missing {
			if _, ok := l.where[s]; !ok {
				l.put(s)
			}
		}
		return true
	}
	for _, s := range missing {
		l.put(s)
	}
	return true
}

// put places s on the next spare key.
func (l *layout) put(s uint32) {
	code := uint32(firstSpare + len(l.extras))
	l.extras = append(l.extras, s)
	l.keys = append(l.keys, wlclient.Key{Code: code, Syms: []uint32{s}})
	l.where[s] = place{code: code}
}
