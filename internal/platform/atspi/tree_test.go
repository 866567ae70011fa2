package atspi_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/atspi"
	"github.com/mcec/mcec/internal/sysload"
	"github.com/mcec/mcec/internal/testdesk"
)

// TestWidgetFactory checks trees of gtk3-widget-factory's first page against what the
// application itself reports. Subtests share one application; the one that changes its state
// runs last.
func TestWidgetFactory(t *testing.T) {
	c := connect(t, 2*time.Second)
	a := startApp(t, "gtk3-widget-factory")
	full := treeWith(t, c, a, "Andrea") // a cell of the tree view: the last thing the walk reaches
	ctx := context.Background()

	t.Run("contents", func(t *testing.T) {
		for _, tc := range []struct {
			name, role, controlType string
			min                     int
		}{
			{"togglebutton", "toggle button", "Button", 4},
			{"checkbutton", "check box", "CheckBox", 6},
			{"radiobutton", "radio button", "RadioButton", 6},
			// GTK 3.24's widget factory names its stack switcher buttons "Page 1"…, and its
			// notebook tabs "page 1"….
			{"Page 1", "radio button", "RadioButton", 1},
			{"page 1", "page tab", "TabItem", 4},
			{"Andrea", "table cell", "DataItem", 1}, // child of a container that manages its descendants
		} {
			t.Run(tc.name, func(t *testing.T) {
				nodes := findAll(full.Root, func(n *platform.Node) bool { return n.Name == tc.name && n.Role == tc.role })
				if len(nodes) < tc.min {
					t.Fatalf("%d %ss named %q, want at least %d", len(nodes), tc.role, tc.name, tc.min)
				}
				shown := 0
				for _, n := range nodes {
					if n.ControlType != tc.controlType {
						t.Errorf("%q: control type %q, want %q", tc.name, n.ControlType, tc.controlType)
					}
					if n.Bounds == nil {
						continue
					}
					shown++
					if n.Bounds.Empty() || !a.bounds.Contains(*n.Bounds) {
						t.Errorf("%q at %+v: not inside the window %+v", tc.name, *n.Bounds, a.bounds)
					}
				}
				if shown == 0 {
					t.Errorf("no %q node has bounds", tc.name)
				}
			})
		}
	})

	t.Run("root is the frame matching the window", func(t *testing.T) {
		r := full.Root
		if r.Role != "frame" || r.ControlType != "Window" {
			t.Errorf("root role %q control type %q, want frame Window", r.Role, r.ControlType)
		}
		if r.Bounds == nil || *r.Bounds != a.bounds {
			t.Errorf("root bounds %v, want the window's %+v", r.Bounds, a.bounds)
		}
		n := 0
		walk(r, 0, func(*platform.Node, int) { n++ })
		if full.NodeCount != n || full.Truncated {
			t.Errorf("NodeCount %d Truncated %v; the tree holds %d nodes", full.NodeCount, full.Truncated, n)
		}
		if n < 200 {
			t.Errorf("only %d nodes; the first page has about 260", n)
		}
	})

	t.Run("hidden nodes have no bounds", func(t *testing.T) {
		hidden := 0
		walk(full.Root, 0, func(n *platform.Node, _ int) {
			if !n.States["showing"] {
				hidden++
				if n.Bounds != nil {
					t.Errorf("%s %q is not showing but has bounds %+v", n.Role, n.Name, *n.Bounds)
				}
			}
			if b := n.Bounds; b != nil && (b.X < -1<<20 || b.Y < -1<<20 || b.Width < 0 || b.Height < 0) {
				t.Errorf("%s %q has bogus bounds %+v", n.Role, n.Name, *b)
			}
		})
		if hidden < 20 {
			t.Errorf("only %d hidden nodes; the other pages' widgets should be there", hidden)
		}
	})

	t.Run("children and time limits", func(t *testing.T) {
		tree, err := c.Tree(ctx, a.window(), platform.TreeLimits{MaxDepth: 100, MaxNodes: 100000, MaxChildren: 2})
		if err != nil {
			t.Fatal(err)
		}
		cut := 0
		walk(tree.Root, 0, func(n *platform.Node, _ int) {
			if len(n.Children) > 2 {
				t.Errorf("%s %q lists %d children, MaxChildren is 2", n.Role, n.Name, len(n.Children))
			}
			if n.ChildCount > 0 {
				cut++
				if n.ChildCount <= len(n.Children) {
					t.Errorf("%s %q says ChildCount %d but lists %d", n.Role, n.Name, n.ChildCount, len(n.Children))
				}
			}
		})
		if !tree.Truncated || !slices.Equal(tree.TruncatedBy, []string{platform.LimitMaxChildren}) || cut == 0 {
			t.Errorf("Truncated %v by %v with %d cut nodes; want maxChildren only, some cut", tree.Truncated, tree.TruncatedBy, cut)
		}
		// A walk, not the mirror: a mirrored tree is whole at once whatever the budget.
		cold := connect(t, 2*time.Second)
		atspi.WithoutMirror(cold)
		tree, err = cold.Tree(ctx, a.window(), platform.TreeLimits{MaxDepth: 100, MaxNodes: 100000, Budget: time.Nanosecond})
		if err != nil {
			t.Fatal(err)
		}
		if tree.NodeCount != 1 || !slices.Equal(tree.TruncatedBy, []string{platform.LimitTime}) || tree.Root.ChildCount == 0 {
			t.Errorf("a spent budget: %d nodes truncated by %v, root ChildCount %d; want the root alone, by time",
				tree.NodeCount, tree.TruncatedBy, tree.Root.ChildCount)
		}
	})

	t.Run("limits", func(t *testing.T) {
		order := bfs(full.Root)
		maxDepth := 0
		meaningfulWalk(full.Root, 0, func(_ *platform.Node, d int) { maxDepth = max(maxDepth, d) })
		atDepth := func(d int) int {
			n := 0
			meaningfulWalk(full.Root, 0, func(_ *platform.Node, nd int) {
				if nd <= d {
					n++
				}
			})
			return n
		}
		for _, tc := range []struct {
			limits    platform.TreeLimits
			count     int
			truncated bool
		}{
			{platform.TreeLimits{MaxDepth: 0, MaxNodes: 1000}, atDepth(0), true},
			{platform.TreeLimits{MaxDepth: 1, MaxNodes: 1000}, atDepth(1), true},
			{platform.TreeLimits{MaxDepth: 6, MaxNodes: 1000}, atDepth(6), atDepth(6) < len(order)},
			{platform.TreeLimits{MaxDepth: maxDepth - 1, MaxNodes: 100000}, atDepth(maxDepth - 1), true},
			{platform.TreeLimits{MaxDepth: maxDepth, MaxNodes: 100000}, len(order), false},
			{platform.TreeLimits{MaxDepth: 100, MaxNodes: 1}, 1, true},
			{platform.TreeLimits{MaxDepth: 100, MaxNodes: 11}, 11, true},
			{platform.TreeLimits{MaxDepth: 100, MaxNodes: 50}, 50, true},
			{platform.TreeLimits{MaxDepth: 100, MaxNodes: len(order) - 1}, len(order) - 1, true},
			{platform.TreeLimits{MaxDepth: 100, MaxNodes: len(order)}, len(order), false},
		} {
			t.Run(fmt.Sprintf("depth%d-nodes%d", tc.limits.MaxDepth, tc.limits.MaxNodes), func(t *testing.T) {
				tree, err := c.Tree(ctx, a.window(), tc.limits)
				if err != nil {
					t.Fatal(err)
				}
				var refs []string
				meaningfulWalk(tree.Root, 0, func(n *platform.Node, d int) {
					refs = append(refs, n.Ref)
					if d > tc.limits.MaxDepth {
						t.Errorf("%s %q at depth %d beyond MaxDepth", n.Role, n.Name, d)
					}
				})
				if tree.NodeCount != tc.count || len(refs) != tc.count || tree.Truncated != tc.truncated {
					t.Errorf("NodeCount %d (%d in tree) Truncated %v, want %d %v",
						tree.NodeCount, len(refs), tree.Truncated, tc.count, tc.truncated)
				}
				if tc.limits.MaxDepth >= maxDepth {
					// Breadth first: a node budget keeps exactly the first nodes in level order.
					want := slices.Clone(order[:min(tc.count, len(order))])
					slices.Sort(want)
					slices.Sort(refs)
					if !slices.Equal(refs, want) {
						t.Errorf("kept nodes are not the first %d in breadth-first order", tc.count)
					}
				}
			})
		}
	})

	t.Run("roles match GetRoleName", func(t *testing.T) {
		conn := a11yConn(t)
		seen := map[string]bool{}
		walk(full.Root, 0, func(n *platform.Node, _ int) {
			if seen[n.Role] {
				return
			}
			seen[n.Role] = true
			var name string
			if err := call(t, conn, n.Ref, "org.a11y.atspi.Accessible.GetRoleName").Store(&name); err != nil {
				t.Errorf("GetRoleName %s: %v", n.Ref, err)
				return
			}
			if name != n.Role {
				t.Errorf("%s: role %q, the application says %q", n.Ref, n.Role, name)
			}
			if n.ControlType == "" {
				t.Errorf("role %q has no control type", n.Role)
			}
		})
		if len(seen) < 20 {
			t.Errorf("only %d distinct roles checked", len(seen))
		}
	})

	t.Run("refs round-trip", func(t *testing.T) {
		walk(full.Root, 0, func(n *platform.Node, _ int) {
			bus, path, err := atspi.ParseRef(n.Ref)
			if err != nil || atspi.FormatRef(bus, path) != n.Ref {
				t.Errorf("ParseRef(%q) = %q %q %v", n.Ref, bus, path, err)
			}
		})
		again, err := c.Tree(ctx, a.window(), all)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := bfs(again.Root), bfs(full.Root); !slices.Equal(got, want) {
			t.Errorf("a second walk found other refs: %d vs %d nodes", len(got), len(want))
		}
	})

	t.Run("values and actions", func(t *testing.T) {
		for _, tc := range []struct {
			role, value string // value prefix
			actions     []string
		}{
			{"spin button", "50", []string{"activate"}},
			{"slider", "50", nil},
			{"progress bar", "0.5", nil},
			{"text", "Lorem ipsum dolor sit amet", nil}, // multi-line: length read first
			{"text", "entry", []string{"activate"}},
			{"label", "label", nil},
			{"toggle button", "", []string{"click"}},
			{"combo box", "", []string{"press"}},
			{"table cell", "Andrea", []string{"expand or contract", "edit", "activate"}},
		} {
			n := find(full.Root, func(n *platform.Node) bool {
				return n.Role == tc.role && (tc.value == "" || n.Value != nil && strings.HasPrefix(*n.Value, tc.value))
			})
			if n == nil {
				t.Errorf("no %s with value %q", tc.role, tc.value)
				continue
			}
			if tc.actions != nil && !slices.Equal(n.Actions, tc.actions) {
				t.Errorf("%s %q: actions %q, want %q", n.Role, n.Name, n.Actions, tc.actions)
			}
		}
		if n := find(full.Root, func(n *platform.Node) bool { return n.Role == "filler" }); n.Value != nil || n.Actions != nil {
			t.Errorf("filler has value %v actions %v", n.Value, n.Actions)
		}
	})

	t.Run("lean walk reading texts has the full walk's values", func(t *testing.T) {
		limits := all
		limits.Lean, limits.Texts = true, true
		lean, err := c.Tree(ctx, a.window(), limits)
		if err != nil {
			t.Fatal(err)
		}
		values := func(root *platform.Node) map[string]string {
			m := map[string]string{}
			walk(root, 0, func(n *platform.Node, _ int) {
				if n.Value != nil {
					m[n.Ref] = *n.Value
				}
			})
			return m
		}
		got, want := values(lean.Root), values(full.Root)
		same := 0
		for ref, v := range want {
			g, ok := got[ref]
			if ok && g == v {
				same++
			} else if ok && !strings.Contains(v, "%") { // spinners and progress move on their own
				t.Errorf("%s: lean value %q, full %q", ref, g, v)
			}
		}
		// Nodes GTK creates lazily may be in one walk only; the rest must agree.
		if same < len(want)*9/10 {
			t.Errorf("only %d of %d values read alike by both walks", same, len(want))
		}
		// (The root's bounds are the window's, whatever the walk.)
		if n := find(lean.Root, func(n *platform.Node) bool { return n != lean.Root && n.Bounds != nil || n.Actions != nil }); n != nil {
			t.Errorf("lean walk has bounds or actions: %s %q", n.Role, n.Name)
		}
	})

	t.Run("fallback walk agrees with the cache", func(t *testing.T) {
		slow := connect(t, 2*time.Second)
		atspi.WalkWithoutCache(slow)
		tree, err := slow.Tree(ctx, a.window(), all)
		if err != nil {
			t.Fatal(err)
		}
		if tree.NodeCount != full.NodeCount || tree.Truncated {
			t.Errorf("fallback: %d nodes (truncated %v), cache: %d", tree.NodeCount, tree.Truncated, full.NodeCount)
		}
		// Children are compared as sets: the cache orders them by their index in the parent
		// (as libatspi does), which GTK's scrolled windows report differently from
		// GetChildren's order. Nodes that exist in only one walk (GTK creates some accessibles
		// lazily, when first asked for) are left out.
		type summary struct {
			role, name, actions string
			kids                []string
		}
		index := func(root *platform.Node) map[string]summary {
			m := map[string]summary{}
			walk(root, 0, func(n *platform.Node, _ int) {
				s := summary{role: n.Role, name: n.Name, actions: strings.Join(n.Actions, ",")}
				for _, k := range n.Children {
					s.kids = append(s.kids, k.Ref)
				}
				m[n.Ref] = s
			})
			return m
		}
		got, want := index(tree.Root), index(full.Root)
		common := func(kids []string) []string {
			var out []string
			for _, k := range kids {
				if _, ok := got[k]; ok {
					if _, ok := want[k]; ok {
						out = append(out, k)
					}
				}
			}
			slices.Sort(out)
			return out
		}
		same := 0
		for ref, w := range want {
			g, ok := got[ref]
			if !ok {
				continue
			}
			same++
			if g.role != w.role || g.name != w.name || g.actions != w.actions || !slices.Equal(common(g.kids), common(w.kids)) {
				t.Errorf("%s: fallback %+v, cache %+v", ref, g, w)
			}
		}
		if same < len(want)*9/10 {
			t.Errorf("only %d of %d nodes found by both walks", same, len(want))
		}
	})

	t.Run("apps", func(t *testing.T) {
		apps, err := c.Apps(ctx)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(apps, func(x atspi.App) bool { return x.PID == a.pid })
		if i < 0 {
			t.Fatalf("pid %d not among %+v", a.pid, apps)
		}
		if got := apps[i]; got.Name != "gtk3-widget-factory" || got.Toolkit != "gtk" || got.Err != nil || !strings.HasPrefix(got.BusName, ":") {
			t.Errorf("app %+v", got)
		}
	})

	// Last: it changes the application.
	t.Run("checked state follows a click", func(t *testing.T) {
		box := find(full.Root, func(n *platform.Node) bool { return n.Name == "checkbutton" && n.States["enabled"] })
		if box == nil {
			t.Fatal("no enabled checkbutton")
		}
		was := box.States["checked"]
		conn := a11yConn(t)
		var ok bool
		if err := call(t, conn, box.Ref, "org.a11y.atspi.Action.DoAction", int32(0)).Store(&ok); err != nil || !ok {
			t.Fatalf("DoAction: %v %v", ok, err)
		}
		testdesk.WaitFor(t, 5*time.Second, "checked state to flip", func() bool {
			tree, err := c.Tree(ctx, a.window(), all)
			if err != nil {
				return false
			}
			n := find(tree.Root, func(n *platform.Node) bool { return n.Ref == box.Ref })
			return n != nil && n.States["checked"] != was && n.States["enabled"]
		})
	})
}

// bfs lists the refs of a tree in level order.
func bfs(root *platform.Node) []string {
	var out []string
	level := []*platform.Node{root}
	for len(level) > 0 {
		var next []*platform.Node
		for _, n := range level {
			out = append(out, n.Ref)
			next = append(next, n.Children...)
		}
		level = next
	}
	return out
}

// TestHungApplication stops one application and checks that its tree fails within the call
// deadline while another application's tree still succeeds meanwhile.
func TestHungApplication(t *testing.T) {
	const callTimeout = time.Second
	c := connect(t, callTimeout)
	hung := startApp(t, "gtk3-widget-factory")
	other := startApp(t, "gtk3-demo")
	treeWith(t, c, hung, "togglebutton")
	otherTree := func() (platform.Tree, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return c.Tree(ctx, other.window(), queryDefaults)
	}
	testdesk.WaitFor(t, 15*time.Second, "gtk3-demo tree", func() bool { _, err := otherTree(); return err == nil })

	if err := syscall.Kill(hung.pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			_ = syscall.Kill(hung.pid, syscall.SIGCONT)
		}
	}
	t.Cleanup(resume)

	var (
		wg       sync.WaitGroup
		hungErr  error
		hungTook time.Duration
		hungDone = make(chan struct{})
	)
	wg.Go(func() {
		defer close(hungDone)
		start := time.Now()
		_, hungErr = c.Tree(context.Background(), hung.window(), queryDefaults)
		hungTook = time.Since(start)
	})
	// The other application answers while the hung one's calls wait for their deadline.
	start := time.Now()
	tree, err := otherTree()
	otherTook := time.Since(start)
	select {
	case <-hungDone:
		t.Errorf("the hung tree returned (%v) before the other tree was done", hungTook)
	default:
	}
	if err != nil || tree.NodeCount < 10 {
		t.Errorf("other app's tree during the hang: %d nodes, %v", tree.NodeCount, err)
	}
	wg.Wait()
	if !errors.Is(hungErr, platform.ErrAppNotResponding) {
		t.Errorf("hung app: %v, want ErrAppNotResponding", hungErr)
	}
	// The deadline stretches with the machine's load (sysload), at most MaxFactor times.
	deadline := sysload.Scale(callTimeout)
	if hungTook < callTimeout/2 || hungTook > deadline+time.Second {
		t.Errorf("hung app failed after %v, want about the %v call deadline", hungTook, deadline)
	}
	t.Logf("hung app failed after %v; the other tree took %v", hungTook, otherTook)

	// A listing of applications names the hung one and still describes the others.
	start = time.Now()
	apps, err := c.Apps(context.Background())
	if err != nil || time.Since(start) > sysload.Scale(callTimeout)+time.Second {
		t.Fatalf("Apps during the hang: %v after %v", err, time.Since(start))
	}
	for _, app := range apps {
		switch app.PID {
		case hung.pid:
			if !errors.Is(app.Err, platform.ErrAppNotResponding) {
				t.Errorf("hung app listed with Err %v", app.Err)
			}
		case other.pid:
			if app.Err != nil || app.Toolkit != "gtk" {
				t.Errorf("other app listed as %+v", app)
			}
		}
	}

	// Once it runs again, its tree comes back.
	resume()
	treeWith(t, c, hung, "togglebutton")
}

// TestNoAccessibleTree covers processes that expose nothing on the AT-SPI bus.
func TestNoAccessibleTree(t *testing.T) {
	c := connect(t, 2*time.Second)
	ctx := context.Background()
	t.Run("X client without AT-SPI", func(t *testing.T) {
		if _, err := exec.LookPath("xmessage"); err != nil {
			t.Skip("xmessage (x11-utils) not installed")
		}
		p := testdesk.Start(t, "xmessage", "no accessibility here")
		// Xaw sets no _NET_WM_PID: find the window by class.
		w := waitWindowClass(t, "Xmessage", 10*time.Second)
		_, err := c.Tree(ctx, platform.Window{Handle: w, ProcessID: p.PID, Bounds: windowBounds(t, w)}, queryDefaults)
		if !errors.Is(err, platform.ErrNoAccessibleTree) {
			t.Fatalf("Tree = %v, want ErrNoAccessibleTree", err)
		}
		if !strings.Contains(err.Error(), "capture") {
			t.Errorf("detail %q does not suggest capture and pixel input", err)
		}
	})
	t.Run("process without a window", func(t *testing.T) {
		p := testdesk.Start(t, "sleep", "60")
		if _, err := c.Tree(ctx, platform.Window{ProcessID: p.PID}, queryDefaults); !errors.Is(err, platform.ErrNoAccessibleTree) {
			t.Fatalf("Tree = %v, want ErrNoAccessibleTree", err)
		}
	})
}

func TestConnectUnavailable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := atspi.Connect(ctx, "unix:path=/nonexistent/mcec-bus", atspi.Options{})
	if !errors.Is(err, platform.ErrAtspiUnavailable) {
		t.Fatalf("Connect = %v, want ErrAtspiUnavailable", err)
	}
}

// TestClosedClient: calls after Close fail as an unavailable bus, not a hang.
func TestClosedClient(t *testing.T) {
	c := connect(t, 2*time.Second)
	_ = c.Close()
	if _, err := c.Apps(context.Background()); !errors.Is(err, platform.ErrAtspiUnavailable) {
		t.Fatalf("Apps after Close = %v, want ErrAtspiUnavailable", err)
	}
}

// TestPasswordMaskedLive: a GTK password entry's text never leaves the application.
func TestPasswordMaskedLive(t *testing.T) {
	needPythonGTK(t)
	c := connect(t, 2*time.Second)
	a := startApp(t, python, "testdata/password.py")
	var tree platform.Tree
	testdesk.WaitFor(t, 10*time.Second, "both entries in the tree", func() bool {
		var err error
		tree, err = c.Tree(context.Background(), a.window(), all)
		return err == nil && find(tree.Root, func(n *platform.Node) bool { return n.Role == "password text" }) != nil &&
			find(tree.Root, func(n *platform.Node) bool { return n.Value != nil && *n.Value == "visible text" }) != nil
	})
	pw := find(tree.Root, func(n *platform.Node) bool { return n.Role == "password text" })
	if pw.Value == nil || *pw.Value != atspi.MaskedValue || pw.ControlType != "Edit" {
		t.Errorf("password entry: value %v control type %q", pw.Value, pw.ControlType)
	}
	walk(tree.Root, 0, func(n *platform.Node, _ int) {
		if strings.Contains(n.Name+n.Description, "hunter2") || n.Value != nil && strings.Contains(*n.Value, "hunter2") {
			t.Errorf("%s %q leaks the password", n.Role, n.Name)
		}
	})
	if got := tree.SecretsMasked; got != 1 {
		t.Errorf("SecretsMasked = %d, want 1", got)
	}
}

// TestRegistryStall stops the registry daemon for longer than one call deadline: listing the
// applications asks again and succeeds once it answers, instead of reporting the accessibility
// layer down (a loaded CI machine saw one such stall).
func TestRegistryStall(t *testing.T) {
	const callTimeout = time.Second
	c := connect(t, callTimeout)
	ctx := context.Background()
	pid, err := atspi.RegistryPID(ctx, c)
	if err != nil || pid <= 1 {
		t.Fatalf("registry pid %d: %v", pid, err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resume := sync.OnceFunc(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	t.Cleanup(resume)
	time.AfterFunc(callTimeout+callTimeout/2, resume)
	start := time.Now()
	apps, err := c.Apps(ctx)
	if err != nil {
		t.Fatalf("Apps during a %v registry stall: %v", callTimeout+callTimeout/2, err)
	}
	t.Logf("%d applications listed after %v", len(apps), time.Since(start).Round(time.Millisecond))
}

// TestRowsOutOfView: GTK 3 says a tree view's rows scrolled out of view are showing but
// answers their extents with the not-on-screen marker; such rows are reported without bounds
// and not showing (isOffscreen), the rows in view with both.
func TestRowsOutOfView(t *testing.T) {
	a := startApp(t, python, "testdata/cells.py")
	c := connect(t, 2*time.Second)
	var inView, outOfView int
	testdesk.WaitFor(t, 20*time.Second, "the list's rows", func() bool {
		tr, err := c.Tree(context.Background(), a.window(), all)
		if err != nil {
			t.Fatal(err)
		}
		inView, outOfView = 0, 0
		var visit func(n *platform.Node)
		visit = func(n *platform.Node) {
			if n.Role == "table cell" {
				switch {
				case n.Bounds != nil && n.States["showing"]:
					inView++
				case n.Bounds == nil && !n.States["showing"]:
					outOfView++
				default:
					t.Fatalf("cell %q: bounds %v, showing %v", n.Name, n.Bounds, n.States["showing"])
				}
			}
			for _, k := range n.Children {
				visit(k)
			}
		}
		visit(tr.Root)
		return inView+outOfView >= 4*44
	})
	if inView == 0 || outOfView == 0 {
		t.Errorf("%d cells in view, %d out of view; want some of both", inView, outOfView)
	}
}
