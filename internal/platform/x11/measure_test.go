//go:build linux

package x11_test

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform/x11"
)

// TestMeasureRemapSettle measures how long GTK needs remapped keycodes to stay mapped after the
// keys were typed: GTK translates a key with the mapping current when it reads the event, so
// restoring too early loses the character. It compares fixed waits with the _NET_WM_PING
// round trip Type uses. Opt-in (MCEC_MEASURE=1): it takes a minute.
//
// Measured (GTK 3.24, Xvfb, 2 vCPU; 40 tries of "é€ж😀", lost characters per run):
//
//	          idle    idle    2 CPU hogs   openbox rebinding keys on each MappingNotify
//	no wait   40/40   37/40   26/40        38/40
//	1 ms       0/40    1/40    2/40        10/40
//	5 ms       0/40    0/40    1/40         0/40
//	30 ms      0/40    0/40    0/40         0/40
//	ping       0/40    0/40    0/40         0/40   (4.7 ms idle, 8.4 ms loaded per Ctrl+A and Type)
func TestMeasureRemapSettle(t *testing.T) {
	if os.Getenv("MCEC_MEASURE") == "" {
		t.Skip("set MCEC_MEASURE=1")
	}
	c := dial(t)
	g := startRaisedGTKApp(t, c)
	in := c.Input()
	const text, tries = "é€ж😀", 40
	d := func(v time.Duration) *time.Duration { return &v }
	defer x11.SetRemapSettle(c, nil)
	for _, mode := range []struct {
		name   string
		settle *time.Duration // nil: ping
	}{{"none", d(0)}, {"1ms", d(time.Millisecond)}, {"5ms", d(5 * time.Millisecond)}, {"30ms", d(30 * time.Millisecond)}, {"ping", nil}} {
		x11.SetRemapSettle(c, mode.settle)
		lost := 0
		var total time.Duration
		for range tries {
			for _, s := range []string{"x", text} {
				start := time.Now()
				if err := in.Chord(ctxT(t), "Control_L", "a"); err != nil {
					t.Fatal(err)
				}
				if err := in.Type(ctxT(t), s); err != nil {
					t.Fatal(err)
				}
				if s == text {
					total += time.Since(start)
				}
				if !entryBecomes(g, s, 500*time.Millisecond) && s == text {
					lost++
				}
			}
		}
		t.Logf("settle %-5s: %2d/%d lost, Ctrl+A and Type %v", mode.name, lost, tries, total/tries)
	}
}

// entryBecomes reports whether the app's entry shows want within limit.
func entryBecomes(g *gtkApp, want string, limit time.Duration) bool {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		select {
		case m := <-g.lines:
			var s string
			if v, ok := m["entry"]; ok && json.Unmarshal(v, &s) == nil && s == want {
				return true
			}
		case <-timer.C:
			return false
		}
	}
}
