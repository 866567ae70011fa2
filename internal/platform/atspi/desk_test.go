package atspi_test

import (
	"context"
	"log/slog"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/atspi"
	"github.com/mcec/mcec/internal/testdesk"
)

func TestMain(m *testing.M) { os.Exit(testdesk.Main(m)) }

// all is large enough for any test app's whole tree.
var all = platform.TreeLimits{MaxDepth: 100, MaxNodes: 100000}

func connect(t testing.TB, callTimeout time.Duration) *atspi.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	opts := atspi.Options{CallTimeout: callTimeout}
	if os.Getenv("MCEC_ATSPI_DEBUG") != "" {
		opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	c, err := atspi.Connect(ctx, "", opts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// app is a test application with an accessible window.
type app struct {
	pid    int
	bounds platform.Rect // the X window in root coordinates, as the x11 backend reports it
}

// window is the app's window as the x11 backend would describe it to Tree.
func (a app) window() platform.Window { return platform.Window{ProcessID: a.pid, Bounds: a.bounds} }

func startApp(t testing.TB, argv ...string) app {
	t.Helper()
	p := testdesk.Start(t, argv...)
	w := testdesk.WaitWindow(t, p.PID, 20*time.Second)
	testdesk.WaitAccessible(t, p.PID, 20*time.Second)
	return app{pid: p.PID, bounds: settledBounds(t, w)}
}

// settledBounds waits until the window has kept its geometry for half a second and returns it:
// gtk3-widget-factory is resized after it maps, and on a loaded machine after its tree is up, so
// bounds read at once disagreed with the frame the walk read later.
func settledBounds(t testing.TB, w uint32) platform.Rect {
	t.Helper()
	var (
		b     platform.Rect
		since time.Time
	)
	testdesk.WaitFor(t, 15*time.Second, "the window's geometry to settle", func() bool {
		if cur := windowBounds(t, w); cur != b || since.IsZero() {
			b, since = cur, time.Now()
			return false
		}
		return time.Since(since) >= 500*time.Millisecond
	})
	return b
}

// xconn opens an X connection to the test desktop, closed when the test ends, and returns it
// with the root window.
func xconn(t testing.TB) (*xgb.Conn, xproto.Window) {
	t.Helper()
	x, err := xgb.NewConnDisplay(testdesk.Desktop().Display())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(x.Close)
	return x, xproto.Setup(x).DefaultScreen(x).Root
}

// waitWindowClass waits for a managed window whose WM_CLASS class is class, for clients that
// do not set _NET_WM_PID.
func waitWindowClass(t testing.TB, class string, timeout time.Duration) uint32 {
	t.Helper()
	x, root := xconn(t)
	r, err := xproto.InternAtom(x, false, uint16(len("_NET_CLIENT_LIST")), "_NET_CLIENT_LIST").Reply()
	if err != nil {
		t.Fatal(err)
	}
	var found uint32
	testdesk.WaitFor(t, timeout, "a window of class "+class, func() bool {
		list, err := xproto.GetProperty(x, false, root, r.Atom, xproto.AtomWindow, 0, 4096).Reply()
		if err != nil {
			return false
		}
		for i := 0; i+4 <= len(list.Value); i += 4 {
			w := xgb.Get32(list.Value[i:])
			p, err := xproto.GetProperty(x, false, xproto.Window(w), xproto.AtomWmClass, xproto.AtomString, 0, 256).Reply()
			if err != nil {
				continue
			}
			parts := strings.Split(string(p.Value), "\x00")
			if len(parts) > 1 && parts[1] == class {
				found = w
				return true
			}
		}
		return false
	})
	return found
}

func windowBounds(t testing.TB, w uint32) platform.Rect {
	t.Helper()
	x, root := xconn(t)
	g, err := xproto.GetGeometry(x, xproto.Drawable(w)).Reply()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := xproto.TranslateCoordinates(x, xproto.Window(w), root, 0, 0).Reply()
	if err != nil {
		t.Fatal(err)
	}
	return platform.Rect{X: int(tr.DstX), Y: int(tr.DstY), Width: int(g.Width), Height: int(g.Height)}
}

// treeWith polls until the app's tree holds a node named name and two walks in a row find the
// same nodes: a freshly started app may not have published its cache or all its widgets yet,
// and GTK creates some accessibles only when a walk first asks for them.
func treeWith(t testing.TB, c *atspi.Client, a app, name string) platform.Tree {
	t.Helper()
	var (
		tree platform.Tree
		prev []string
	)
	testdesk.WaitFor(t, 15*time.Second, "a stable tree with "+name, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var err error
		tree, err = c.Tree(ctx, a.window(), all)
		if err != nil || find(tree.Root, func(n *platform.Node) bool { return n.Name == name }) == nil {
			return false
		}
		refs := bfs(tree.Root)
		stable := slices.Equal(refs, prev)
		prev = refs
		return stable
	})
	return tree
}

// a11yConn is a raw connection to the accessibility bus, to check the client against the
// applications' own answers.
func a11yConn(t testing.TB) *dbus.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := dbus.Connect(os.Getenv("DBUS_SESSION_BUS_ADDRESS"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var addr string
	if err := s.Object("org.a11y.Bus", "/org/a11y/bus").CallWithContext(ctx, "org.a11y.Bus.GetAddress", 0).Store(&addr); err != nil {
		t.Fatal(err)
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// call makes a raw call on the object behind ref.
func call(t testing.TB, conn *dbus.Conn, ref, method string, args ...any) *dbus.Call {
	t.Helper()
	bus, path, err := atspi.ParseRef(ref)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return conn.Object(bus, path).CallWithContext(ctx, method, 0, args...)
}

func find(n *platform.Node, match func(*platform.Node) bool) *platform.Node {
	var found *platform.Node
	walk(n, 0, func(n *platform.Node, _ int) {
		if found == nil && match(n) {
			found = n
		}
	})
	return found
}

func findAll(n *platform.Node, match func(*platform.Node) bool) []*platform.Node {
	var out []*platform.Node
	walk(n, 0, func(n *platform.Node, _ int) {
		if match(n) {
			out = append(out, n)
		}
	})
	return out
}

// meaningfulWalk visits every node with its meaningful depth, the one TreeLimits.MaxDepth counts:
// unnamed layout containers add no depth to their children.
func meaningfulWalk(n *platform.Node, depth int, visit func(*platform.Node, int)) {
	if n == nil {
		return
	}
	visit(n, depth)
	cost := 1
	switch n.Role {
	case "panel", "filler", "section", "form", "grouping", "viewport", "scroll pane", "layered pane",
		"root pane", "glass pane", "split pane", "redundant object", "unknown", "html container":
		if n.Name == "" {
			cost = 0
		}
	}
	for _, k := range n.Children {
		meaningfulWalk(k, depth+cost, visit)
	}
}

func walk(n *platform.Node, depth int, visit func(*platform.Node, int)) {
	if n == nil {
		return
	}
	visit(n, depth)
	for _, k := range n.Children {
		walk(k, depth+1, visit)
	}
}
