package tools_test

import (
	"bufio"
	"io"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/sysload"
	"github.com/mcec/mcec/internal/testdesk"
)

// testApp is testdata/app.py, driven through its stdin.
type testApp struct {
	*testdesk.Proc
	in   io.Writer
	acks *bufio.Scanner
	mu   sync.Mutex
}

func startTestApp(t *testing.T) *testApp {
	t.Helper()
	p := testdesk.StartPiped(t, "/usr/bin/python3", "testdata/app.py")
	a := &testApp{Proc: p, in: p.Stdin, acks: bufio.NewScanner(p.Stdout)}
	testdesk.WaitWindow(t, p.PID, 20*time.Second)
	testdesk.WaitAccessible(t, p.PID, 20*time.Second)
	return a
}

// send gives the app a command and waits for its acknowledgement.
func (a *testApp) send(t *testing.T, cmd string) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, err := io.WriteString(a.in, cmd+"\n"); err != nil {
		t.Fatal(err)
	}
	for a.acks.Scan() {
		if a.acks.Text() == "ok "+cmd {
			return
		}
	}
	t.Fatalf("app did not acknowledge %q", cmd)
}

type findRes struct {
	Found   bool  `json:"found"`
	Element *node `json:"element"`
	Window  *window
	Waited  *struct {
		WaitedMs     int64 `json:"waitedMs"`
		Checks       int   `json:"checks"`
		EventWakeups int   `json:"eventWakeups"`
	} `json:"waited"`
}

func TestFind(t *testing.T) {
	h := newHarness(t)
	p := startFactory(t)
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{"pid": p.PID}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}

	t.Run("unique name resolves", func(t *testing.T) {
		h.t = t
		var r findRes
		h.ok("find", with(map[string]any{"element": map[string]any{"by": "name", "value": "Page 2"}}), &r)
		if !r.Found || r.Element.Name != "Page 2" || r.Element.Ref == "" || r.Window == nil || r.Window.ProcessID != p.PID {
			t.Fatalf("find Page 2: %+v", r)
		}
	})
	t.Run("ambiguous name lists candidates", func(t *testing.T) {
		h.t = t
		e := contracttest.Fail(t, h.call("find", with(map[string]any{"element": map[string]any{"name": "checkbutton"}})),
			contract.AmbiguousSelector, contract.SelectorMatched(6))
		if strings.Count(e.Detail, "ref=") != 5 || !strings.Contains(e.Detail, "more") {
			t.Errorf("detail does not list the first candidates: %s", e.Detail)
		}
	})
	t.Run("index picks one", func(t *testing.T) {
		h.t = t
		var a, b findRes
		h.ok("find", with(map[string]any{"element": map[string]any{"name": "checkbutton", "index": 0}}), &a)
		h.ok("find", with(map[string]any{"element": map[string]any{"name": "checkbutton", "index": 5}}), &b)
		if !a.Found || !b.Found || a.Element.Ref == b.Element.Ref {
			t.Fatalf("index 0 %+v, index 5 %+v", a.Element, b.Element)
		}
	})
	t.Run("role accepts controlType and raw role", func(t *testing.T) {
		h.t = t
		for _, role := range []string{"RadioButton", "radio button"} {
			var r findRes
			h.ok("find", with(map[string]any{"element": map[string]any{"role": role, "name": "Page 3"}}), &r)
			if !r.Found {
				t.Errorf("role %q did not match", role)
			}
		}
	})
	t.Run("miss is ok", func(t *testing.T) {
		h.t = t
		var r findRes
		h.ok("find", with(map[string]any{"element": map[string]any{"name": "no such control"}}), &r)
		if r.Found || r.Element != nil {
			t.Fatalf("miss: %+v", r)
		}
	})
	t.Run("ref from query resolves without search", func(t *testing.T) {
		h.t = t
		var q struct{ Tree *node }
		h.ok("query", with(map[string]any{"maxDepth": 30, "maxNodes": 5000}), &q)
		var ref string
		q.Tree.walk(func(n *node) {
			if n.Name == "Page 3" {
				ref = n.Ref
			}
		})
		var r findRes
		h.ok("find", map[string]any{"element": map[string]any{"ref": ref}}, &r)
		if !r.Found || r.Element.Name != "Page 3" || r.Element.Ref != ref {
			t.Fatalf("ref %s: %+v", ref, r)
		}
	})
	t.Run("malformed selectors", func(t *testing.T) {
		h.t = t
		for _, el := range []map[string]any{{}, {"by": "name"}, {"by": "title", "value": "x"}, {"value": "x"}, {"name": "x", "index": -1}} {
			contracttest.Fail(t, h.call("find", with(map[string]any{"element": el})), contract.InvalidArgument, contract.CodeBadArguments)
		}
		contracttest.Fail(t, h.call("find", with(nil)), contract.InvalidArgument, contract.CodeBadArguments)
		contracttest.Fail(t, h.call("find", map[string]any{"element": map[string]any{"ref": "not a ref"}}), contract.InvalidArgument, contract.CodeBadArguments)
	})
}

func TestWaitForDialog(t *testing.T) {
	h := newHarness(t)
	app := startTestApp(t)
	target := map[string]any{"window": "mcec test dialog", "element": map[string]any{"name": "Close"}, "timeout": 10000}

	pending := h.callAsync("wait-for", target)
	// Let the wait take its first look (the dialog is not there), then open the dialog.
	time.Sleep(300 * time.Millisecond) // gives the waiter time to start; the assertion is on the event path, not on time
	opened := time.Now()
	app.send(t, "dialog")
	env := contracttest.Check(t, <-pending)
	var r findRes
	if !env.OK() || env.DecodeResult(&r) != nil || !r.Found || r.Element.Name != "Close" {
		t.Fatalf("wait-for: %+v %+v", env.Err(), r)
	}
	if r.Waited == nil || r.Waited.EventWakeups == 0 {
		t.Fatalf("the wait was not woken by an event: %+v", r.Waited)
	}
	t.Logf("returned %v after the dialog was requested; %+v", time.Since(opened), *r.Waited)

	// disappears: closing the dialog satisfies it, through the stale ref too.
	pending = h.callAsync("wait-for", map[string]any{"element": map[string]any{"ref": r.Element.Ref}, "condition": "disappears", "timeout": 10000})
	app.send(t, "close")
	if env := contracttest.Check(t, <-pending); !env.OK() {
		t.Fatalf("disappears: %+v", env.Err())
	}

	// A ref to the closed dialog's button is stale.
	contracttest.Fail(t, h.call("find", map[string]any{"element": map[string]any{"ref": r.Element.Ref}}),
		contract.StaleElement, contract.CodeElementStale)
}

func TestWaitForTimeout(t *testing.T) {
	h := newHarness(t)
	p := startFactory(t)
	h.ok("windows", map[string]any{"pid": p.PID}, nil) // a last observation for the failure to carry
	start := time.Now()
	env := h.call("wait-for", map[string]any{"pid": p.PID, "element": map[string]any{"name": "never there"}, "timeout": 1500})
	e := contracttest.Fail(t, env, contract.Timeout, contract.CodeWaitConditionTimeout)
	if el := time.Since(start); el < 1500*time.Millisecond || el > 8*time.Second {
		t.Errorf("returned after %v for a 1500 ms timeout", el)
	}
	if e.LastObservation == nil || !strings.Contains(e.Detail, "last seen") {
		t.Errorf("no lastObservation or no last-seen detail: %s", e.Detail)
	}
	contracttest.Fail(t, h.call("wait-for", map[string]any{"pid": p.PID, "element": map[string]any{"name": "x"}, "condition": "shiny"}),
		contract.InvalidArgument, contract.CodeUnknownCondition)
	contracttest.Fail(t, h.call("wait-for", map[string]any{"pid": p.PID, "element": map[string]any{"name": "x"}, "condition": "value"}),
		contract.InvalidArgument, contract.CodeBadArguments)
}

func TestWindowsWait(t *testing.T) {
	h := newHarness(t)
	type winRes struct {
		Condition           string   `json:"condition"`
		Satisfied           bool     `json:"satisfied"`
		Count               int      `json:"count"`
		WaitedFor           *int64   `json:"waitedFor"`
		LastObservedWindows []window `json:"lastObservedWindows"`
	}
	decode := func(b []byte) winRes {
		t.Helper()
		var r winRes
		if env := contracttest.Check(t, b); !env.OK() || env.DecodeResult(&r) != nil {
			t.Fatalf("windows wait: %s", b)
		}
		return r
	}
	pending := h.callAsync("windows", map[string]any{"className": "xmessage", "condition": "appears", "timeout": 15000})
	time.Sleep(200 * time.Millisecond) // let the wait start first; the test asserts the outcome, not the timing
	p := testdesk.Start(t, "xmessage", "-name", "mcec-wait", "hello")
	if r := decode(<-pending); !r.Satisfied || r.Count != 1 {
		t.Fatalf("appears: %+v", r)
	}
	pending = h.callAsync("windows", map[string]any{"className": "xmessage", "condition": "disappears", "timeout": 15000})
	_ = syscall.Kill(p.PID, syscall.SIGTERM)
	if r := decode(<-pending); !r.Satisfied || r.Count != 0 {
		t.Fatalf("disappears: %+v", r)
	}

	var r winRes
	h.ok("windows", map[string]any{"window": "never such a window", "timeout": 300}, &r)
	if r.Satisfied || r.WaitedFor == nil || r.LastObservedWindows == nil {
		t.Fatalf("timed-out wait: %+v", r)
	}
	contracttest.Fail(t, h.call("windows", map[string]any{"timeout": 100}), contract.InvalidArgument, contract.CodeWindowsNoCriteria)
	contracttest.Fail(t, h.call("windows", map[string]any{"window": "x", "condition": "sideways"}), contract.InvalidArgument, contract.CodeUnknownCondition)
}

// TestHungApp proves the deadline: a stopped app costs one deadline, and another app still answers.
func TestHungApp(t *testing.T) {
	h := newHarness(t)
	factory := startFactory(t)
	app := startTestApp(t)
	if err := syscall.Kill(app.PID, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(app.PID, syscall.SIGCONT)

	other := h.callAsync("query", map[string]any{"pid": factory.PID, "maxDepth": 3})
	start := time.Now()
	env := h.call("query", map[string]any{"pid": app.PID})
	elapsed := time.Since(start)
	contracttest.Fail(t, env, contract.Timeout, contract.CodeAppNotResponding)
	if limit := sysload.Scale(5 * time.Second); elapsed > limit { // deadlines stretch with the load
		t.Errorf("a hung app cost %v (more than %v)", elapsed, limit)
	}
	if env := contracttest.Check(t, <-other); !env.OK() {
		t.Fatalf("a concurrent query of another app failed: %+v", env.Err())
	}
}
