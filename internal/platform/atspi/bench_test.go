package atspi_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/atspi"
	"github.com/mcec/mcec/internal/testdesk"
)

// queryDefaults are the query tool's defaults (PRODUCT.md §8).
var queryDefaults = platform.TreeLimits{MaxDepth: 6, MaxNodes: 1000}

// benchTree measures Tree on gtk3-widget-factory and reports, besides time, the CPU the client
// and the application spent per tree: with two processes and the bus daemon sharing few
// cores, CPU is what the wall time is made of. Every tree walks: the mirror would answer an
// unchanged window without reading it.
func benchTree(b *testing.B, c *atspi.Client, limits platform.TreeLimits) {
	atspi.WithoutMirror(c)
	a := startApp(b, "gtk3-widget-factory")
	tree := treeWith(b, c, a, "Andrea")
	ctx := context.Background()
	warm, err := c.Tree(ctx, a.window(), limits) // fills the meta cache
	if err != nil {
		b.Fatal(err)
	}
	self, app := cpuSelf(), cpuOf(a.pid)
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Tree(ctx, a.window(), limits); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(cpuSelf()-self)/float64(time.Millisecond)/n, "client-cpu-ms/op")
	b.ReportMetric(float64(cpuOf(a.pid)-app)/float64(time.Millisecond)/n, "app-cpu-ms/op")
	b.ReportMetric(float64(warm.NodeCount), "nodes")
	_ = tree
}

func cpuSelf() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuOf reads a process's user+system time from /proc (clock ticks of 10 ms).
func cpuOf(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	u, _ := strconv.Atoi(f[11])
	k, _ := strconv.Atoi(f[12])
	return time.Duration(u+k) * 10 * time.Millisecond
}

// BenchmarkTreeWidgetFactory measures the whole tree of gtk3-widget-factory's first page
// (≈260 nodes) through the cache; the target is under 30 ms.
func BenchmarkTreeWidgetFactory(b *testing.B) {
	benchTree(b, connect(b, 2*time.Second), all)
}

// BenchmarkTreeWidgetFactoryQueryDefaults is the same with the query tool's default limits.
func BenchmarkTreeWidgetFactoryQueryDefaults(b *testing.B) {
	benchTree(b, connect(b, 2*time.Second), queryDefaults)
}

// BenchmarkTreeWidgetFactoryColdClient is the first tree of a new client each time: nothing
// is known yet about ids and actions.
func BenchmarkTreeWidgetFactoryColdClient(b *testing.B) {
	a := startApp(b, "gtk3-widget-factory")
	treeWith(b, connect(b, 2*time.Second), a, "Andrea")
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		c := connect(b, 2*time.Second)
		b.StartTimer()
		if _, err := c.Tree(ctx, a.window(), all); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		_ = c.Close()
		b.StartTimer()
	}
}

// BenchmarkTreeWidgetFactoryFallback walks without Cache.GetItems, as for toolkits that lack it.
func BenchmarkTreeWidgetFactoryFallback(b *testing.B) {
	c := connect(b, 2*time.Second)
	atspi.WalkWithoutCache(c)
	benchTree(b, c, all)
}

// factoryNodes starts gtk3-widget-factory and returns a client, the app and its tree.
func factoryNodes(b *testing.B) (*atspi.Client, app, platform.Tree) {
	c := connect(b, 2*time.Second)
	a := startApp(b, "gtk3-widget-factory")
	return c, a, treeWith(b, c, a, "Andrea")
}

func pick(b *testing.B, root *platform.Node, what string, match func(*platform.Node) bool) *platform.Node {
	b.Helper()
	n := find(root, match)
	if n == nil {
		b.Fatalf("no %s", what)
	}
	return n
}

// BenchmarkElement re-reads a check box by ref (the meta cache knows it after the tree).
func BenchmarkElement(b *testing.B) {
	c, _, tree := factoryNodes(b)
	box := pick(b, tree.Root, "check box", func(n *platform.Node) bool { return n.Role == "check box" && n.States["enabled"] })
	ctx := context.Background()
	for b.Loop() {
		if _, err := c.Element(ctx, box.Ref); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAct performs each action; actions alternate so the application's state stays put.
func BenchmarkAct(b *testing.B) {
	c, _, tree := factoryNodes(b)
	root := tree.Root
	ctx := context.Background()
	entry := pick(b, root, "entry", func(n *platform.Node) bool {
		return n.Role == "text" && n.States["enabled"] && n.Value != nil && *n.Value == "entry"
	})
	entries := findAll(root, func(n *platform.Node) bool {
		return n.Role == "text" && n.States["enabled"] && n.States["single-line"] && n.States["showing"]
	})
	tab1 := pick(b, root, "tab", func(n *platform.Node) bool { return n.Role == "page tab" && n.Name == "page 1" })
	tab2 := pick(b, root, "tab", func(n *platform.Node) bool {
		return n.Role == "page tab" && n.Name == "page 2" && parents(root)[n.Ref] == parents(root)[tab1.Ref]
	})
	type step struct {
		ref    string
		action platform.ElementAction
		text   string
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"toggle", []step{{pick(b, root, "check box", func(n *platform.Node) bool { return n.Role == "check box" && n.States["enabled"] }).Ref, platform.ActToggle, ""}}},
		{"invoke", []step{{pick(b, root, "toggle button", func(n *platform.Node) bool { return n.Name == "togglebutton" && n.States["enabled"] }).Ref, platform.ActInvoke, ""}}},
		{"setvalue-text", []step{{entry.Ref, platform.ActSetValue, "hello"}, {entry.Ref, platform.ActSetValue, "entry"}}},
		{"setvalue-number", []step{
			{pick(b, root, "slider", func(n *platform.Node) bool { return n.Role == "slider" && n.States["enabled"] }).Ref, platform.ActSetValue, "25"},
			{pick(b, root, "slider", func(n *platform.Node) bool { return n.Role == "slider" && n.States["enabled"] }).Ref, platform.ActSetValue, "75"},
		}},
		{"setfocus", []step{{entries[1].Ref, platform.ActSetFocus, ""}, {entries[2].Ref, platform.ActSetFocus, ""}}},
		{"select", []step{{tab2.Ref, platform.ActSelect, ""}, {tab1.Ref, platform.ActSelect, ""}}},
		{"expand-collapse", []step{
			{pick(b, root, "expander", func(n *platform.Node) bool { return n.Role == "combo box" && n.Name == "Left" }).Ref, platform.ActExpand, ""},
			{pick(b, root, "expander", func(n *platform.Node) bool { return n.Role == "combo box" && n.Name == "Left" }).Ref, platform.ActCollapse, ""},
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				s := tc.steps[i%len(tc.steps)]
				i++
				if res, err := c.Act(ctx, s.ref, s.action, s.text); err != nil || res.ModalPending {
					b.Fatalf("%s: %+v %v", s.action, res, err)
				}
			}
		})
	}
}

// BenchmarkFocused finds the focused object through the application's cache.
func BenchmarkFocused(b *testing.B) {
	c, a, _ := factoryNodes(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := c.Focused(ctx, a.pid); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWatchToggle is a toggle and the watch reporting it: the event latency plus Act.
func BenchmarkWatchToggle(b *testing.B) {
	c, a, tree := factoryNodes(b)
	box := pick(b, tree.Root, "check box", func(n *platform.Node) bool { return n.Role == "check box" && n.States["enabled"] })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := c.WatchTree(ctx, a.pid)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		drain(ch)
		if _, err := c.Act(ctx, box.Ref, platform.ActToggle, ""); err != nil {
			b.Fatal(err)
		}
		<-ch
	}
}

// BenchmarkColdList is issue 16's cold query: every node of a generated GTK list of 1,500 rows
// read from the application (no mirror), whole. It reports where a node's time goes: calls per
// node, the CPU per node of the application (its main loop answers one call at a time), of the
// client and of the accessibility bus daemon, and the time per node: through the bus only, and
// over the application's own socket (peer.go) at several bounds of calls in flight.
func BenchmarkColdList(b *testing.B) {
	const rows = 1500
	a := startApp(b, python, "../../dev/bench/py/rows.py", strconv.Itoa(rows))
	busOnly := connect(b, 5*time.Second)
	atspi.WithoutMirror(busOnly)
	atspi.WithoutPeers(busOnly)
	c := connect(b, 5*time.Second)
	atspi.WithoutMirror(c)
	ctx := context.Background()
	for _, c := range []*atspi.Client{busOnly, c} {
		testdesk.WaitFor(b, 20*time.Second, "the list's rows", func() bool {
			t, err := c.Tree(ctx, a.window(), all)
			return err == nil && t.NodeCount > rows
		})
	}
	b.Run("bus-only", func(b *testing.B) { coldList(b, busOnly, a) })
	for _, inFlight := range []int{1, 8, 32, 64} {
		b.Run(fmt.Sprintf("inflight=%d", inFlight), func(b *testing.B) {
			atspi.SetMaxInFlight(inFlight)
			defer atspi.SetMaxInFlight(32)
			coldList(b, c, a)
		})
	}
}

// coldList reads a's whole tree with c b.N times and reports BenchmarkColdList's metrics.
func coldList(b *testing.B, c *atspi.Client, a app) {
	ctx := context.Background()
	bus := a11yBusPID()
	var nodes int
	calls, self, appCPU, busCPU := atspi.Calls(c), cpuSelf(), cpuOf(a.pid), cpuOf(bus)
	for b.Loop() {
		t, err := c.Tree(ctx, a.window(), all)
		if err != nil {
			b.Fatal(err)
		}
		nodes = t.NodeCount
	}
	per := float64(b.N) * float64(nodes)
	b.ReportMetric(float64(nodes), "nodes")
	b.ReportMetric(float64(atspi.Calls(c)-calls)/per, "calls/node")
	b.ReportMetric(float64(cpuOf(a.pid)-appCPU)/float64(time.Microsecond)/per, "app-cpu-µs/node")
	b.ReportMetric(float64(cpuSelf()-self)/float64(time.Microsecond)/per, "client-cpu-µs/node")
	b.ReportMetric(float64(cpuOf(bus)-busCPU)/float64(time.Microsecond)/per, "bus-cpu-µs/node")
	b.ReportMetric(float64(b.Elapsed())/float64(time.Microsecond)/per, "µs/node")
}

// a11yBusPID is the test desktop's accessibility bus daemon: the dbus-daemon that
// at-spi-bus-launcher started (the session bus is the desktop's own child); 0 if none.
func a11yBusPID() int {
	for _, p := range testdesk.Desktop().PIDs() {
		for _, k := range testdesk.ChildPIDs(p) {
			if comm, _ := os.ReadFile("/proc/" + strconv.Itoa(k) + "/comm"); strings.TrimSpace(string(comm)) == "dbus-daemon" {
				return k
			}
		}
	}
	return 0
}
