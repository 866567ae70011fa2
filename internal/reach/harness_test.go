package reach_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/daemon/daemontest"
	"github.com/mcec/mcec/internal/headless"
	"github.com/mcec/mcec/internal/suitedesk"
)

// TestMain gives the apps a home of their own (suitedesk.Main).
func TestMain(m *testing.M) { os.Exit(suitedesk.Main(m)) }

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
	procs         suitedesk.Procs // processes to stop at the end, by PID
}

func newDesk(t *testing.T, kind headless.Kind) *desk {
	t.Helper()
	k := &desk{t: t, d: suitedesk.StartKind(t, kind)}
	// Registered after the daemon's Close, so it runs first: the apps go before their desktop.
	t.Cleanup(func() { k.procs.StopAll(t) })
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
	daemontest.CheckOutput(k.t, k.d.Dispatcher.Catalog(), tool, env)
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
		daemontest.CheckOutput(k.t, k.d.Dispatcher.Catalog(), tool, env)
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

// own registers a process to stop by PID when the test ends.
func (k *desk) own(pid int) { k.procs.Own(pid) }

func alive(pid int) bool { return suitedesk.Alive(pid) }

func waitUntil(timeout time.Duration, cond func() bool) bool {
	return suitedesk.WaitUntil(timeout, cond)
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

// outline renders a small tree on one line, for failure messages: role "name" (children).
func (n *node) outline() string {
	if n == nil {
		return "<nil>"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %q", n.Role, n.Name)
	if n.IsOffscreen {
		b.WriteString(" offscreen")
	}
	if len(n.Children) > 0 {
		b.WriteString(" (")
		for i, c := range n.Children {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(c.outline())
		}
		b.WriteString(")")
	}
	return b.String()
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
