package testdesk

import (
	"context"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/xinput2"
)

// The server reports Physical input as the Xvfb devices' and XTEST input as another device's.
func TestHardwareSources(t *testing.T) {
	h := NewHardware(t)
	win := SolidWindow(t, "testdesk hardware", 0x336699, 200, 120)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	xi, err := xinput2.Dial(ctx, Desktop().Display())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = xi.Close() })
	if err := xi.SelectWindowPresses(win); err != nil {
		t.Fatal(err)
	}
	if err := xi.SelectRawInput(); err != nil {
		t.Fatal(err)
	}
	events := make(chan xinput2.Event, 64)
	go func() {
		defer close(events)
		for {
			ev, err := xi.NextEvent()
			if err != nil {
				return
			}
			events <- ev
		}
	}()
	// next is the source of the next event of kind.
	next := func(kind xinput2.EventKind) uint16 {
		t.Helper()
		timeout := time.After(20 * time.Second)
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					t.Fatal("the XInput2 connection closed")
				}
				if ev.Kind == kind {
					return ev.Source
				}
			case <-timeout:
				t.Fatalf("no event of kind %d", kind)
			}
		}
	}
	pos, err := xproto.TranslateCoordinates(h.Conn(), xproto.Window(win), h.root, 100, 60).Reply()
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []Source{Physical, XTEST} {
		h.Click(src, int(pos.DstX), int(pos.DstY))
		if got := next(xinput2.ButtonPress); (got == uint16(h.pointer)) != (src == Physical) {
			t.Errorf("%v click: source device %d, Xvfb pointer %d", src, got, h.pointer)
		}
		h.Chord(src, 0xffe1, 'a') // shift+a
		for range 2 {
			if got := next(xinput2.RawKeyPress); (got == uint16(h.keyboard)) != (src == Physical) {
				t.Errorf("%v key: source device %d, Xvfb keyboard %d", src, got, h.keyboard)
			}
		}
		if m := h.Buttons(); m != 0 {
			t.Errorf("%v click left button mask %#x", src, m)
		}
	}
}

func TestLogBuffer(t *testing.T) {
	var l LogBuffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			_, _ = l.Write([]byte("x\n"))
		}
	}()
	_ = l.Count("x") // concurrently with the writer: the race detector checks the lock
	<-done
	if n := l.Count("x\n"); n != 100 || len(l.String()) != 200 {
		t.Fatalf("Count = %d, String of %d bytes", n, len(l.String()))
	}
}
