package x11

import (
	"context"
	"slices"
	"unicode"

	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/keysym"
)

// keymap is one snapshot of the core keyboard and modifier mappings.
type keymap struct {
	gen      uint64 // inputState.kmGen when it was read
	min, max xproto.Keycode
	per      int             // keysyms per keycode
	syms     []xproto.Keysym // (max-min+1)*per
	shift    xproto.Keycode  // a key bound to the Shift modifier (0: none)
	modifier map[xproto.Keycode]bool
	index    map[uint32]keyPos // keysym -> where it is reachable with no modifier or Shift
}

// keyPos is how to produce a keysym: the key, and whether Shift must be held.
type keyPos struct {
	code  xproto.Keycode
	shift bool
}

// keymap returns the current mapping, from the cache unless a MappingNotify came since it was
// read. Only calls holding the gesture lock store what they read: a snapshot taken while a
// gesture has keycodes remapped would otherwise outlive the restore.
func (c *Conn) keymap(ctx context.Context, store bool) (*keymap, error) {
	gen := c.in.kmGen.Load()
	if km := c.in.km.Load(); km != nil && km.gen == gen {
		return km, nil
	}
	setup := xproto.Setup(c.xc)
	km := &keymap{gen: gen, min: setup.MinKeycode, max: setup.MaxKeycode}
	err := c.await(ctx, "reading the keyboard mapping", func() error {
		kc := xproto.GetKeyboardMapping(c.xc, km.min, byte(int(km.max)-int(km.min)+1))
		mc := xproto.GetModifierMapping(c.xc)
		kr, err := kc.Reply()
		if err != nil {
			return err
		}
		mr, err := mc.Reply()
		if err != nil {
			return err
		}
		km.per = int(kr.KeysymsPerKeycode)
		km.syms = kr.Keysyms
		km.modifier = map[xproto.Keycode]bool{}
		n := int(mr.KeycodesPerModifier)
		for i, code := range mr.Keycodes {
			if code == 0 {
				continue
			}
			km.modifier[code] = true
			if i < n && km.shift == 0 { // the first row is Shift
				km.shift = code
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	km.buildIndex()
	if store {
		c.in.km.Store(km)
	}
	return km, nil
}

// symsOf returns the keysyms of code (nil outside the keycode range).
func (k *keymap) symsOf(code xproto.Keycode) []xproto.Keysym {
	if code < k.min || code > k.max || k.per == 0 {
		return nil
	}
	i := int(code-k.min) * k.per
	if i+k.per > len(k.syms) {
		return nil
	}
	return k.syms[i : i+k.per]
}

// buildIndex maps every keysym to the first key that gives it without a modifier, else with
// Shift. Only the first two columns are used: the others belong to a second group or to AltGr
// levels, which need modifiers we do not drive; such characters are typed by remapping.
func (k *keymap) buildIndex() {
	k.index = map[uint32]keyPos{}
	for level := range 2 {
		if level == 1 && k.shift == 0 {
			break
		}
		for code := int(k.min); code <= int(k.max); code++ {
			syms := k.symsOf(xproto.Keycode(code))
			if len(syms) <= level || syms[level] == 0 {
				continue
			}
			s := uint32(syms[level])
			if _, ok := k.index[s]; !ok {
				k.index[s] = keyPos{code: xproto.Keycode(code), shift: level == 1}
			}
		}
	}
}

func (k *keymap) lookup(sym uint32) (keyPos, bool) {
	p, ok := k.index[sym]
	return p, ok
}

// cased reports whether code is a letter key whose Shift level is the upper case of its plain
// level, which Caps Lock inverts.
func (k *keymap) cased(code xproto.Keycode) bool {
	syms := k.symsOf(code)
	if len(syms) < 2 || syms[0] == 0 || syms[1] == 0 {
		return false
	}
	lo, up := keysymRune(uint32(syms[0])), keysymRune(uint32(syms[1]))
	return lo != 0 && up != 0 && lo != up && unicode.ToUpper(lo) == up
}

// keysymRune is the character of a Latin-1 or Unicode keysym (0 for others).
func keysymRune(sym uint32) rune {
	switch {
	case (sym >= 0x20 && sym <= 0x7e) || (sym >= 0xa0 && sym <= 0xff):
		return rune(sym)
	case sym&0xff000000 == keysym.Unicode:
		return rune(sym & 0xffffff)
	}
	return 0
}

// spares lists keycodes that can be remapped to type characters missing from the keymap:
// those with no keysym and no modifier, highest first (the low ones are the likeliest to get a
// meaning from a layout). When there are none, keys the text does not need are borrowed,
// also highest first, skipping modifiers: their keysyms are restored like the others.
func (k *keymap) spares(need map[uint32]bool) []xproto.Keycode {
	var empty, borrow []xproto.Keycode
	for code := int(k.max); code >= int(k.min); code-- {
		kc := xproto.Keycode(code)
		if k.modifier[kc] {
			continue
		}
		syms := k.symsOf(kc)
		if !slices.ContainsFunc(syms, func(s xproto.Keysym) bool { return s != 0 }) {
			empty = append(empty, kc)
			continue
		}
		if !slices.ContainsFunc(syms, func(s xproto.Keysym) bool { return need[uint32(s)] }) {
			borrow = append(borrow, kc)
		}
	}
	if len(empty) > 0 {
		return empty
	}
	return borrow
}

// remapOp remaps code to type sym: the same keysym on both levels of both groups, so neither
// Shift, Caps Lock nor the group changes what it types. It carries the keysyms to restore.
func (k *keymap) remapOp(code xproto.Keycode, sym uint32) inputOp {
	syms := make([]xproto.Keysym, k.per)
	for i := 0; i < len(syms) && i < 4; i++ {
		syms[i] = xproto.Keysym(sym)
	}
	orig := append([]xproto.Keysym(nil), k.symsOf(code)...)
	return inputOp{detail: byte(code), remap: syms, orig: orig}
}

// OnKeyboard reports which keysyms a key of the current keymap gives with no modifier or with
// Shift: what a program that sends keysyms to a Wayland compositor (the RemoteDesktop portal)
// can type there, Xwayland's keymap being the compositor's.
func (c *Conn) OnKeyboard(ctx context.Context) (func(sym uint32) bool, error) {
	km, err := c.keymap(ctx, false)
	if err != nil {
		return nil, err
	}
	return func(sym uint32) bool { _, ok := km.index[sym]; return ok }, nil
}
