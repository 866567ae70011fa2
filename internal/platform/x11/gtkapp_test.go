//go:build linux

package x11_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/x11"
	"github.com/mcec/mcec/internal/testdesk"
)

// gtkApp is testdata/gtkapp.py running in the test desktop: a GTK 3 entry, toggle button and
// text view that report their contents on stdout and take commands on stdin.
type gtkApp struct {
	stdin  io.Writer
	lines  chan map[string]json.RawMessage
	xid    uint32
	toggle platform.Point
}

func startGTKApp(t testing.TB) *gtkApp {
	t.Helper()
	newXApp(t) // the window manager is ready and lets clicks through
	// Debian's interpreter: python3-gi and gir1.2-gtk-3.0 are installed for it, not for
	// whatever python3 comes first in PATH.
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import gi").Run(); err != nil {
		t.Skipf("%s cannot import gi (apt-get install python3-gi gir1.2-gtk-3.0): %v", python, err)
	}
	p := testdesk.StartPiped(t, python, "testdata/gtkapp.py")
	g := &gtkApp{stdin: p.Stdin, lines: make(chan map[string]json.RawMessage, 4096)}
	go func() { // ends when the app's cleanup kills it and its stdout closes
		defer close(g.lines)
		sc := bufio.NewScanner(p.Stdout)
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				g.lines <- m
			}
		}
	}()
	ready := g.next(t, "ready", nil)
	if err := json.Unmarshal(ready["ready"], &g.xid); err != nil {
		t.Fatal(err)
	}
	var at [2]int
	if err := json.Unmarshal(ready["toggle"], &at); err != nil {
		t.Fatal(err)
	}
	g.toggle = platform.Point{X: at[0], Y: at[1]}
	return g
}

// startRaisedGTKApp is startGTKApp with the app's window managed and raised, ready for input.
func startRaisedGTKApp(t testing.TB, c *x11.Conn) *gtkApp {
	t.Helper()
	g := startGTKApp(t)
	waitManaged(t, c, g.xid)
	if err := c.Raise(ctxT(t), g.xid); err != nil {
		t.Fatal(err)
	}
	return g
}

// next reads lines until one has key (and, when match is set, a value match accepts).
func (g *gtkApp) next(t testing.TB, key string, match func(json.RawMessage) bool) map[string]json.RawMessage {
	t.Helper()
	d := waitLimit()
	limit := time.NewTimer(d)
	defer limit.Stop()
	var last json.RawMessage
	for {
		select {
		case m, ok := <-g.lines:
			if !ok {
				t.Fatalf("gtkapp exited while waiting for %q (last %s)", key, last)
			}
			if v, ok := m[key]; ok {
				last = v
				if match == nil || match(v) {
					return m
				}
			}
		case <-limit.C:
			t.Fatalf("after %v: gtkapp reported no %q as wanted; last %s", d, key, last)
		}
	}
}

// waitText waits until the app reports key ("entry", "view", "clip") equal to want.
func (g *gtkApp) waitText(t testing.TB, key, want string) {
	t.Helper()
	g.next(t, key, func(v json.RawMessage) bool {
		var s string
		return json.Unmarshal(v, &s) == nil && s == want
	})
}

func (g *gtkApp) command(t testing.TB, cmd string) {
	t.Helper()
	if _, err := fmt.Fprintln(g.stdin, cmd); err != nil {
		t.Fatal(err)
	}
}

// clipboard asks the app to read the clipboard and returns what GTK got (nil: no text).
func (g *gtkApp) clipboard(t testing.TB) *string {
	t.Helper()
	g.command(t, "clip-get")
	m := g.next(t, "clip", nil)
	var s *string
	if err := json.Unmarshal(m["clip"], &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func (g *gtkApp) setClipboard(t testing.TB, text string) {
	t.Helper()
	b, _ := json.Marshal(text)
	g.command(t, "clip-set "+string(b))
	g.next(t, "clipset", nil)
}
