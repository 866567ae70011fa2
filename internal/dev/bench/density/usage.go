package density

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Components of an instance, as Usage reports them.
const (
	CompMcec    = "mcec"
	CompXvfb    = "Xvfb"
	CompDBus    = "dbus-daemon" // the session bus and the accessibility bus
	CompATSPI   = "at-spi"      // at-spi-bus-launcher and at-spi2-registryd
	CompOpenbox = "openbox"
	CompOther   = "other" // the desktop's watchdog, transient helpers
	CompApp     = "app"   // the GTK app (python3), reported apart from mcec + desktop
)

// DesktopComps are the components counted as "mcec + desktop".
var DesktopComps = []string{CompMcec, CompXvfb, CompDBus, CompATSPI, CompOpenbox, CompOther}

// Mem is resident memory in kB: RSS counts shared pages fully in every process; PSS divides
// each shared page among the processes that map it (/proc/PID/smaps_rollup), so PSS sums to
// what the fleet really occupies.
type Mem struct{ RSS, PSS int }

// Usage is one member's memory by component.
type Usage map[string]Mem

// Sum adds the components named.
func (u Usage) Sum(comps ...string) Mem {
	var m Mem
	for _, c := range comps {
		m.RSS += u[c].RSS
		m.PSS += u[c].PSS
	}
	return m
}

type procStat struct {
	pid, ppid, pgid int
	comm, state     string
	ticks           int // utime + stime, in clock ticks
}

// scan reads every process's stat line.
func scan() map[int]procStat {
	out := map[int]procStat{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok {
			out[pid] = st
		}
	}
	return out
}

func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, false
	}
	// pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime …
	open, closing := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || closing < open {
		return procStat{}, false
	}
	f := strings.Fields(string(b[closing+1:]))
	if len(f) < 13 {
		return procStat{}, false
	}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	return procStat{pid: pid, comm: string(b[open+1 : closing]), state: f[0], ppid: atoi(f[1]), pgid: atoi(f[2]),
		ticks: atoi(f[11]) + atoi(f[12])}, true
}

func processGroup(pid int) int {
	st, ok := readStat(pid)
	if !ok {
		return 0
	}
	return st.pgid
}

// processGroups are the process groups of root and its descendants. Every desktop process
// leads a group of its own, and so does each launched app; a daemon that D-Bus activated and
// that was reparented to init (at-spi2-registryd) stays in its launcher's group.
func processGroups(root int) []int {
	return groupsOf(scan(), root)
}

func groupsOf(all map[int]procStat, root int) []int {
	children := map[int][]int{}
	for _, p := range all {
		children[p.ppid] = append(children[p.ppid], p.pid)
	}
	var groups []int
	var walk func(int)
	walk = func(pid int) {
		if p, ok := all[pid]; ok && !slices.Contains(groups, p.pgid) {
			groups = append(groups, p.pgid)
		}
		for _, c := range children[pid] {
			walk(c)
		}
	}
	walk(root)
	return groups
}

// members are the processes of the member's groups, by component.
func (m *Member) processes(all map[int]procStat) map[int]string {
	groups := groupsOf(all, m.PID)
	out := map[int]string{}
	for _, p := range all {
		if slices.Contains(groups, p.pgid) {
			out[p.pid] = component(p, m.PID)
		}
	}
	return out
}

func component(p procStat, root int) string {
	switch {
	case p.pid == root:
		return CompMcec
	case p.comm == "Xvfb":
		return CompXvfb
	case p.comm == "dbus-daemon":
		return CompDBus
	case strings.HasPrefix(p.comm, "at-spi"):
		return CompATSPI
	case p.comm == "openbox":
		return CompOpenbox
	case strings.HasPrefix(p.comm, "python3"):
		return CompApp
	}
	return CompOther
}

// Usage reads the member's memory by component.
func (m *Member) Usage() (Usage, error) {
	u := Usage{}
	for pid, comp := range m.processes(scan()) {
		mem, err := rollup(pid)
		if err != nil {
			continue // exited meanwhile (a transient helper)
		}
		cur := u[comp]
		cur.RSS += mem.RSS
		cur.PSS += mem.PSS
		u[comp] = cur
	}
	if _, ok := u[CompMcec]; !ok {
		return nil, fmt.Errorf("%s: mcec (pid %d) is gone", m.ID, m.PID)
	}
	return u, nil
}

func rollup(pid int) (Mem, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "smaps_rollup"))
	if err != nil {
		return Mem{}, err
	}
	var m Mem
	for line := range strings.SplitSeq(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		var kb int
		if _, err := fmt.Sscanf(strings.TrimSpace(v), "%d kB", &kb); err != nil {
			continue
		}
		switch k {
		case "Rss":
			m.RSS = kb
		case "Pss":
			m.PSS = kb
		}
	}
	return m, nil
}

// clockTick is USER_HZ, 100 on every Linux architecture Go supports.
const clockTick = 100

// IdleCPU measures, over d, the CPU the fleet's processes used while nobody called them, by
// member, in percent of one core; split into mcec + desktop and the app.
func (f *Fleet) IdleCPU(ctx context.Context, d time.Duration) (desktop, app []float64, err error) {
	before := scan()
	select {
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	case <-time.After(d): // the measurement window itself
	}
	after := scan()
	for _, m := range f.Members {
		var dt, at int
		for pid, comp := range m.processes(after) {
			delta := after[pid].ticks - before[pid].ticks // a process born meanwhile counts from 0
			if comp == CompApp {
				at += delta
			} else {
				dt += delta
			}
		}
		pct := func(t int) float64 { return float64(t) / clockTick / d.Seconds() * 100 }
		desktop, app = append(desktop, pct(dt)), append(app, pct(at))
	}
	return desktop, app, nil
}

// Throughput drives every member at once for d with a read loop (windows, then find of the
// entry) over the façade and returns the successful calls per second across the fleet.
func (f *Fleet) Throughput(ctx context.Context, d time.Duration) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var calls atomic.Int64
	var mu sync.Mutex
	var first error
	began := time.Now()
	_ = f.each(func(_ int, m *Member) error {
		for i := 0; ctx.Err() == nil; i++ {
			var err error
			if i%2 == 0 {
				err = m.Call(ctx, "windows", nil, nil)
			} else {
				_, err = m.EntryValue(ctx)
			}
			switch {
			case err == nil:
				calls.Add(1)
			case ctx.Err() != nil: // the window closed mid-call
			default:
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				return err
			}
		}
		return nil
	})
	if first != nil {
		return 0, first
	}
	return float64(calls.Load()) / time.Since(began).Seconds(), nil
}
