package soak_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/mcec/mcec/internal/testdesk"
)

// The faults, in the order they are injected (round robin).
var faultNames = []string{"freeze app (SIGSTOP 3 s)", "window closed mid-call", "SIGTERM mcec serve",
	"crash app (SIGKILL) and relaunch", "SIGKILL mcec serve holding Ctrl and button 1", "SIGKILL mcec mcp --headless"}

// faults injects one fault every interval until end.
func (h *harness) faults(ctx context.Context, w *worker, end time.Time) {
	// Most of the window goes to the faults themselves (a restart takes seconds); the rest
	// spreads them out.
	interval := max(time.Until(end)/time.Duration(4*len(faultNames)), 500*time.Millisecond)
	for i := 0; ctx.Err() == nil; i++ {
		pause(ctx, interval)
		if time.Now().After(end) || ctx.Err() != nil {
			return
		}
		name := faultNames[i%len(faultNames)]
		h.logf("fault: %s", name)
		h.st.fault(name)
		switch i % len(faultNames) {
		case 0:
			h.freezeApp(ctx, w)
		case 1:
			h.closeMidCall(ctx, w)
		case 2:
			h.restartServer(syscall.SIGTERM)
		case 3:
			h.crashApp()
		case 4:
			h.restartServer(syscall.SIGKILL)
		case 5:
			h.killOwnStdio()
		}
	}
}

func (h *harness) factoryPID() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.factory
}

// freezeApp stops the factory for 3 s. Meanwhile a tree read of it costs one deadline at most,
// and a call that does not touch it is answered as usual.
func (h *harness) freezeApp(ctx context.Context, w *worker) {
	pid := h.factoryPID()
	if pid == 0 || syscall.Kill(pid, syscall.SIGSTOP) != nil {
		return
	}
	defer syscall.Kill(pid, syscall.SIGCONT)
	var wg sync.WaitGroup
	for _, c := range []call{{"query", `{` + factory + `,"maxDepth":2}`}, {"windows", `{}`}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, callTimeout)
			defer cancel()
			start := time.Now()
			status, b, err := postFacade(cctx, http.DefaultClient, h.base(), h.token(), c.tool, []byte(c.args))
			took := time.Since(start)
			if err == nil && status == http.StatusOK {
				w.done("facade", c.tool, took, b)
				h.st.note("%s of a frozen app answered in %v: %.120s", c.tool, took.Round(time.Millisecond), b)
			}
		}()
	}
	pause(ctx, 3*time.Second)
	_ = syscall.Kill(pid, syscall.SIGCONT)
	wg.Wait()
}

// crashApp kills the factory outright and launches another through the launch tool.
func (h *harness) crashApp() {
	if pid := h.factoryPID(); pid > 0 {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		waitUntil(5*time.Second, func() bool { return len(testdesk.Running([]int{pid})) == 0 })
	}
	h.launchFactory()
}

// closeMidCall starts a window, asks about it from several clients and closes it meanwhile.
func (h *harness) closeMidCall(ctx context.Context, w *worker) {
	cmd := exec.Command("xmessage", "-name", "soakmsg", "-center", "soak: closing mid-call")
	cmd.Env = h.desk.Env()
	if err := cmd.Start(); err != nil {
		h.t.Errorf("xmessage: %v", err)
		return
	}
	h.ownApp(cmd.Process.Pid)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	target := `"pid":` + strconv.Itoa(cmd.Process.Pid)
	// Its window first (bounded), then calls in flight when it goes.
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	_, _, _ = postFacade(cctx, http.DefaultClient, h.base(), h.token(), "windows", []byte(`{"condition":"appears",`+target+`,"timeout":8000}`))
	cancel()
	var wg sync.WaitGroup
	for _, c := range []call{
		{"wait-for", `{` + target + `,"element":{"name":"never"},"timeout":3000}`},
		{"windows", `{"condition":"disappears",` + target + `,"timeout":5000}`},
		{"capture", `{` + target + `,"pathOnly":true}`},
		{"get-text", `{` + target + `,"boxes":"none"}`},
		{"click", `{` + target + `,"at":{"x":3,"y":3},"settle":300}`},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, callTimeout)
			defer cancel()
			start := time.Now()
			status, b, err := postFacade(cctx, http.DefaultClient, h.base(), h.token(), c.tool, []byte(c.args))
			if err == nil && status == http.StatusOK {
				w.done("facade", c.tool, time.Since(start), b)
			}
		}()
	}
	pause(ctx, 300*time.Millisecond)
	_ = cmd.Process.Kill()
	<-done
	wg.Wait()
}

// restartServer stops mcec serve with sig and starts the next incarnation. Before a SIGKILL a
// line client makes it hold Control and the left button: the X server keeps XTEST presses after
// their client dies, and the next mcec must release them.
func (h *harness) restartServer(sig syscall.Signal) {
	end := h.disturb()
	defer end()
	var holder net.Conn
	if sig == syscall.SIGKILL {
		holder = h.holdInput()
	}
	h.stopServer(sig)
	if holder != nil {
		holder.Close()
		if held := h.heldNow(); len(held) > 0 {
			h.st.note("kill -9 of mcec serve while a line client held Ctrl and button 1 left them down: %v", held)
		}
	}
	h.startServer()
	if holder != nil {
		if held := h.heldAllAlong(3 * time.Second); len(held) > 0 {
			h.fail(checkHeld, "the next mcec serve did not release what the killed one held: %v", held)
		} else {
			h.st.note("the next mcec serve released what the killed one held (before serving)")
		}
	}
}

// holdInput has the server hold Control and the left button through the line protocol; it
// returns the connection once they are down (mcec:ver answers after them).
func (h *harness) holdInput() net.Conn {
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(h.tcpPort)), 5*time.Second)
	if err != nil {
		return nil
	}
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := c.Write([]byte("shiftdown:ctrl\r\nmouse:lbd\r\nmcec:ver\r\n")); err != nil {
		c.Close()
		return nil
	}
	if _, err := bufio.NewReader(c).ReadString('\n'); err != nil {
		c.Close()
		return nil
	}
	if len(h.heldNow()) == 0 {
		h.st.note("a line client's shiftdown:ctrl and mouse:lbd showed nothing held on the X server")
	}
	return c
}

// killOwnStdio kills `mcec mcp --headless` outright: its private desktop's processes and
// folder must go by themselves (the watchdog); its client starts another.
func (h *harness) killOwnStdio() {
	own.mu.Lock()
	pid := own.pid
	own.mu.Unlock()
	if pid == 0 || len(testdesk.Running([]int{pid})) == 0 {
		return
	}
	desks, _ := filepath.Glob(filepath.Join(h.tmp, "mcec-desk-*"))
	var pids []int
	for _, d := range desks {
		pids = append(pids, testdesk.DesktopPIDs(pid, d)...)
	}
	end := h.disturb()
	defer end()
	killed := time.Now()
	_ = syscall.Kill(pid, syscall.SIGKILL)
	gone := func() bool {
		if len(testdesk.Running(pids)) > 0 {
			return false
		}
		for _, d := range desks {
			if _, err := os.Lstat(d); err == nil {
				return false
			}
		}
		return true
	}
	// The desktop's watchdog ends it; it scans /proc, which takes seconds on a loaded machine.
	if !waitUntil(45*time.Second, gone) {
		h.fail(checkProcess, "45 s after kill -9 of mcec mcp --headless: still running %v; folders %v", describe(testdesk.Running(pids)), desks)
		return
	}
	h.st.note("kill -9 of mcec mcp --headless: its desktop (%d processes and its folder) was gone %v later", len(pids), time.Since(killed).Round(100*time.Millisecond))
}

// sampler reads mcec serve's resources every 2 s.
func (h *harness) sampler(ctx context.Context, w *worker) {
	for ctx.Err() == nil {
		h.sample()
		pause(ctx, 2*time.Second)
	}
}

func (h *harness) sample() (sample, bool) {
	s := h.current()
	if s == nil {
		return sample{}, false
	}
	rss, threads, fds, ok := procFigures(s.pid)
	if !ok {
		return sample{}, false
	}
	g, _ := goroutines(s.pid)
	sm := sample{when: time.Now(), gen: s.gen, rssKiB: rss, threads: threads, fds: fds, goroutines: g.Goroutines, heapKiB: int(g.HeapAlloc >> 10)}
	h.st.mu.Lock()
	h.st.samples = append(h.st.samples, sm)
	h.st.mu.Unlock()
	return sm, true
}
