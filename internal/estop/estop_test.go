package estop

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/xinput2"
)

func TestParseHotkey(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ctrl+alt+shift+s", "ctrl+alt+shift+s"},
		{" Control+Meta+F12 ", "ctrl+alt+f12"},
		{"win+escape", "super+escape"},
		{"ctrl+7", "ctrl+7"},
	} {
		h, err := ParseHotkey(c.in)
		if err != nil || h.String() != c.want {
			t.Errorf("%q: %v %v, want %s", c.in, h, err, c.want)
		}
	}
	for _, bad := range []string{"", "s", "ctrl+", "ctrl+ctrl+s", "hyper+s", "ctrl+f0", "ctrl+f25", "ctrl+f1x", "ctrl+nosuchkey"} {
		if _, err := ParseHotkey(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// keymap: 37 Control_L, 105 Control_R, 64 Alt_L/Meta_L, 50 Shift_L, 39 s/S, 38 a/A.
func testKeymap() xinput2.Keymap {
	km := xinput2.Keymap{Min: 8, PerCode: 2, Syms: make([]uint32, 2*248)}
	set := func(code int, syms ...uint32) { copy(km.Syms[(code-8)*2:], syms) }
	set(37, 0xffe3)
	set(105, 0xffe4)
	set(64, 0xffe9, 0xffe7)
	set(50, 0xffe1)
	set(39, 's', 'S')
	set(38, 'a', 'A')
	return km
}

func TestTracker(t *testing.T) {
	hk, _ := ParseHotkey(DefaultHotkey)
	type ev struct {
		src   uint16
		code  uint32
		press bool
	}
	p := func(src uint16, code uint32) ev { return ev{src, code, true} }
	r := func(src uint16, code uint32) ev { return ev{src, code, false} }
	for _, c := range []struct {
		name string
		evs  []ev
		want int
	}{
		{"the chord", []ev{p(6, 37), p(6, 64), p(6, 50), p(6, 39)}, 1},
		{"right control", []ev{p(6, 105), p(6, 64), p(6, 50), p(6, 39)}, 1},
		{"a modifier missing", []ev{p(6, 37), p(6, 50), p(6, 39)}, 0},
		{"released before the key", []ev{p(6, 37), p(6, 64), p(6, 50), r(6, 64), p(6, 39)}, 0},
		{"another key", []ev{p(6, 37), p(6, 64), p(6, 50), p(6, 38)}, 0},
		{"key first", []ev{p(6, 39), p(6, 37), p(6, 64), p(6, 50)}, 0},
		{"a repeat counts once", []ev{p(6, 37), p(6, 64), p(6, 50), p(6, 39), p(6, 39)}, 1},
		{"twice", []ev{p(6, 37), p(6, 64), p(6, 50), p(6, 39), r(6, 39), p(6, 39)}, 2},
		{"two keyboards", []ev{p(6, 37), p(7, 64), p(7, 50), p(6, 39)}, 1},
		{"a release on the other keyboard keeps it held", []ev{p(6, 37), p(7, 37), r(7, 37), p(6, 64), p(6, 50), p(6, 39)}, 1},
	} {
		tr := newTracker(hk)
		if err := tr.setKeymap(testKeymap()); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range c.evs {
			if tr.event(e.src, e.code, e.press) {
				n++
			}
		}
		if n != c.want {
			t.Errorf("%s: %d chords, want %d", c.name, n, c.want)
		}
	}
	tr := newTracker(hk)
	tr.event(6, 37, true)
	tr.forget(func(id uint16) bool { return id != 6 })
	if len(tr.down) != 0 {
		t.Error("forget kept a removed device's keys")
	}
	hk2, _ := ParseHotkey("super+s")
	if err := newTracker(hk2).setKeymap(testKeymap()); err == nil {
		t.Error("a chord whose modifier is on no key was accepted")
	}
}

func TestLatch(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var trips atomic.Int32
	l := New(Options{Now: func() time.Time { return now }, OnTrip: func(string) { trips.Add(1) }})
	l.SetHotkey(DefaultHotkey, "")
	if s := l.Status(); s.State != Armed || l.Check("windows") != nil {
		t.Fatalf("new latch: %+v", s)
	}
	gctx, gcancel := l.Gesture(context.Background())
	defer gcancel()

	<-l.Trip(ByControlSocket)
	<-l.Trip(ByHotkey) // a second trip changes nothing
	if trips.Load() != 1 {
		t.Errorf("OnTrip ran %d times", trips.Load())
	}
	if s := l.Status(); s.State != Stopped || s.How != ByControlSocket || !s.Since.Equal(now) {
		t.Errorf("stopped: %+v", s)
	}
	var ce *contract.Error
	if err := l.Check("windows"); !errors.As(err, &ce) || ce.Code != contract.CodeEmergencyStopped {
		t.Errorf("check while stopped: %v", err)
	}
	if l.Check("session-status") != nil {
		t.Error("session-status refused while stopped")
	}
	if !errors.Is(context.Cause(gctx), ErrStopped) {
		t.Errorf("gesture context: %v", context.Cause(gctx))
	}
	if g2, c2 := l.Gesture(context.Background()); !errors.Is(context.Cause(g2), ErrStopped) {
		t.Error("a gesture started while stopped is not cancelled")
	} else {
		c2()
	}

	// Hotkey re-arm: ignored right after the stop, then a press and its confirmation.
	now = now.Add(time.Second)
	l.Chord()
	l.Chord()
	if !l.Stopped() {
		t.Fatal("re-armed by presses within MinRearmDelay")
	}
	now = now.Add(MinRearmDelay)
	l.Chord()
	now = now.Add(ConfirmWindow + time.Second)
	l.Chord() // too late: this opens a new window
	if !l.Stopped() {
		t.Fatal("re-armed by an unconfirmed press")
	}
	now = now.Add(time.Second)
	l.Chord()
	if s := l.Status(); s.State != Armed || s.How != ByHotkey {
		t.Fatalf("after the confirmation: %+v", s)
	}
	g3, c3 := l.Gesture(context.Background())
	defer c3()
	if g3.Err() != nil {
		t.Error("a gesture after re-arming is cancelled")
	}
	if l.Rearm(ByControlSocket) {
		t.Error("Rearm of an armed latch reported a change")
	}
	l.Chord()
	if !l.Stopped() {
		t.Error("the hotkey did not stop an armed latch")
	}
	l.SetHotkey(DefaultHotkey, "no XInput2")
	l.Rearm(ByControlSocket)
	if s := l.Status(); s.State != Unavailable || s.Detail != "no XInput2" {
		t.Errorf("unavailable: %+v", s)
	}
}
