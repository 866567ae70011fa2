package reach_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/sysload"
)

// run is one app on its own desktop, and what the suite learnt about it.
type run struct {
	t   *testing.T
	k   *desk
	a   *app
	res *results

	pid int    // the process that owns the main window
	win window // the main window
}

// has reports whether the app's table lists c.
func (r *run) has(c check) bool {
	return slices.ContainsFunc(r.a.table, func(e expectation) bool { return e.check == c })
}

// rec records c's outcome if the app's table lists it.
func (r *run) rec(c check, ok bool, format string, args ...any) {
	if r.has(c) {
		r.res.record(c, ok, format, args...)
	}
}

// stretched is a wait's timeout in milliseconds, stretched with the machine's load as mcec's own
// budgets are (sysload): beside a second make test, one look at Calc's tree took over 10 s.
func stretched(d time.Duration) int64 { return sysload.Scale(d).Milliseconds() }

func (r *run) main() map[string]any { return map[string]any{"handle": r.win.Handle} }

func (r *run) with(args map[string]any) map[string]any {
	out := r.main()
	for k, v := range args {
		out[k] = v
	}
	return out
}

// start launches the app through the launch tool and waits for its main window.
func (r *run) start() bool {
	path, args := r.a.argv[0], r.a.argv[1:]
	env, _ := r.k.call("launch", map[string]any{"path": path, "arguments": args, "timeout": r.a.launchTimeout})
	var lr launchResult
	ok, why := decode(env, &lr)
	if ok {
		r.k.own(lr.ProcessID)
		r.res.launchedPID = lr.ProcessID
		switch {
		case lr.WindowTimedOut || lr.Window == nil:
			r.rec(cLaunch, false, "launch: no window within %d ms: %+v", r.a.launchTimeout, lr)
		case lr.Window.ProcessID != lr.ProcessID:
			r.rec(cLaunch, false, "launch: processId %d, but the window %q belongs to pid %d", lr.ProcessID, lr.Window.Title, lr.Window.ProcessID)
		case r.a.settledTitle && !strings.Contains(lr.Window.Title, r.a.title):
			r.rec(cLaunch, false, "launch: window %q, not the title it settles on (%q)", lr.Window.Title, r.a.title)
		default:
			r.rec(cLaunch, true, "launch: pid %d, window %q", lr.ProcessID, lr.Window.Title)
		}
	} else {
		r.rec(cLaunch, false, "launch failed: %s", why)
	}
	// The main window, by title (a splash screen or a loading page may have come first).
	env, _ = r.k.call("windows", map[string]any{"window": r.a.title, "condition": "appears", "timeout": stretched(40 * time.Second)})
	var wr windowsResult
	if ok, why := decode(env, &wr); !ok || wr.Count == 0 {
		r.t.Errorf("the main window %q never appeared: %s %+v", r.a.title, why, wr)
		return false
	}
	r.win = wr.Windows[0]
	r.pid = r.win.ProcessID
	if r.pid == 0 {
		r.pid = r.res.launchedPID
	}
	r.k.own(r.pid)
	r.res.windowPID = r.pid
	return true
}

// waitTree waits until the main window's tree shows the named element (GTK 4 registers on the
// bus seconds after its window maps), within the budget an agent would give it.
func (r *run) waitTree(sel map[string]any) bool {
	env, took := r.k.call("wait-for", r.with(map[string]any{"element": sel, "timeout": stretched(30 * time.Second)}))
	var fr findResult
	if ok, why := decode(env, &fr); !ok || !fr.Found {
		r.rec(cTree, false, "wait-for %v (%d ms): %s", sel, stretched(30*time.Second), why)
		return false
	}
	r.t.Logf("tree ready after %v", took.Round(time.Millisecond))
	return true
}

// defaultQuery is the query an agent runs first: defaults only. It records the tree and depth
// checks and the report's measurements.
func (r *run) defaultQuery(mustReach ...string) *node {
	env, took := r.k.call("query", r.main())
	var q queryResult
	ok, why := decode(env, &q)
	r.res.queryMS = took.Milliseconds()
	if !ok || q.Tree == nil {
		r.rec(cTree, false, "default query: %s", why)
		r.rec(cDepth, false, "default query: %s", why)
		return nil
	}
	r.res.nodes, r.res.truncated = q.NodeCount, q.Truncated
	root := q.Tree
	title := strings.TrimSpace(r.a.title)
	switch {
	case q.Window.Handle != r.win.Handle:
		r.rec(cTree, false, "query answered for window %d %q, not %d", q.Window.Handle, q.Window.Title, r.win.Handle)
	case !slices.Contains([]string{"frame", "window", "dialog", "filler"}, root.Role): // Qt: a QWidget top level is a filler
		r.rec(cTree, false, "root is %s, not a frame", root)
	case !strings.Contains(strings.ToLower(root.Name), strings.ToLower(title)):
		r.rec(cTree, false, "root %s is not named like the window %q", root, r.win.Title)
	case q.NodeCount < 5:
		r.rec(cTree, false, "a skeleton tree: %d nodes (root %s: %s) %s", q.NodeCount, root, root.outline(), describe(env))
	default:
		r.rec(cTree, true, "%d nodes in %d ms", q.NodeCount, took.Milliseconds())
	}
	var missing []string
	for _, name := range mustReach {
		if root.named(name) == nil && root.first(func(n *node) bool { return n.Role == name }) == nil {
			missing = append(missing, name)
		}
	}
	switch {
	case len(mustReach) == 0: // the tree never showed the app's controls: waitTree recorded why
	case len(missing) > 0:
		r.rec(cDepth, false, "default query (%d nodes, truncated=%v) misses %q %s", q.NodeCount, q.Truncated, missing, describe(env))
	default:
		r.rec(cDepth, true, "default query reaches %q", mustReach)
	}
	return root
}

// deepQuery reads the whole main window (or another window).
func (r *run) deepQuery(handle uint32) (*node, contract.Envelope) {
	env, _ := r.k.call("query", map[string]any{"handle": handle, "maxDepth": 60, "maxNodes": 5000})
	var q queryResult
	if ok, _ := decode(env, &q); !ok {
		return nil, env
	}
	return q.Tree, env
}

// find looks an element up in the main window; nil when it fails or misses.
func (r *run) find(sel map[string]any) (*node, string) {
	env, _ := r.k.call("find", r.with(map[string]any{"element": sel}))
	var fr findResult
	if ok, why := decode(env, &fr); !ok {
		return nil, why
	}
	if !fr.Found {
		return nil, "not found (" + describe(env) + ")" // its warnings say whether the walk was cut
	}
	return fr.Element, ""
}

// control is one named control of the app and what its role should be.
type control struct {
	sel   map[string]any
	roles []string // acceptable AT-SPI roles
	value *string  // the text it shows, when it is a text field
	noBox bool     // has no bounds by design (e.g. a closed menu's item)
}

// controls finds each control and records names, roles, bounds and values.
func (r *run) controls(cs []control) map[string]*node {
	found := map[string]*node{}
	for _, c := range cs {
		key := fmt.Sprint(c.sel)
		n, why := r.find(c.sel)
		if n == nil {
			r.rec(cNames, false, "find %s: %s", key, why)
			continue
		}
		found[key] = n
		r.rec(cNames, true, "controls found by name")
		if slices.Contains(c.roles, n.Role) {
			r.rec(cRoles, true, "roles as expected")
		} else {
			r.rec(cRoles, false, "%s has role %q, want one of %q", key, n.Role, c.roles)
		}
		if !c.noBox {
			r.bounds(key, n)
		}
		if c.value != nil {
			if n.Value != nil && *n.Value == *c.value {
				r.rec(cValues, true, "value reads back %q", *c.value)
			} else {
				r.rec(cValues, false, "%s: want value %q, got %s", key, *c.value, n)
			}
		}
	}
	return found
}

// bounds records whether n has a sensible rectangle inside the main window.
func (r *run) bounds(what string, n *node) {
	const slack = 4
	w := r.win
	switch {
	case n.X == nil || n.Width == nil:
		r.rec(cBounds, false, "%s: no bounds (%s)", what, n)
	case *n.Width <= 0 || *n.Height <= 0:
		r.rec(cBounds, false, "%s: empty bounds %s", what, n)
	case *n.X == 0 && *n.Y == 0:
		r.rec(cBounds, false, "%s: at 0,0: %s", what, n)
	case *n.X < w.X-slack || *n.Y < w.Y-slack || *n.X+*n.Width > w.X+w.Width+slack || *n.Y+*n.Height > w.Y+w.Height+slack:
		r.rec(cBounds, false, "%s: %s outside the window %d,%d %dx%d", what, n, w.X, w.Y, w.Width, w.Height)
	default:
		r.rec(cBounds, true, "bounds inside the window")
	}
}

// invoke acts on an element of the main window (or of the window in args).
func (r *run) invoke(sel map[string]any, action, text string) (contract.Envelope, bool) {
	args := r.with(map[string]any{"element": sel, "action": action})
	if text != "" {
		args["text"] = text
	}
	env, _ := r.k.call("invoke", args)
	return env, env.OK()
}

// poll re-reads until cond holds or timeout passes; it returns the last reading.
func poll[T any](timeout time.Duration, read func() T, cond func(T) bool) (T, bool) {
	var last T
	ok := waitUntil(timeout, func() bool {
		last = read()
		return cond(last)
	})
	return last, ok
}

// treeShows polls deep queries of the main window until pred accepts the tree.
func (r *run) treeShows(timeout time.Duration, pred func(*node) bool) (*node, bool) {
	return poll(timeout, func() *node { n, _ := r.deepQuery(r.win.Handle); return n },
		func(n *node) bool { return n != nil && pred(n) })
}

// mainTitle polls the main window's title until it contains s.
func (r *run) mainTitle(timeout time.Duration, s string) (string, bool) {
	return poll(timeout, func() string {
		env, _ := r.k.call("windows", map[string]any{"pid": r.pid})
		var wr windowsResult
		if ok, _ := decode(env, &wr); ok {
			for _, w := range wr.Windows {
				if w.Handle == r.win.Handle {
					return w.Title
				}
			}
		}
		return ""
	}, func(t string) bool { return strings.Contains(t, s) })
}

// capture records whether the window's capture is not blank.
func (r *run) capture() {
	// A window that has just mapped may not have painted yet: a few tries within 3 s.
	var cr captureResult
	env, _ := poll(3*time.Second, func() contract.Envelope {
		env, _ := r.k.call("capture", r.with(map[string]any{"pathOnly": true}))
		return env
	}, func(env contract.Envelope) bool { return env.OK() })
	if ok, why := decode(env, &cr); !ok {
		r.rec(cCapture, false, "capture: %s", why)
		return
	}
	r.rec(cCapture, !cr.BlankCheck.Blank && cr.Width > 0,
		"capture %dx%d, dominant colour %.3f", cr.Width, cr.Height, cr.BlankCheck.DominantFraction)
}

// dialogWindow waits for a window of the app whose title contains title.
func (r *run) dialogWindow(title string) (window, bool) {
	env, _ := r.k.call("windows", map[string]any{"window": title, "condition": "appears", "timeout": stretched(15 * time.Second)})
	var wr windowsResult
	if ok, _ := decode(env, &wr); !ok || wr.Count == 0 {
		return window{}, false
	}
	return wr.Windows[0], true
}

// dialogTrees records the dialog checks: the dialog's query shows the dialog (its root named like
// the dialog window, dialogMark in it, mainMark not), and the main window's query shows the main
// window (mainMark in it, dialogMark not).
func (r *run) dialogTrees(dlg window, dialogMark, mainMark string) {
	d, env := r.deepQuery(dlg.Handle)
	switch {
	case d == nil:
		r.rec(cDialog, false, "query of the dialog %q: %s", dlg.Title, describe(env))
	case !strings.Contains(d.Name, dlg.Title) && !(d.Role == "dialog" && d.hasText(dialogMark)):
		r.rec(cDialog, false, "query of dialog %d %q returned the tree of %s (%s)", dlg.Handle, dlg.Title, d, describe(env))
	case dialogMark != "" && !d.hasText(dialogMark):
		r.rec(cDialog, false, "the dialog's tree (root %s) lacks %q", d, dialogMark)
	case d.hasText(mainMark):
		r.rec(cDialog, false, "the dialog's tree (root %s) holds the main window's %q", d, mainMark)
	default:
		r.rec(cDialog, true, "dialog %q: root %s", dlg.Title, d)
	}
	m, env := r.deepQuery(r.win.Handle)
	switch {
	case m == nil:
		r.rec(cMainDialog, false, "query of the main window with the dialog open: %s", describe(env))
	case !m.hasText(mainMark):
		r.rec(cMainDialog, false, "query of the main window %d with the dialog open returned %s, without %q", r.win.Handle, m, mainMark)
	case dialogMark != "" && m.hasText(dialogMark):
		r.rec(cMainDialog, false, "the main window's tree (root %s) holds the dialog's %q", m, dialogMark)
	default:
		r.rec(cMainDialog, true, "main window: root %s", m)
	}
}

// closeDialog closes dlg: its button when it has one by that name, else Escape on it; it waits
// until the window is gone.
func (r *run) closeDialog(dlg window, button string) {
	if button != "" {
		r.k.call("invoke", map[string]any{"handle": dlg.Handle, "element": map[string]any{"name": button, "role": "push button"}})
	}
	gone := func() bool {
		env, _ := r.k.call("windows", map[string]any{"window": dlg.Title, "condition": "disappears", "timeout": stretched(3 * time.Second)})
		var wr windowsResult
		ok, _ := decode(env, &wr)
		return ok && wr.Satisfied != nil && *wr.Satisfied
	}
	if gone() {
		return
	}
	r.k.call("focus", map[string]any{"handle": dlg.Handle})
	r.k.call("send_command", map[string]any{"command": "escape"})
	if !gone() {
		r.t.Logf("the dialog %q did not close", dlg.Title)
	}
}

// survive makes 20 mixed calls and records whether the app lived through them (and through
// the whole run) without any call failing app-not-responding. probe is an element the calls
// look for; act is what invoke does (nil: no invoke calls).
func (r *run) survive(probe map[string]any, act map[string]any) {
	type step struct {
		tool string
		args map[string]any
	}
	steps := []step{
		{"query", r.main()},
		{"find", r.with(map[string]any{"element": probe})},
		// Survival, not speed, is checked here (find-cell and query-budget bound the time): a
		// loaded CI machine once took over 3 s for one look at Calc's 2,000 objects.
		{"wait-for", r.with(map[string]any{"element": probe, "timeout": stretched(10 * time.Second)})},
		{"capture", r.with(map[string]any{"pathOnly": true})},
		{"windows", map[string]any{"pid": r.pid}},
	}
	if act != nil {
		steps = append(steps, step{"invoke", r.with(map[string]any{"element": act})})
	}
	var failed, other []string
	for i := range 20 {
		s := steps[i%len(steps)]
		env, _ := r.k.call(s.tool, s.args)
		noteFailure(env, fmt.Sprintf("#%d %s", i+1, s.tool), &failed, &other)
	}
	r.k.mu.Lock()
	hung := slices.Clone(r.k.notResponding)
	r.k.mu.Unlock()
	switch {
	case !alive(r.pid):
		r.rec(cSurvive, false, "the app (pid %d) is gone; failed calls: %q", r.pid, failed)
	case len(hung) > 0:
		r.rec(cSurvive, false, "calls failed app-not-responding: %q", hung)
	case len(failed) > 0:
		r.rec(cSurvive, false, "of 20 mixed calls %d failed: %q", len(failed), failed)
	default:
		r.rec(cSurvive, true, "20 mixed calls, pid %d alive (%d calls in the run)%s", r.pid, r.k.calls, otherFailures(other))
	}
}

// noteFailure sorts a failed call: one that says the app is harmed or the call broke (timeout,
// internal) goes to failed; one that other checks cover (a blank capture, a selector) to other.
func noteFailure(env contract.Envelope, what string, failed, other *[]string) {
	e := env.Err()
	if e == nil {
		return
	}
	s := what + ": " + describe(env)
	if e.Category == contract.Timeout || e.Category == contract.Internal || e.Code == contract.CodeAppNotResponding {
		*failed = append(*failed, s)
	} else {
		*other = append(*other, s)
	}
}

func otherFailures(other []string) string {
	if len(other) == 0 {
		return ""
	}
	return fmt.Sprintf("; %d calls failed otherwise (covered by other checks), first: %s", len(other), other[0])
}

// surviveNoTree is survive for an app without a tree: observation and pixel calls only; query
// must keep failing no-accessible-tree, never harm the app.
func (r *run) surviveNoTree() {
	var failed, other []string
	for i := range 20 {
		var env contract.Envelope
		switch i % 4 {
		case 0:
			env, _ = r.k.call("windows", map[string]any{"pid": r.pid})
		case 1:
			env, _ = r.k.call("capture", r.with(map[string]any{"pathOnly": true}))
		case 2:
			env, _ = r.k.call("query", r.main())
			if e := env.Err(); e != nil && e.Code == contract.CodeNoAccessibleTree {
				continue
			}
		case 3:
			env, _ = r.k.call("find", r.with(map[string]any{"element": map[string]any{"name": "Greet"}}))
			if e := env.Err(); e != nil && e.Code == contract.CodeNoAccessibleTree {
				continue
			}
		}
		noteFailure(env, fmt.Sprintf("#%d", i+1), &failed, &other)
	}
	switch {
	case !alive(r.pid):
		r.rec(cSurvive, false, "the app (pid %d) is gone", r.pid)
	case len(failed) > 0:
		r.rec(cSurvive, false, "of 20 mixed calls %d failed: %q", len(failed), failed)
	default:
		r.rec(cSurvive, true, "20 mixed calls, pid %d alive%s", r.pid, otherFailures(other))
	}
}

// noTree records whether query fails clearly for an app without a bridge.
func (r *run) noTree() {
	env, _ := r.k.call("query", r.main())
	e := env.Err()
	r.rec(cNoTree, e != nil && e.Category == contract.NoTarget && e.Code == contract.CodeNoAccessibleTree,
		"query: %s", describe(env))
}

// pidCheck records whether the main window has its process's pid and windows finds it by pid.
func (r *run) pidCheck() {
	if r.win.ProcessID <= 0 {
		r.rec(cPID, false, "window %d %q has no pid (processId %d, processName %q)", r.win.Handle, r.win.Title, r.win.ProcessID, r.win.ProcessName)
		return
	}
	env, _ := r.k.call("windows", map[string]any{"pid": r.win.ProcessID})
	var wr windowsResult
	ok, why := decode(env, &wr)
	r.rec(cPID, ok && slices.ContainsFunc(wr.Windows, func(w window) bool { return w.Handle == r.win.Handle }),
		"pid %d (%s): windows by pid: %s %d windows", r.win.ProcessID, r.win.ProcessName, why, wr.Count)
}

// measure fills the report's columns: toolkit version from the bus, the switches the app ran
// with, and the a11y bus's status flags.
func (r *run) measure() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if apps, err := r.k.d.Desktop.Apps(ctx); err == nil {
		for _, a := range apps {
			if a.PID == r.pid || (r.res.launchedPID != 0 && a.PID == r.res.launchedPID) {
				r.res.version = strings.TrimSpace(a.Toolkit + " " + a.ToolkitVersion)
				break
			}
		}
	}
	r.res.switches = switches(r.pid)
	r.res.statusFlags = a11yStatus(r.k.d.Private.DBusAddress())
}

// a11yVars are the environment variables that switch toolkits' accessibility on (or off).
var a11yVars = []string{"GNOME_ACCESSIBILITY", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "QT_ACCESSIBILITY",
	"ACCESSIBILITY_ENABLED", "GTK_A11Y", "NO_AT_BRIDGE", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "MOZ_ACCESSIBILITY", "GTK_MODULES",
	"ELM_ATSPI_MODE"}

// switches lists the a11y variables in pid's environment and the a11y flags on its command line.
func switches(pid int) []string {
	var out []string
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid)); err == nil {
		for _, kv := range strings.Split(string(b), "\x00") {
			k, v, _ := strings.Cut(kv, "=")
			if slices.Contains(a11yVars, k) {
				if strings.Contains(v, "AtkWrapper") {
					v = "…AtkWrapper"
				}
				out = append(out, k+"="+v)
			}
		}
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
		// strings.Fields too: Chromium rewrites its argv into one space-joined string.
		for _, arg := range strings.Fields(strings.ReplaceAll(string(b), "\x00", " ")) {
			if strings.Contains(strings.ToLower(arg), "accessib") {
				out = append(out, arg)
			}
		}
	}
	slices.Sort(out)
	return out
}

// a11yStatus reads org.a11y.Status IsEnabled and ScreenReaderEnabled on the session bus.
func a11yStatus(address string) string {
	conn, err := dbus.Connect(address)
	if err != nil {
		return "?"
	}
	defer conn.Close()
	obj := conn.Object("org.a11y.Bus", "/org/a11y/bus")
	var parts []string
	for _, p := range []string{"IsEnabled", "ScreenReaderEnabled"} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		var v dbus.Variant
		err := obj.CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0, "org.a11y.Status", p).Store(&v)
		cancel()
		if err != nil {
			parts = append(parts, p+"=?")
			continue
		}
		parts = append(parts, fmt.Sprintf("%s=%v", p, v.Value()))
	}
	return strings.Join(parts, " ")
}
