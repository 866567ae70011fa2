package tasks_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/headless"
	"github.com/mcec/mcec/internal/suitedesk"
)

type obj = map[string]any

// task is one scripted, multi-step job an agent would be given, on a real application, with an
// independent read-back of its outcome.
type task struct {
	name    string
	toolkit string
	app     string // what runs, for the report
	goal    string // the job, in the words an agent would be given it
	short   bool   // part of the quick subset `go test ./...` (make test) runs
	// desktop is the kind of private desktop the task runs on ("": X11).
	desktop headless.Kind
	// toplevels drives the (sway) desktop as a wlroots compositor without sway's IPC is driven
	// (daemon.Config.WaylandToplevels).
	toplevels bool
	// xwayland starts the (sway) desktop with Xwayland, for X11-only programs (Options.XWayland).
	xwayland bool
	// setup prepares what the app needs before the first step (a profile, a served page); it
	// runs outside the counted calls. Optional.
	setup func(x *run) error
	// steps are the tool calls, in order, an agent would make. Built when the task starts, so
	// they can name the task's own paths (x.dir).
	steps func(x *run) []step
	// check reads the outcome back without asking mcec (a file the app wrote, the app's own
	// state file, a page's submission to the test's server, OCR run by the test on its own
	// screen grab). It is polled until it returns nil or checkTimeout passes.
	check func(x *run) error
}

const checkTimeout = 10 * time.Second

// step is one tool call. String values "$name" anywhere in args are replaced by the variable
// name, saved by an earlier step from its result.
type step struct {
	tool string
	args obj
	// argsFn computes the arguments from the variables (coordinates from an element's bounds).
	argsFn func(v vars) (obj, error)
	// save stores parts of the result: variable name -> dotted path ("element.ref", "windows.0").
	save map[string]string
	// want is what an agent checks in the result before going on (found, a value); nil: ok is
	// enough.
	want func(res any) error
	// retry repeats the call (every 300 ms, each call counted) while it fails or want rejects
	// it, for up to this long: an agent reading pixels looks again when the window has not
	// painted yet. 0: one call.
	retry time.Duration
}

type vars map[string]any

// num reads a number variable's field by dotted path.
func (v vars) num(path string) (float64, error) {
	x, err := lookup(map[string]any(v), path)
	if err != nil {
		return 0, err
	}
	f, ok := x.(float64)
	if !ok {
		return 0, fmt.Errorf("%s is %T %v, not a number", path, x, x)
	}
	return f, nil
}

// run is one task being run on its own desktop.
type run struct {
	t    *testing.T
	k    *desk
	task *task
	dir  string // the task's own directory (state files, saved documents, profiles)
	vars vars
	// web is the task's form server, when setup started one.
	web *formServer
}

func (x *run) path(name string) string { return filepath.Join(x.dir, name) }

// statePath is the app's own state file (the test apps take it as an argument).
func (x *run) statePath() string { return x.path("state.json") }

// state reads the app's state file.
func (x *run) state() (map[string]any, error) {
	b, err := os.ReadFile(x.statePath())
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("state file %s: %v", b, err)
	}
	return m, nil
}

// stateIs checks the app's state file holds want (numbers compare as float64).
func (x *run) stateIs(want obj) error {
	m, err := x.state()
	if err != nil {
		return err
	}
	for k, w := range want {
		if g := m[k]; fmt.Sprint(g) != fmt.Sprint(w) {
			return fmt.Errorf("the app's state has %s=%v, want %v (state %v)", k, g, w, m)
		}
	}
	return nil
}

// outcome is what one task run gave, for the verdict and the report.
type outcome struct {
	passed    bool
	failure   string // the step or check that failed, with the envelope
	falseOK   bool   // every call answered ok, yet the read-back disagrees
	calls     []call
	took      time.Duration
	startedAt time.Time
}

// execute runs the task's steps and its check on x's desktop.
func (x *run) execute() (o outcome) {
	began := time.Now()
	o.startedAt = began
	defer func() {
		o.took = time.Since(began)
		x.k.mu.Lock()
		o.calls = append([]call(nil), x.k.calls...)
		x.k.mu.Unlock()
	}()
	if x.task.setup != nil {
		if err := x.task.setup(x); err != nil {
			o.failure = "setup: " + err.Error()
			return o
		}
		began = time.Now()
	}
	for i, s := range x.task.steps(x) {
		if err := x.do(s); err != nil {
			o.failure = fmt.Sprintf("step %d (%s): %v", i+1, s.tool, err)
			return o
		}
	}
	var last error
	ok := waitUntil(checkTimeout, func() bool { last = x.task.check(x); return last == nil })
	if !ok {
		o.failure = "read-back: " + last.Error()
		o.falseOK = true
		return o
	}
	o.passed = true
	return o
}

// do runs one step, again while it fails within its retry time.
func (x *run) do(s step) error {
	deadline := time.Now().Add(s.retry)
	tick := time.NewTicker(300 * time.Millisecond)
	defer tick.Stop()
	for {
		err := x.once(s)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		<-tick.C
	}
}

// once runs one step once: the call, the agent's own check of its answer, the saved variables.
func (x *run) once(s step) error {
	args := s.args
	if s.argsFn != nil {
		var err error
		if args, err = s.argsFn(x.vars); err != nil {
			return fmt.Errorf("arguments: %v", err)
		}
	}
	args, err := substitute(args, x.vars)
	if err != nil {
		return err
	}
	env := x.k.call(s.tool, args)
	raw, _ := json.Marshal(args)
	if !env.OK() {
		return fmt.Errorf("%s %s → %s", s.tool, raw, x.k.lastText())
	}
	var res any
	if err := env.DecodeResult(&res); err != nil {
		return fmt.Errorf("%s: result does not decode: %v", s.tool, err)
	}
	if s.tool == "launch" {
		for _, p := range []string{"processId", "window.processId"} {
			if pid, err := lookup(res, p); err == nil {
				if f, ok := pid.(float64); ok {
					x.k.own(int(f))
				}
			}
		}
	}
	if s.want != nil {
		if err := s.want(res); err != nil {
			return fmt.Errorf("%s %s answered ok, but %v → %s", s.tool, raw, err, x.k.lastText())
		}
	}
	for name, p := range s.save {
		v, err := lookup(res, p)
		if err != nil {
			return fmt.Errorf("%s %s: save %s: %v → %s", s.tool, raw, name, err, x.k.lastText())
		}
		x.vars[name] = v
	}
	return nil
}

// lastText is the last call's envelope, cut for messages.
func (k *desk) lastText() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.calls) == 0 {
		return ""
	}
	s := k.calls[len(k.calls)-1].text
	if len(s) > 1500 {
		s = s[:1500] + "…"
	}
	return s
}

// substitute replaces "$name" strings in args by variables.
func substitute(args obj, v vars) (obj, error) {
	out, err := subst(args, v)
	if err != nil {
		return nil, err
	}
	m, _ := out.(obj)
	return m, nil
}

func subst(a any, v vars) (any, error) {
	switch a := a.(type) {
	case obj:
		out := obj{}
		for k, x := range a {
			y, err := subst(x, v)
			if err != nil {
				return nil, err
			}
			out[k] = y
		}
		return out, nil
	case []any:
		out := make([]any, len(a))
		for i, x := range a {
			y, err := subst(x, v)
			if err != nil {
				return nil, err
			}
			out[i] = y
		}
		return out, nil
	case string:
		if name, ok := strings.CutPrefix(a, "$"); ok && name != "" {
			val, err := lookup(map[string]any(v), name)
			if err != nil {
				return nil, fmt.Errorf("variable %s: %v", a, err)
			}
			return val, nil
		}
	}
	return a, nil
}

// lookup follows a dotted path ("element.ref", "windows.0.handle") into decoded JSON.
func lookup(v any, path string) (any, error) {
	cur := v
	for _, part := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[part]
			if !ok {
				return nil, fmt.Errorf("no %q in %s", part, short(c))
			}
			cur = next
		case vars:
			next, ok := c[part]
			if !ok {
				return nil, fmt.Errorf("no variable %q", part)
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("no element %s in a list of %d", part, len(c))
			}
			cur = c[i]
		default:
			return nil, errors.New("path " + path + " goes through a " + fmt.Sprintf("%T", cur))
		}
	}
	return cur, nil
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}

// TestMain gives the apps a home of their own (suitedesk.Main): Terminology writes its
// configuration there and shows its first-run wizard to a fresh one.
func TestMain(m *testing.M) { os.Exit(suitedesk.Main(m)) }
