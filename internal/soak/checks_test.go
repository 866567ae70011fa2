package soak_test

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/mcec/mcec/internal/testdesk"
)

// Bounds of growth, from the final server's first sample under load to its idle end.
const (
	growthGoroutines = 40        // abandoned MCP sessions live until their idle timeout
	growthFDs        = 10        //
	growthHeapKiB    = 32 << 10  // live heap
	maxRSSKiB        = 400 << 10 // absolute: the Go runtime returns freed memory to the system lazily
)

// The end checks, as the report names them.
const (
	checkSchema   = "schema"
	checkPanic    = "panic"
	checkErrors   = "transport"
	checkGrowth   = "growth"
	checkHeld     = "held input"
	checkProcess  = "process"
	checkFiles    = "files"
	checkEvidence = "evidence"
)

// fail fails the test and counts the failure against one check.
func (h *harness) fail(check, format string, args ...any) {
	h.t.Helper()
	h.t.Errorf(format, args...)
	h.st.mu.Lock()
	if h.st.failedChecks == nil {
		h.st.failedChecks = map[string]int{}
	}
	h.st.failedChecks[check]++
	h.st.mu.Unlock()
}

// finalChecks runs once the load is over.
func (h *harness) finalChecks() {
	h.checkGrowth()
	h.checkHeldInput()

	// The stdio server of its own: its client closed it; it and its desktop go.
	own.mu.Lock()
	ownPID := own.pid
	own.mu.Unlock()
	if ownPID > 0 && !waitUntil(15*time.Second, func() bool { return len(testdesk.Running([]int{ownPID})) == 0 }) {
		h.fail(checkProcess, "mcec mcp --headless (pid %d) still runs after its client closed it", ownPID)
	}
	h.stopServer(syscall.SIGTERM)
	h.stopApps()
	h.mu.Lock()
	apps := h.apps
	h.mu.Unlock()
	if r := testdesk.Running(apps); len(r) > 0 {
		h.fail(checkProcess, "applications still run after the suite stopped them: %v", describe(r))
	}
	if !waitUntil(15*time.Second, func() bool { return len(h.leftFiles()) == 0 }) {
		h.fail(checkFiles, "left behind: %v", h.leftFiles())
	}
	if _, err := os.Lstat(filepath.Join(h.dir, "outside.png")); err == nil {
		h.fail(checkFiles, "capture wrote outside the artifact directory")
	}
	h.checkEvidence()
	h.checkLogs()
	h.st.mu.Lock()
	bad := slices.Clone(h.st.schemaBad)
	outcomes := maps.Clone(h.st.outcomes)
	nUnexp, unexpected := h.st.nUnexp, slices.Clone(h.st.unexpected)
	unhandled := slices.Clone(h.st.unhandled)
	h.st.mu.Unlock()
	for _, s := range bad {
		h.fail(checkSchema, "invalid answer: %s", s)
	}
	for o, n := range outcomes {
		if strings.Contains(o, "unhandled-exception") {
			h.fail(checkPanic, "%d calls answered %s (a recovered panic or an unmapped failure); the first: %s", n, o, strings.Join(unhandled, "\n  "))
		}
	}
	if nUnexp > 0 {
		h.fail(checkErrors, "%d transport errors outside any fault; the first: %s", nUnexp, strings.Join(unexpected, "\n  "))
	}
}

// checkGrowth compares the final server's idle end with its first sample under load.
func (h *harness) checkGrowth() {
	s := h.current()
	if s == nil {
		h.fail(checkGrowth, "no server at the end of the load")
		return
	}
	// The first sample of the final server 4 s into its load (or its first at all).
	h.st.mu.Lock()
	var first, base *sample
	for i := range h.st.samples {
		sm := &h.st.samples[i]
		if sm.gen != s.gen {
			continue
		}
		if first == nil {
			first = sm
		}
		if base == nil && !sm.when.Before(s.ready.Add(4*time.Second)) {
			base = sm
		}
	}
	if base == nil {
		base = first
	}
	h.st.mu.Unlock()
	if base == nil {
		h.fail(checkGrowth, "the final server was never sampled under load (run longer)")
		return
	}
	b := *base
	var end sample
	// Idle: connections close, calls end, the runtime's timers fire; polled with a deadline.
	settled := waitUntil(15*time.Second, func() bool {
		sm, ok := h.sample()
		end = sm
		return ok && sm.goroutines > 0 && sm.goroutines <= b.goroutines+growthGoroutines && sm.fds <= b.fds+growthFDs &&
			sm.heapKiB <= b.heapKiB+growthHeapKiB
	})
	h.st.mu.Lock()
	h.st.base, h.st.end = b, end
	h.st.mu.Unlock()
	if !settled {
		h.fail(checkGrowth, "growth past the bound: under load %+v, idle end %+v (bounds: +%d goroutines, +%d fds, +%d KiB live heap)",
			b, end, growthGoroutines, growthFDs, growthHeapKiB)
	}
	if end.rssKiB > maxRSSKiB {
		h.fail(checkGrowth, "RSS %d KiB idle at the end (bound %d KiB)", end.rssKiB, maxRSSKiB)
	}
}

// checkHeldInput asks the X server whether any key or pointer button is down.
func (h *harness) checkHeldInput() {
	// The line protocol releases a closed connection's input once its commands have run.
	var last []string
	if !waitUntil(5*time.Second, func() bool { last = h.heldNow(); return len(last) == 0 }) {
		h.fail(checkHeld, "input held at the end: %v", last)
		h.st.mu.Lock()
		h.st.heldInput = last
		h.st.mu.Unlock()
	}
}

// heldNow lists the keys and pointer buttons down on the suite's X server.
func (h *harness) heldNow() []string {
	x, err := xgb.NewConnDisplay(h.desk.Display())
	if err != nil {
		return []string{err.Error()}
	}
	defer x.Close()
	held := func() []string {
		var out []string
		km, err := xproto.QueryKeymap(x).Reply()
		if err != nil {
			return []string{err.Error()}
		}
		for i, b := range km.Keys {
			for bit := range 8 {
				if b&(1<<bit) != 0 {
					out = append(out, fmt.Sprintf("keycode %d", i*8+bit))
				}
			}
		}
		root := xproto.Setup(x).DefaultScreen(x).Root
		p, err := xproto.QueryPointer(x, root).Reply()
		if err != nil {
			return append(out, err.Error())
		}
		if m := p.Mask & (xproto.ButtonMask1 | xproto.ButtonMask2 | xproto.ButtonMask3 | xproto.ButtonMask4 | xproto.ButtonMask5); m != 0 {
			out = append(out, fmt.Sprintf("pointer buttons (mask %#x)", m))
		}
		return out
	}
	return held()
}

// heldAllAlong is what stays held on the X server through d: empty as soon as one look finds
// nothing held. The load's line clients hold Control and the left button between their own
// commands, so one look right after a restart can catch a hold that is theirs; a key or button
// the killed server left down stays down.
func (h *harness) heldAllAlong(d time.Duration) []string {
	deadline := time.Now().Add(d)
	for {
		held := h.heldNow()
		if len(held) == 0 || time.Now().After(deadline) {
			return held
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// leftFiles lists what mcec left in the run's runtime and temporary directories once every mcec
// has stopped: token files, control sockets, private desktop folders.
func (h *harness) leftFiles() []string {
	var out []string
	for _, pat := range []string{
		filepath.Join(h.run, "mcec", "token-*"), filepath.Join(h.run, "mcec", "control-*"),
		filepath.Join(h.run2, "mcec", "control-*"), filepath.Join(h.tmp, "mcec-desk-*"), filepath.Join(h.tmp, "mcec-*", "*"),
	} {
		m, _ := filepath.Glob(pat)
		out = append(out, m...)
	}
	return out
}

// checkEvidence verifies the hash chain of every session the servers recorded (bounded).
func (h *harness) checkEvidence() {
	dirs, _ := os.ReadDir(h.sessions)
	n, bad := 0, 0
	for _, d := range dirs {
		if !d.IsDir() || n >= 80 {
			continue
		}
		n++
		out, err := exec.Command(h.bin, "bundle", "--verify", filepath.Join(h.sessions, d.Name())).CombinedOutput()
		if err != nil {
			bad++
			h.fail(checkEvidence, "evidence of %s: %v\n%s", d.Name(), err, out)
		}
	}
	h.st.mu.Lock()
	h.st.sessionsVerified, h.st.sessionsBad = n, bad
	h.st.mu.Unlock()
	if n == 0 {
		h.fail(checkEvidence, "no session evidence was recorded")
	}
}

// checkLogs looks for panics and fatal errors in every server's log.
func (h *harness) checkLogs() {
	logs, _ := filepath.Glob(filepath.Join(h.dir, "serve-*.log"))
	for _, l := range logs {
		text := readFile(l)
		for _, bad := range []string{"panic:", "fatal error:", "DATA RACE", "[recovered]"} {
			if i := strings.Index(text, bad); i >= 0 {
				h.fail(checkPanic, "%s: %q\n%.2000s", filepath.Base(l), bad, text[i:])
			}
		}
	}
}
