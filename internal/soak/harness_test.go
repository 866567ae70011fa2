package soak_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/control"
	"github.com/mcec/mcec/internal/headless"
	"github.com/mcec/mcec/internal/testdesk"
)

// harness is one soak run: the binary, a private desktop the suite owns (so its applications
// and its X server outlive every mcec it kills), the current `mcec serve` attached to it, and the
// figures.
type harness struct {
	t        *testing.T
	bin      string
	dir      string // everything the run writes
	run      string // XDG_RUNTIME_DIR of mcec serve (token files, control sockets)
	run2     string // XDG_RUNTIME_DIR of the stdio server with a desktop of its own
	tmp      string // TMPDIR of every mcec (private desktop folders)
	sessions string // MCEC_SESSIONS_DIR
	desk     *headless.Desktop
	deadline time.Time // the end of the load
	port     int       // HTTP, the same for every incarnation
	tcpPort  int       // the line protocol's

	mu      sync.Mutex
	srv     *server   // the current mcec serve
	servers []*server // every incarnation
	apps    []int     // application pids the suite started or launched (stopped by PID at the end)
	factory int       // the current gtk3-widget-factory

	// unstable counts faults in progress that make transport errors expected (a server being
	// stopped and started again); calmAt is when the last one ended.
	unstable atomic.Int32
	calmAt   atomic.Int64

	st *stats
}

// server is one incarnation of mcec serve.
type server struct {
	gen     int
	cmd     *exec.Cmd
	pid     int
	log     string
	done    chan struct{}
	err     error
	started time.Time
	ready   time.Time
	token   string
}

func newHarness(t *testing.T) *harness {
	// A short root: the private desktops' sockets live under TMPDIR.
	dir, err := os.MkdirTemp("", "soak")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("soak files kept in %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	h := &harness{t: t, dir: dir, st: newStats()}
	for _, d := range []*string{&h.run, &h.run2, &h.tmp, &h.sessions} {
		*d, err = os.MkdirTemp(dir, "")
		if err != nil {
			t.Fatal(err)
		}
	}
	// control.ReadToken and control.Find look where mcec serve writes.
	t.Setenv("XDG_RUNTIME_DIR", h.run)
	if h.bin, err = testdesk.BuildMcec(dir); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if h.desk, err = headless.Start(ctx, headless.Options{}); err != nil {
		t.Fatalf("private desktop: %v", err)
	}
	t.Cleanup(func() { h.desk.Stop() })
	t.Cleanup(h.stopApps) // before the desktop goes (cleanups run last first)
	h.port, h.tcpPort = testdesk.FreePort(t), testdesk.FreePort(t)
	return h
}

func (h *harness) logf(format string, args ...any) {
	h.t.Logf("%s "+format, append([]any{time.Now().Format("15:04:05.000")}, args...)...)
}

// env is the environment of an mcec the suite starts: the desktop's, with its own runtime,
// temporary and sessions directories, and no token or server from the caller's shell.
func (h *harness) env(runtime string) []string {
	var out []string
	for _, kv := range h.desk.Env() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "MCEC_") || k == "XDG_RUNTIME_DIR" || k == "TMPDIR" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "XDG_RUNTIME_DIR="+runtime, "TMPDIR="+h.tmp, "MCEC_SESSIONS_DIR="+h.sessions, "MCEC_LOG_LEVEL=warn")
}

// base is the HTTP server's URL.
func (h *harness) base() string { return "http://127.0.0.1:" + strconv.Itoa(h.port) }

// token is the current server's token, from its token file (as mcec call reads it).
func (h *harness) token() string { return control.ReadToken(h.port) }

// current is the serving incarnation (nil between a stop and the next start).
func (h *harness) current() *server {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.srv
}

// startServer starts an incarnation of mcec serve attached to the suite's desktop, with every
// tool and the line protocol on, and waits until its façade answers with its token.
func (h *harness) startServer() *server {
	h.t.Helper()
	h.mu.Lock()
	gen := len(h.servers)
	h.mu.Unlock()
	logPath := filepath.Join(h.dir, fmt.Sprintf("serve-%d.log", gen))
	logf, err := os.Create(logPath)
	if err != nil {
		h.t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(h.bin, "serve", "--allow-all", "--no-consent-dialog", "--port", strconv.Itoa(h.port),
		"--tcp", "--tcp-port", strconv.Itoa(h.tcpPort))
	cmd.Env = h.env(h.run)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Killed with the suite if the suite dies; stopped by PID otherwise.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	s := &server{gen: gen, cmd: cmd, log: logPath, done: make(chan struct{}), started: time.Now()}
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	s.pid = cmd.Process.Pid
	go func() { s.err = cmd.Wait(); close(s.done) }()
	h.t.Cleanup(func() {
		_ = syscall.Kill(s.pid, syscall.SIGKILL) // a no-op once reaped
		<-s.done
	})
	deadline := time.Now().Add(45 * time.Second)
	for {
		if tok := h.token(); tok != "" {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			status, _, err := postFacade(ctx, http.DefaultClient, h.base(), tok, "session-status", []byte(`{}`))
			cancel()
			if err == nil && status == http.StatusOK {
				s.token = tok
				break
			}
		}
		select {
		case <-s.done:
			h.t.Fatalf("mcec serve (incarnation %d) exited at start: %v\n%s", gen, s.err, readFile(logPath))
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("mcec serve (incarnation %d) did not serve within 45 s\n%s", gen, readFile(logPath))
		}
	}
	s.ready = time.Now()
	h.mu.Lock()
	h.srv = s
	h.servers = append(h.servers, s)
	h.mu.Unlock()
	h.logf("mcec serve incarnation %d is pid %d, serving after %v", gen, s.pid, s.ready.Sub(s.started).Round(time.Millisecond))
	if gen == 0 {
		h.launchFactory()
	}
	return s
}

// stopServer ends the current incarnation with sig and waits for it; a SIGTERM must end it
// cleanly (exit 0) within 15 s. Whatever it started that is not an application (the suite's
// launches are the user's on an attached desktop and outlive it) must be gone 10 s later.
// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(len(lines)-n, 0):], "\n")
}

func (h *harness) stopServer(sig syscall.Signal) {
	h.mu.Lock()
	s := h.srv
	h.srv = nil
	h.mu.Unlock()
	if s == nil {
		return
	}
	children := testdesk.ChildPIDs(s.pid)
	if err := syscall.Kill(s.pid, sig); err != nil {
		h.fail(checkProcess, "signal %v to mcec serve: %v", sig, err)
	}
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		// SIGQUIT makes the Go runtime write every goroutine's stack to the log and exit: what
		// it was waiting on is the finding.
		_ = syscall.Kill(s.pid, syscall.SIGQUIT)
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(s.pid, syscall.SIGKILL)
			<-s.done
		}
		h.fail(checkProcess, "mcec serve (incarnation %d) did not exit within 15 s of %v; its log ends:\n%s", s.gen, sig, tail(readFile(s.log), 400))
	}
	if sig == syscall.SIGTERM {
		if s.err != nil {
			h.fail(checkProcess, "mcec serve (incarnation %d) after SIGTERM: %v (want a clean exit)", s.gen, s.err)
		}
	}
	h.mu.Lock()
	apps := slices.Clone(h.apps)
	h.mu.Unlock()
	var mine []int
	for _, c := range children {
		if !slices.Contains(apps, c) {
			mine = append(mine, c)
		}
	}
	if !waitUntil(10*time.Second, func() bool { return len(testdesk.Running(mine)) == 0 }) {
		h.fail(checkProcess, "after %v of mcec serve (incarnation %d): its processes %v still run", sig, s.gen, describe(testdesk.Running(mine)))
	}
}

// launchFactory starts gtk3-widget-factory through the launch tool (it is the user's on an
// attached desktop: the suite stops it by PID at the end).
func (h *harness) launchFactory() {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		s := h.current()
		if s == nil {
			return
		}
		status, body, err := postFacade(ctx, http.DefaultClient, h.base(), s.token, "launch",
			[]byte(`{"path":"gtk3-widget-factory","timeout":20000}`))
		if err == nil && status == http.StatusOK {
			var env struct {
				OK     bool `json:"ok"`
				Result struct {
					ProcessID int `json:"processId"`
				} `json:"result"`
			}
			if jsonUnmarshal(body, &env) == nil && env.OK && env.Result.ProcessID > 0 {
				h.mu.Lock()
				h.factory = env.Result.ProcessID
				h.apps = append(h.apps, env.Result.ProcessID)
				h.mu.Unlock()
				return
			}
			h.logf("launch gtk3-widget-factory: %s", body)
		}
		time.Sleep(time.Second) // the server is restarting; retried under ctx's deadline
	}
	h.t.Error("gtk3-widget-factory could not be launched within 40 s")
}

// over reports whether the load is over (a dial may fail on the deadline a moment before ctx
// reports it).
func (h *harness) over(ctx context.Context) bool {
	return ctx.Err() != nil || !time.Now().Before(h.deadline)
}

// ownApp records a pid the suite must stop at the end.
func (h *harness) ownApp(pid int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if pid > 1 && !slices.Contains(h.apps, pid) {
		h.apps = append(h.apps, pid)
	}
}

// stopApps ends every application the suite started, by PID (SIGCONT first: one may be frozen).
func (h *harness) stopApps() {
	h.mu.Lock()
	apps := slices.Clone(h.apps)
	h.mu.Unlock()
	for _, p := range apps {
		_ = syscall.Kill(p, syscall.SIGCONT)
		_ = syscall.Kill(p, syscall.SIGTERM)
	}
	if !waitUntil(5*time.Second, func() bool { return len(testdesk.Running(apps)) == 0 }) {
		for _, p := range testdesk.Running(apps) {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
}

// describe names pids with their command lines, for failure messages.
func describe(pids []int) []string {
	var out []string
	for _, p := range pids {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		out = append(out, fmt.Sprintf("%d %s", p, strings.ReplaceAll(strings.TrimRight(string(cmd), "\x00"), "\x00", " ")))
	}
	return out
}

// waitUntil polls cond every 50 ms until it holds or d has passed.
func waitUntil(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}

func readFile(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// procFigures reads pid's resident memory (KiB), threads and open descriptors from /proc.
func procFigures(pid int) (rssKiB, threads, fds int, ok bool) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		switch k {
		case "VmRSS":
			rssKiB, _ = strconv.Atoi(fields[0])
		case "Threads":
			threads, _ = strconv.Atoi(fields[0])
		}
	}
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return 0, 0, 0, false
	}
	return rssKiB, threads, len(ents), true
}

// goroutines asks the server's control socket (an operator-only op) for its goroutine count
// and live heap (after a collection).
func goroutines(pid int) (control.Stats, bool) {
	paths, _ := filepath.Glob(filepath.Join(controlDir(), fmt.Sprintf("control-%d-*.sock", pid)))
	if len(paths) != 1 {
		return control.Stats{}, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var st control.Stats
	if err := control.Call(ctx, paths[0], control.OpStats, control.StatsArgs{GC: true}, &st); err != nil {
		return control.Stats{}, false
	}
	return st, true
}

func controlDir() string { return control.Dir() }

// rng is a worker's random source, seeded per worker so runs differ but stay explainable.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(time.Now().UnixNano())))
}
