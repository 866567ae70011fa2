package x11

import (
	"slices"
	"testing"

	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/keysym"
	"github.com/mcec/mcec/internal/platform"
)

// usKeymap is a small keymap in the core layout Xvfb uses: 2 columns shown, 4 per keycode.
func usKeymap() *keymap {
	km := &keymap{min: 8, max: 15, per: 4, shift: 9, modifier: map[xproto.Keycode]bool{9: true}}
	rows := [][]xproto.Keysym{
		{},                   // 8: spare
		{0xffe1},             // 9: Shift_L
		{'a', 'A', 'a', 'A'}, // 10
		{'1', '!', '1', '!'}, // 11
		{keysym.Return},      // 12
		{},                   // 13: spare
		{0xe9, 0xc9},         // 14: é É
		{},                   // 15: spare
	}
	for _, r := range rows {
		row := make([]xproto.Keysym, km.per)
		copy(row, r)
		km.syms = append(km.syms, row...)
	}
	km.buildIndex()
	return km
}

func TestPlanType(t *testing.T) {
	km := usKeymap()
	tests := []struct {
		name     string
		text     string
		caps     bool
		spares   int
		segments int
		strokes  []keyPos // of all segments
	}{
		{"plain and shifted", "aA!", false, 3, 1, []keyPos{{10, false}, {10, true}, {11, true}}},
		{"caps lock inverts letters only", "aA1", true, 3, 1, []keyPos{{10, true}, {10, false}, {11, false}}},
		{"crlf is one return", "a\r\nb", false, 3, 1, []keyPos{{10, false}, {12, false}, {15, false}}},
		{"latin-1 in the keymap", "É", false, 3, 1, []keyPos{{14, true}}},
		{"remapped, reused", "жжa", false, 3, 1, []keyPos{{15, false}, {15, false}, {10, false}}},
		{"more characters than spares", "жзий", false, 2, 2, []keyPos{{15, false}, {13, false}, {15, false}, {13, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spares := km.spares(nil)[:tt.spares]
			segs, err := planType(km, []rune(tt.text), tt.caps, spares)
			if err != nil {
				t.Fatal(err)
			}
			if len(segs) != tt.segments {
				t.Errorf("%d segments, want %d", len(segs), tt.segments)
			}
			var strokes []keyPos
			for _, s := range segs {
				strokes = append(strokes, s.strokes...)
			}
			if !slices.Equal(strokes, tt.strokes) {
				t.Errorf("strokes %v, want %v", strokes, tt.strokes)
			}
		})
	}
	if _, err := planType(km, []rune("ж"), false, nil); err == nil {
		t.Error("planType without spare keycodes succeeded")
	}
}

func TestSpares(t *testing.T) {
	km := usKeymap()
	if got := km.spares(nil); !slices.Equal(got, []xproto.Keycode{15, 13, 8}) {
		t.Errorf("spares = %v", got)
	}
	// A full keymap lends keys the text does not need, never modifiers.
	full := usKeymap()
	for _, code := range []xproto.Keycode{8, 13, 15} {
		copy(full.symsOf(code), []xproto.Keysym{0xffbe}) // F1
	}
	if got := full.spares(map[uint32]bool{'a': true, 'A': true}); !slices.Equal(got, []xproto.Keycode{15, 14, 13, 12, 11, 8}) {
		t.Errorf("borrowed = %v", got)
	}
}

func TestKeysymNames(t *testing.T) {
	tests := []struct {
		name string
		sym  uint32
	}{
		{"Return", 0xff0d}, {"return", 0xff0d}, {"Control_L", 0xffe3}, {"a", 'a'}, {"A", 'A'},
		{"F5", 0xffc2}, {"EuroSign", 0x20ac}, {"XF86AudioPlay", 0x1008ff14}, {"é", 0xe9},
		{"ж", 0x1000436}, {"U+1F600", 0x101f600}, {"U20AC", 0x10020ac}, {"0xff0d", 0xff0d},
	}
	for _, tt := range tests {
		got, err := keysym.FromName(tt.name)
		if err != nil || got != tt.sym {
			t.Errorf("keysym.FromName(%q) = %#x, %v; want %#x", tt.name, got, err, tt.sym)
		}
	}
	for _, bad := range []string{"", "NoSuchKey", "aacute_x"} {
		if _, err := keysym.FromName(bad); err == nil {
			t.Errorf("keysym.FromName(%q) succeeded", bad)
		}
	}
	for sym, want := range map[uint32]string{0xffe1: "Shift_L", 0xff7e: "Mode_switch", 0x101f600: "U+1F600", 'q': "q"} {
		if got := keysym.Name(sym); got != want {
			t.Errorf("keysym.Name(%#x) = %q, want %q", sym, got, want)
		}
	}
	if got := keysym.ForText('ж'); !slices.Contains(got, 0x6d6) || got[0] != 0x1000436 {
		t.Errorf("keysym.ForText(ж) = %#x, want the Unicode keysym first and Cyrillic_zhe", got)
	}
	if keysym.ForText('\a') != nil || keysym.ForText(0x85) != nil {
		t.Error("control characters have keysyms")
	}
}

func TestDensify(t *testing.T) {
	got := platform.Densify([]platform.Point{{X: 0, Y: 0}, {X: 20, Y: 0}, {X: 20, Y: 3}}, 8)
	want := []platform.Point{{X: 0, Y: 0}, {X: 7, Y: 0}, {X: 13, Y: 0}, {X: 20, Y: 0}, {X: 20, Y: 3}}
	if !slices.Equal(got, want) {
		t.Errorf("densify = %v, want %v", got, want)
	}
	if got := platform.Densify([]platform.Point{{X: 5, Y: 5}, {X: 5, Y: 5}}, 8); len(got) != 1 {
		t.Errorf("a repeated point adds steps: %v", got)
	}
}

func TestGravityOrigin(t *testing.T) {
	r := platform.Rect{X: 100, Y: 200, Width: 300, Height: 150}
	ext := [4]uint32{1, 3, 20, 4} // left, right, top, bottom
	tests := []struct {
		gravity int
		x, y    int
	}{
		{gravityNorthWest, 99, 180},
		{2, 101, 180}, // North: centred horizontally
		{3, 103, 180}, // NorthEast
		{5, 101, 192}, // Center
		{9, 103, 204}, // SouthEast
		{gravityStatic, 100, 200},
		{0, 99, 180}, // ForgetGravity acts as NorthWest
	}
	for _, tt := range tests {
		if x, y := gravityOrigin(tt.gravity, r, ext); x != tt.x || y != tt.y {
			t.Errorf("gravity %d: %d,%d, want %d,%d", tt.gravity, x, y, tt.x, tt.y)
		}
	}
}

func TestSizeHintsConstrain(t *testing.T) {
	h := sizeHints{minW: 100, minH: 50, maxW: 800, maxH: 600, incW: 10, incH: 20, baseW: 4, baseH: 2}
	for _, tt := range []struct{ w, h, ww, wh int }{
		{50, 10, 104, 62}, // the minimum, rounded up to base + increments
		{1000, 1000, 794, 582},
		{305, 107, 304, 102},
	} {
		if w, ht := h.constrain(tt.w, tt.h); w != tt.ww || ht != tt.wh {
			t.Errorf("constrain(%d, %d) = %d, %d; want %d, %d", tt.w, tt.h, w, ht, tt.ww, tt.wh)
		}
	}
}
