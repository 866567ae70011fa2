package reach_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/safety"
)

// desk is one toolkit's private desktop: a daemon on a headless display, as `mcec serve
// --headless` would run it, driven through its dispatcher like an MCP client would.
type desk struct {
	t *testing.T
	d *daemon.Daemon

	mu sync.Mutex
	// calls counts every tool call; notResponding lists the calls that failed
	// app-not-responding (an app harmed or wedged by mcec).
	calls         int
	notResponding []string
	pids          []int // processes to stop at the end, by PID
}

func newDesk(t *testing.T) *desk {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	d, err := daemon.Start(ctx, daemon.Config{Headless: true, SessionsDir: t.TempDir(),
		Safety: safety.Settings{AllowAll: true}, NoConsentDialog: true})
	if err != nil {
		t.Fatalf("daemon on a private desktop: %v", err)
	}
	if d.Private == nil {
		t.Fatal("the daemon attached to a desktop instead of starting its own")
	}
	k := &desk{t: t, d: d}
	t.Cleanup(func() { d.Close() })
	// Registered after the daemon's Close, so it runs first: the apps go before their desktop.
	t.Cleanup(k.stopAll)
	return k
}

// call runs one tool, validates the envelope against the contract's schema and returns it with
// its duration. A dispatcher error (not an envelope) fails the test: it is a protocol failure.
func (k *desk) call(tool string, args any) (contract.Envelope, time.Duration) {
	k.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		k.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	start := time.Now()
	out, err := k.d.Dispatcher.Call(ctx, tool, raw)
	took := time.Since(start)
	if err != nil {
		k.t.Fatalf("%s %s: %v", tool, raw, err)
	}
	env := contracttest.Check(k.t, contracttest.CheckEnvelope(k.t, out.Envelope))
	k.note(tool, raw, env)
	return env, took
}

// callAsync runs one tool on another goroutine; wait validates its envelope on the test goroutine.
func (k *desk) callAsync(tool string, args any) (wait func() contract.Envelope) {
	raw, err := json.Marshal(args)
	if err != nil {
		k.t.Fatal(err)
	}
	type answer struct {
		env contract.Envelope
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		out, err := k.d.Dispatcher.Call(ctx, tool, raw)
		ch <- answer{out.Envelope, err}
	}()
	return func() contract.Envelope {
		k.t.Helper()
		a := <-ch
		if a.err != nil {
			k.t.Fatalf("%s %s: %v", tool, raw, a.err)
		}
		env := contracttest.Check(k.t, contracttest.CheckEnvelope(k.t, a.env))
		k.note(tool, raw, env)
		return env
	}
}

func (k *desk) note(tool string, raw []byte, env contract.Envelope) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.calls++
	if e := env.Err(); e != nil && e.Code == contract.CodeAppNotResponding {
		k.notResponding = append(k.notResponding, fmt.Sprintf("%s %s: %s", tool, raw, describe(env)))
	}
}

// own registers a process to stop by PID when the test ends (the daemon also stops what it
// started at Close; this covers processes a launched program handed its window to).
func (k *desk) own(pid int) {
	if pid <= 1 || pid == os.Getpid() {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, p := range k.pids {
		if p == pid {
			return
		}
	}
	k.pids = append(k.pids, pid)
}

// stopAll ends the owned processes: SIGTERM, then SIGKILL after a grace, each by PID (and its
// process group when it leads one, as every process launch starts does).
func (k *desk) stopAll() {
	k.mu.Lock()
	pids := k.pids
	k.mu.Unlock()
	signal := func(sig syscall.Signal) {
		for _, pid := range pids {
			if pgid, err := syscall.Getpgid(pid); err == nil && pgid == pid {
				_ = syscall.Kill(-pid, sig)
			}
			_ = syscall.Kill(pid, sig)
		}
	}
	allGone := func() bool {
		for _, pid := range pids {
			if alive(pid) {
				return false
			}
		}
		return true
	}
	signal(syscall.SIGTERM)
	if !waitUntil(3*time.Second, allGone) {
		signal(syscall.SIGKILL)
		if !waitUntil(5*time.Second, allGone) {
			k.t.Errorf("processes %v still running after SIGKILL", pids)
		}
	}
}

// alive reports whether pid runs (a zombie waiting for its reaper counts as gone).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// waitUntil polls cond every 25 ms until it holds or timeout passes; it reports whether it held.
func waitUntil(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		<-tick.C
	}
}

// describe renders an envelope's outcome for failure messages: the error (category/code:
// detail) or "ok", with warning codes.
func describe(env contract.Envelope) string {
	var b strings.Builder
	if e := env.Err(); e != nil {
		d := e.Detail
		if len(d) > 300 {
			d = d[:300] + "…"
		}
		fmt.Fprintf(&b, "%s/%s: %s", e.Category, e.Code, d)
	} else {
		b.WriteString("ok")
	}
	for _, w := range env.Warnings() {
		fmt.Fprintf(&b, " [warning %s]", w.Code)
	}
	return b.String()
}

type window struct {
	Handle      uint32   `json:"handle"`
	Title       string   `json:"title"`
	ClassName   string   `json:"className"`
	ProcessName string   `json:"processName"`
	ProcessID   int      `json:"processId"`
	X           int      `json:"x"`
	Y           int      `json:"y"`
	Width       int      `json:"width"`
	Height      int      `json:"height"`
	State       []string `json:"state"`
}

type node struct {
	Ref         string   `json:"ref"`
	ControlType string   `json:"controlType"`
	Role        string   `json:"role"`
	Name        string   `json:"name"`
	X           *int     `json:"x"`
	Y           *int     `json:"y"`
	Width       *int     `json:"width"`
	Height      *int     `json:"height"`
	IsOffscreen bool     `json:"isOffscreen"`
	IsEnabled   bool     `json:"isEnabled"`
	Value       *string  `json:"value"`
	ToggleState string   `json:"toggleState"`
	Actions     []string `json:"actions"`
	Children    []*node  `json:"children"`
}

func (n *node) walk(f func(*node)) {
	if n == nil {
		return
	}
	f(n)
	for _, c := range n.Children {
		c.walk(f)
	}
}

// first is the first node (depth first) that pred accepts, or nil.
func (n *node) first(pred func(*node) bool) *node {
	var hit *node
	n.walk(func(c *node) {
		if hit == nil && pred(c) {
			hit = c
		}
	})
	return hit
}

func (n *node) named(name string) *node {
	return n.first(func(c *node) bool { return c.Name == name })
}

// hasText reports whether some node's name or value contains s.
func (n *node) hasText(s string) bool {
	return n.first(func(c *node) bool {
		return strings.Contains(c.Name, s) || (c.Value != nil && strings.Contains(*c.Value, s))
	}) != nil
}

func (n *node) String() string {
	if n == nil {
		return "<nil>"
	}
	s := fmt.Sprintf("%s %q", n.Role, n.Name)
	if n.X != nil && n.Width != nil {
		s += fmt.Sprintf(" @%d,%d %dx%d", *n.X, *n.Y, *n.Width, *n.Height)
	} else {
		s += " (no bounds)"
	}
	if n.Value != nil {
		s += fmt.Sprintf(" value=%q", *n.Value)
	}
	if n.ToggleState != "" {
		s += " toggle=" + n.ToggleState
	}
	return s
}

type queryResult struct {
	Window    window `json:"window"`
	NodeCount int    `json:"nodeCount"`
	Truncated bool   `json:"truncated"`
	Tree      *node  `json:"tree"`
}

type findResult struct {
	Found   bool    `json:"found"`
	Element *node   `json:"element"`
	Window  *window `json:"window"`
}

type launchResult struct {
	ProcessID          int     `json:"processId"`
	ProcessName        string  `json:"processName"`
	Handle             uint32  `json:"handle"`
	Window             *window `json:"window"`
	StartedNewProcess  bool    `json:"startedNewProcess"`
	AttachedToExisting bool    `json:"attachedToExisting"`
	WindowTimedOut     bool    `json:"windowTimedOut"`
}

type windowsResult struct {
	Count     int      `json:"count"`
	Windows   []window `json:"windows"`
	Satisfied *bool    `json:"satisfied"`
}

type captureResult struct {
	Width      int `json:"width"`
	Height     int `json:"height"`
	BlankCheck struct {
		Blank            bool    `json:"blank"`
		DominantFraction float64 `json:"dominantFraction"`
	} `json:"blankCheck"`
}

// decode reads a successful envelope's result into v; it reports false (and why) on failure.
func decode(env contract.Envelope, v any) (bool, string) {
	if !env.OK() {
		return false, describe(env)
	}
	if err := env.DecodeResult(v); err != nil {
		return false, "result does not decode: " + err.Error()
	}
	return true, ""
}
