package wayland

import (
	"testing"

	"github.com/mcec/mcec/internal/keysym"
)

func TestLayout(t *testing.T) {
	l := newLayout()
	for _, tt := range []struct {
		name    string
		code    uint32
		shifted bool
	}{
		{"space", 57, false}, {"a", 30, false}, {"A", 30, true}, {"Return", 28, false}, {"exclam", 2, true}, {"Control_L", 29, false},
	} {
		p, ok := l.place(mustKeysym(tt.name))
		if !ok || p.code != tt.code || p.shifted != tt.shifted {
			t.Errorf("%s: %+v, %v; want key %d shifted %v", tt.name, p, ok, tt.code, tt.shifted)
		}
	}
	// Every printable ASCII character is on the US keyboard.
	for r := rune(0x20); r < 0x7f; r++ {
		if _, ok := l.place(keysym.FromRune(r)); !ok {
			t.Errorf("%q is not on the US keyboard", r)
		}
	}
	euro, eszett := keysym.FromRune('€'), keysym.FromRune('ß')
	if !l.add([]uint32{euro, eszett, euro}, nil) || len(l.extras) != 2 {
		t.Fatalf("extras %v after adding € and ß", l.extras)
	}
	if p, _ := l.place(euro); p.code != firstSpare {
		t.Errorf("€ on key %d, want the first spare %d", p.code, firstSpare)
	}
	if l.add([]uint32{eszett, mustKeysym("a")}, nil) {
		t.Error("adding keysyms already there changed the layout")
	}
	// The spare keys run out: they start again, the held ones kept where they were.
	var many []uint32
	for r := rune(0x400); len(many) < spareKeys-1; r++ { // with the held ß, as many as fit
		many = append(many, keysym.FromRune(r))
	}
	if !l.add(many, []uint32{eszett}) {
		t.Fatal("no change")
	}
	if p, ok := l.place(eszett); !ok || p.code != firstSpare {
		t.Errorf("held ß moved to %+v, %v", p, ok)
	}
	if _, ok := l.place(euro); ok {
		t.Error("€, not held, survived the restart")
	}
	if n := len(l.keys); n != base+len(l.extras) || len(l.extras) != spareKeys {
		t.Errorf("%d keys, %d extras", n, len(l.extras))
	}
}
