package atspi_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/atspi"
)

// queryDefaults are the query tool's defaults (PRODUCT.md §8).
var queryDefaults = platform.TreeLimits{MaxDepth: 6, MaxNodes: 1000}

// benchTree measures Tree on gtk3-widget-factory and reports, besides time, the CPU the client
// and the application spent per tree: with two processes and the bus daemon sharing few
// cores, CPU is what the wall time is made of.
func benchTree(b *testing.B, c *atspi.Client, limits platform.TreeLimits) {
	a := startApp(b, "gtk3-widget-factory")
	tree := treeWith(b, c, a, "Andrea")
	ctx := context.Background()
	warm, err := c.Tree(ctx, a.pid, a.bounds, limits) // fills the meta cache
	if err != nil {
		b.Fatal(err)
	}
	self, app := cpuSelf(), cpuOf(a.pid)
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Tree(ctx, a.pid, a.bounds, limits); err != nil {
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
		if _, err := c.Tree(ctx, a.pid, a.bounds, all); err != nil {
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
