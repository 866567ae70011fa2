// Package keysym knows X keysyms: their names (Xlib's XStringToKeysym table, generated from the
// X headers), the characters they stand for, and which keysyms type a character. XKB keymaps use
// the same keysyms, so the X11 backend's keymap and the Wayland backend's uploaded keymaps share it.
package keysym

//go:generate go run gen_keysyms.go

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Keysyms that typing text needs by value.
const (
	Return  = 0xff0d
	Tab     = 0xff09
	Unicode = 0x01000000 // keysym of code point cp (non-Latin-1): Unicode + cp
)

type keysymIndex struct {
	byName  map[string]uint32
	byLower map[string][]string // lower-cased name -> names, for a forgiving lookup
	names   map[uint32]string   // keysym -> its first (canonical) name
	legacy  map[rune][]uint32   // character -> legacy keysyms standing for it
}

var keysyms = sync.OnceValue(func() *keysymIndex {
	ix := &keysymIndex{
		byName:  make(map[string]uint32, len(keysymTable)),
		byLower: make(map[string][]string, len(keysymTable)),
		names:   make(map[uint32]string, len(keysymTable)),
		legacy:  map[rune][]uint32{},
	}
	for _, e := range keysymTable {
		ix.byName[e.name] = e.sym
		l := strings.ToLower(e.name)
		ix.byLower[l] = append(ix.byLower[l], e.name)
		if _, ok := ix.names[e.sym]; !ok && !e.alias {
			ix.names[e.sym] = e.name
		}
		if e.r != 0 {
			ix.legacy[e.r] = append(ix.legacy[e.r], e.sym)
		}
	}
	return ix
})

// FromName resolves an X keysym name the way XStringToKeysym does ("Return", "a",
// "XF86AudioPlay", "U20AC", "0xff0d"), and also a single character ("é") and, when it names
// exactly one keysym, a name in the wrong case ("return", "control_l").
func FromName(name string) (uint32, error) {
	ix := keysyms()
	if s, ok := ix.byName[name]; ok {
		return s, nil
	}
	if r, n := utf8.DecodeRuneInString(name); n == len(name) && r != utf8.RuneError && r >= 0x20 {
		return FromRune(r), nil
	}
	if len(name) > 1 && (name[0] == 'U' || name[0] == 'u') {
		hex := strings.TrimPrefix(name[1:], "+")
		if cp, err := strconv.ParseUint(hex, 16, 32); err == nil && cp <= utf8.MaxRune {
			return FromRune(rune(cp)), nil
		}
	}
	if strings.HasPrefix(name, "0x") {
		if v, err := strconv.ParseUint(name[2:], 16, 32); err == nil && v != 0 {
			return uint32(v), nil
		}
	}
	if names := ix.byLower[strings.ToLower(name)]; len(names) == 1 {
		return ix.byName[names[0]], nil
	}
	return 0, fmt.Errorf("unknown key name %q (want an X keysym name such as Return, Control_L, a, F5)", name)
}

// Name names a keysym for people: its X name, U+XXXX for a Unicode keysym, else hex.
func Name(sym uint32) string {
	if n, ok := keysyms().names[sym]; ok {
		return n
	}
	if sym&0xff000000 == Unicode {
		return fmt.Sprintf("U+%04X", sym&0xffffff)
	}
	return fmt.Sprintf("0x%x", sym)
}

// FromRune is the keysym that stands for r in a keymap written today: the code point for
// Latin-1, the Unicode keysym otherwise.
func FromRune(r rune) uint32 {
	if (r >= 0x20 && r <= 0x7e) || (r >= 0xa0 && r <= 0xff) {
		return uint32(r)
	}
	return Unicode + uint32(r)
}

// ForText lists the keysyms that type r, best first: layouts may carry a legacy keysym
// (Cyrillic_zhe) rather than the Unicode one. Newline and tab are the Return and Tab keys.
// Other control characters cannot be typed: nil.
func ForText(r rune) []uint32 {
	switch r {
	case '\n', '\r':
		return []uint32{Return}
	case '\t':
		return []uint32{Tab}
	}
	if r < 0x20 || (r >= 0x7f && r < 0xa0) || r > utf8.MaxRune || r == utf8.RuneError {
		return nil
	}
	syms := []uint32{FromRune(r)}
	return append(syms, keysyms().legacy[r]...)
}
