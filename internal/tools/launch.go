package tools

import (
	"context"
	"errors"
	"fmt"
	"github.com/mcec/mcec/internal/sysload"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/a11yenv"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/progress"
)

// defaultLaunchTimeout is how long launch waits for the new program's window (PRODUCT.md §4).
const defaultLaunchTimeout = 5000

type launchArgs struct {
	Path             string   `json:"path" jsonschema:"Program to start: a path, or a name looked up on PATH. Never split on spaces."`
	Arguments        []string `json:"arguments,omitempty" jsonschema:"Arguments, one per element."`
	WorkingDirectory string   `json:"workingDirectory,omitempty" jsonschema:"Directory to start in (default: the server's)."`
	Timeout          *int     `json:"timeout,omitempty" jsonschema:"Milliseconds to wait for its window and its accessibility tree (default 5000)."`
}

type launchResult struct {
	// ProcessID and ProcessName are the process that owns the window (soffice.bin, not the
	// oosplash that started it), or the launched process while no window is known.
	ProcessID   int         `json:"processId"`
	ProcessName string      `json:"processName"`
	Handle      uint32      `json:"handle,omitempty"`
	Window      *WindowInfo `json:"window,omitempty"`
	// StartedNewProcess is false when a single-instance application handed off to a running one.
	StartedNewProcess  bool `json:"startedNewProcess"`
	AttachedToExisting bool `json:"attachedToExisting"`
	// WindowTimedOut: the process runs but showed no window within the timeout.
	WindowTimedOut bool `json:"windowTimedOut,omitempty"`
	// Accessible: the window's accessibility tree answered before launch returned.
	Accessible bool `json:"accessible"`
}

func launchTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[launchArgs, launchResult]{
		Name:  "launch",
		Title: "Launch an application",
		Description: "Start a program inside the desktop with the switches that make every toolkit publish its " +
			"accessibility tree, wait for its window and then for its tree (accessible), within the timeout. " +
			"Reports the process that owns the window, or the existing instance a single-instance application " +
			"handed off to (attachedToExisting). Warns tree-not-ready when the tree is still on its way, and " +
			"no-accessible-tree when the program has no accessibility bridge (use capture and pixel input).",
		Annotations: catalog.Annotations{Destructive: true, OpenWorld: true},
		Errors:      []contract.Code{contract.CodeLaunchPathMissing, contract.CodeLaunchFailed, contract.CodeBadArguments, contract.CodeCommandDisabled},
		Warnings:    []contract.Code{contract.WarnTreeNotReady, contract.WarnNoAccessibleTree},
		Run: func(ctx context.Context, call *catalog.Call, in *launchArgs, resp *catalog.Response) (*launchResult, error) {
			return runLaunch(ctx, env, call, in, resp)
		},
	})
}

func runLaunch(ctx context.Context, env *Env, call *catalog.Call, in *launchArgs, resp *catalog.Response) (*launchResult, error) {
	if in.Path == "" {
		return nil, contract.Errorf(contract.CodeLaunchPathMissing, "path is required")
	}
	timeout := defaultLaunchTimeout
	if in.Timeout != nil {
		timeout = *in.Timeout
	}
	if err := checkTimeout(timeout); err != nil {
		return nil, err
	}
	path, err := exec.LookPath(in.Path)
	if err != nil {
		return nil, contract.Errorf(contract.CodeLaunchPathMissing, "%q is not an executable file (or not on PATH): %v", in.Path, err)
	}
	if in.WorkingDirectory != "" {
		if fi, err := os.Stat(in.WorkingDirectory); err != nil || !fi.IsDir() {
			return nil, contract.Errorf(contract.CodeLaunchPathMissing, "workingDirectory %q is not a directory", in.WorkingDirectory)
		}
	}
	// One budget for the window and the tree.
	deadline := time.Now().Add(time.Duration(timeout) * time.Millisecond)
	ctx, stop := progress.Track(ctx, "launching "+path+", waiting for its window and tree", time.Duration(timeout)*time.Millisecond)
	defer stop()
	before, err := env.Desktop.Windows(ctx)
	if err != nil {
		return nil, platformError(err)
	}
	prog := newLaunchedProgram(path)
	cmd := exec.Command(path, in.Arguments...)
	cmd.Dir = in.WorkingDirectory
	exited, err := env.StartProcess(cmd)
	if err != nil {
		return nil, contract.Errorf(contract.CodeLaunchFailed, "start %s: %v", path, err)
	}
	pid := cmd.Process.Pid
	started := time.Now()
	res := launchResult{ProcessID: pid, ProcessName: filepath.Base(path), StartedNewProcess: true}

	var (
		found, splash *platform.Window
		handed        bool
		exitErr       error
		goneAt        time.Time
		last          []platform.Window
	)
	check := func(ctx context.Context) (bool, int, error) {
		if goneAt.IsZero() {
			select {
			case exitErr = <-exited:
				goneAt = time.Now()
			default:
			}
		}
		ws, err := env.Desktop.Windows(ctx)
		if err != nil {
			return false, 0, platformError(err)
		}
		last = ws
		if w := ownWindow(ws, pid); w != nil {
			if w.Type != "splash" {
				found = w
				return true, w.ProcessID, nil
			}
			// A splash screen (LibreOffice's oosplash) comes before the real window, often of
			// another process of the launch (soffice.bin): wait for that one.
			splash = w
		}
		if goneAt.IsZero() {
			if w := unownedWindow(before, ws, prog, time.Since(started) > handOffGrace); w != nil {
				found = w
				return true, pid, nil
			}
			return false, pid, nil
		}
		// It exited without a window of its own: a single-instance hand-off (exit status 0), whose
		// running instance usually opens a new window shortly after, or a failure.
		if exitErr != nil {
			return true, 0, nil
		}
		settle := time.Since(goneAt) > handOffGrace
		if w := handedOff(before, ws, prog, settle); w != nil {
			found, handed = w, true
			return true, w.ProcessID, nil
		}
		return settle, 0, nil
	}
	if _, _, err := waitFor(ctx, env.Desktop, time.Until(deadline), "", check); err != nil {
		return nil, err
	}
	if found == nil && splash != nil && slices.ContainsFunc(last, func(w platform.Window) bool { return w.Handle == splash.Handle }) {
		found = splash // all there is
	}
	gone := !goneAt.IsZero()
	switch {
	case found != nil && handed:
		res.StartedNewProcess, res.AttachedToExisting = false, true
	case found == nil && gone:
		return nil, contract.Errorf(contract.CodeLaunchFailed, "%s exited (%v) before showing a window", path, exitDetail(exitErr))
	case found == nil:
		res.WindowTimedOut = true
	}
	var warnings []contract.Warning
	if found != nil && found.ProcessID == 0 {
		awaitOwner(ctx, env, found, deadline, pid)
	}
	if found != nil {
		seenAt, firstTitle := time.Now(), found.Title
		var warn *contract.Warning
		res.Accessible, warn = awaitTree(ctx, env, found, deadline, handed)
		if warn != nil {
			warnings = append(warnings, *warn)
		}
		if found.Title != firstTitle {
			seenAt = time.Now()
		}
		settleTitle(ctx, env, found, seenAt, deadline)
		info := windowInfo(*found)
		res.Handle, res.Window = found.Handle, &info
		if found.ProcessID != 0 {
			res.ProcessID = found.ProcessID
		}
		if found.ProcessName != "" {
			res.ProcessName = found.ProcessName
		}
		call.Session.SetTarget(info)
	}
	resp.Warnings = warnings
	return &res, nil
}

// A window's first title is often a placeholder ("Blank page" while a browser loads its page, an
// editor's before it names its document): launch reports the title once it has not changed for
// titleQuiet (for a window showing web pages, its tree neither: a page still loading keeps sending
// events) and, for a browser, it names the page shown, at most titleSettle after the window and
// its tree were there.
const (
	titleQuiet  = 250 * time.Millisecond
	titleSettle = 1500 * time.Millisecond
	// browserTitleSettle is titleSettle for a browser, which may show its window seconds before
	// the page (Firefox with a fresh profile on a loaded machine; Epiphany on sway beside two
	// test runs still said "Blank page" after 4 s). Only a window that names no page yet waits
	// this long (longer on a loaded machine: sysload).
	browserTitleSettle = 8 * time.Second
	titlePoll          = 50 * time.Millisecond
	// pageWalkEvery is how often settleTitle looks for a page while it has found none.
	pageWalkEvery = 150 * time.Millisecond
)

// settleTitle re-reads w until its title and its application's tree have been still for
// titleQuiet, counted from since (when w was seen with its present title), at most titleSettle
// from now and never past deadline. A window that closes meanwhile is left as it was.
func settleTitle(ctx context.Context, env *Env, w *platform.Window, since, deadline time.Time) {
	browser := w.ProcessID > 0 && a11yenv.Browser(w.ProcessID)
	// A program that links WebKitGTK is a browser once it runs a web content process, which
	// Epiphany may start after its window maps; zenity never does. Until it does, or until
	// titleSettle has passed, such a window's title is not taken.
	maybeBrowser := !browser && w.ProcessID > 0 && a11yenv.LinksWebKit(w.ProcessID)
	// A loaded machine slows the page's load as much as anything else (Firefox named its window
	// after the page past 8 s beside a second make test).
	settle := sysload.Scale(titleSettle)
	notBrowserBy := time.Now().Add(settle)
	if browser || maybeBrowser {
		settle = sysload.Scale(browserTitleSettle)
	}
	if bound := time.Now().Add(settle); bound.Before(deadline) {
		deadline = bound
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var (
		events   <-chan struct{}
		pages    []string // the names of the web documents the window shows
		loading  bool     // it shows a web document that has no name yet (about:blank)
		looked   bool     // a walk saw the whole window
		walkedAt time.Time
	)
	// Short lean walks, until one finds a page: browsers name their window after the page they
	// show, some (Epiphany) half a second after the page is there. A walk also finds processes
	// plugged into the window (a WebKitGTK page's), whose events the watch then hears too.
	walk := func() {
		if w.ProcessID <= 0 || pages != nil || time.Since(walkedAt) < pageWalkEvery {
			return
		}
		walkedAt = time.Now()
		t, err := env.Desktop.Tree(ctx, *w, platform.TreeLimits{MaxDepth: 8, MaxNodes: 400, Budget: 300 * time.Millisecond, Lean: true})
		if err == nil && !slices.Contains(t.TruncatedBy, platform.LimitTime) {
			pages, loading = pageNames(t.Root)
			looked = true
		}
	}
	walk()
	if w.ProcessID > 0 {
		events, _ = env.Desktop.WatchTree(ctx, w.ProcessID)
	}
	named := func(title string) bool {
		if maybeBrowser {
			if browser = a11yenv.Browser(w.ProcessID); browser {
				maybeBrowser = false
			} else if time.Now().Before(notBrowserBy) {
				return false
			} else {
				maybeBrowser = false
			}
		}
		if len(pages) == 0 {
			// A browser's window before its page is in the tree is named after nothing yet.
			return looked && !loading && !browser || w.ProcessID <= 0
		}
		return slices.ContainsFunc(pages, func(p string) bool { return strings.Contains(title, p) })
	}
	still := since
	tick := time.NewTicker(titlePoll)
	defer tick.Stop()
	for {
		cur, err := env.Desktop.Window(ctx, w.Handle)
		if err != nil {
			return
		}
		if cur.Title != w.Title {
			still = time.Now()
		}
		*w = cur
		walk()
		if time.Since(still) >= titleQuiet && named(cur.Title) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case _, open := <-events:
			if !open {
				events = nil
			}
			// A page still loading keeps sending events; any other application's (a spinner, a
			// progress bar) say nothing of its title, which is watched itself.
			if browser || pages != nil || loading {
				still = time.Now()
			}
		case <-tick.C:
		}
	}
}

// pageNames lists the names of the showing web documents under root, and reports one without a
// name (a page still loading, about:blank).
func pageNames(root *platform.Node) (names []string, unnamed bool) {
	var visit func(*platform.Node)
	visit = func(n *platform.Node) {
		if n.Role == "document web" && n.States["showing"] {
			if n.Name != "" {
				names = append(names, n.Name)
			} else {
				unnamed = true
			}
		}
		for _, k := range n.Children {
			visit(k)
		}
	}
	visit(root)
	return names, unnamed
}

// minTreeWait is the least time launch gives a tree that should be coming, even when the window
// used up the budget: one honest look rather than none.
const minTreeWait = 250 * time.Millisecond

// noBridgeLook is how long launch looks on the bus for the tree of a process whose libraries
// name no accessibility bridge: a toolkit with a bridge of its own (AccessKit's, Flutter's)
// registers shortly after its window maps.
const noBridgeLook = 1500 * time.Millisecond

// awaitTree waits, until deadline, for the accessibility tree of w's application to answer (for
// noBridgeLook only when w's process loads no bridge mcec knows); w is re-read on the way (the
// window manager may have moved it). It reports whether the tree answered and, when not, the warning that says
// whether it is still coming (tree-not-ready) or never will (no-accessible-tree).
func awaitTree(ctx context.Context, env *Env, w *platform.Window, deadline time.Time, handed bool) (bool, *contract.Warning) {
	if w.ProcessID == 0 {
		warn := contract.Warn(contract.WarnNoAccessibleTree, "window %d does not say which process owns it, and no one application on the "+
			"accessibility bus has frames of its title alone, so no accessibility tree can be matched to it: use keys, capture and pixel input "+
			"(click at x,y, get-text), or query again once its application has registered", w.Handle)
		return false, &warn
	}
	bridge, err := a11yenv.ProcessBridge(w.ProcessID)
	who := fmt.Sprintf("%s (pid %d", w.ProcessName, w.ProcessID)
	if bridge.Toolkit != "" {
		who += ", " + bridge.Toolkit
	}
	who += ")"
	noBridge := err == nil && !bridge.Publishes
	check := func(ctx context.Context) (bool, int, error) {
		cur, err := env.Desktop.Window(ctx, w.Handle)
		if err != nil {
			return false, w.ProcessID, platformError(err)
		}
		*w = cur
		_, err = env.Desktop.Tree(ctx, cur, platform.TreeLimits{MaxDepth: 0, MaxNodes: 1})
		if err != nil && !errors.Is(err, platform.ErrFrameAmbiguous) { // ambiguous: the app answered with its frames
			return false, cur.ProcessID, platformError(err)
		}
		return true, cur.ProcessID, nil
	}
	wait := max(time.Until(deadline), minTreeWait)
	if noBridge {
		// The libraries name no bridge; the bus has the last word, after a short look.
		wait = min(wait, noBridgeLook)
	}
	progress.Seen(ctx, fmt.Sprintf("window %q is up; its accessibility tree is not yet", w.Title))
	ok, _, err := waitFor(ctx, env.Desktop, wait, "", check)
	if ok {
		return true, nil
	}
	if noBridge {
		warn := contract.Warn(contract.WarnNoAccessibleTree, "%s published no accessibility tree: %s. Use capture and "+
			"pixel input (click at x,y, get-text)", who, bridge.Hint)
		return false, &warn
	}
	detail := who + ": the window is up, but its accessibility tree did not answer within launch's timeout: not ready " +
		"yet (toolkits such as GTK 4, Qt and Java register after their window maps). Query it again in a moment, or " +
		"launch with a longer timeout"
	var ce *contract.Error
	switch {
	case err == nil:
	case !transient(err):
		// Not a matter of time (the window closed, access denied): say what happened instead.
		detail = who + ": its accessibility tree could not be read: " + err.Error()
	case errors.As(err, &ce) && ce.Code == contract.CodeAppNotResponding:
		detail += "; the application does not answer yet"
	default:
		detail += "; the application is not registered on the accessibility bus yet"
	}
	if handed {
		detail += "; if the running instance was started outside mcec it may lack the accessibility switches (see mcec doctor)"
	}
	warn := contract.Warn(contract.WarnTreeNotReady, "%s", detail)
	return false, &warn
}

// ownWindow finds a window of pid or of one of its descendants, preferring one that is not a
// splash screen.
func ownWindow(ws []platform.Window, pid int) *platform.Window {
	var splash *platform.Window
	for i := range ws {
		if ws[i].ProcessID == pid || descendsFrom(ws[i].ProcessID, pid) {
			if ws[i].Type != "splash" {
				return &ws[i]
			}
			if splash == nil {
				splash = &ws[i]
			}
		}
	}
	return splash
}

// unownedWindow finds the window of a launch where the compositor tells no window's process
// (wlr-foreign-toplevel): a new window without an owner whose application id names the program
// at once, else, once the grace has passed (settle), the only new window without an owner.
func unownedWindow(before, after []platform.Window, prog launchedProgram, settle bool) *platform.Window {
	var fresh []int
	for i, w := range after {
		if w.ProcessID != 0 || w.Type == "splash" || slices.ContainsFunc(before, func(b platform.Window) bool { return b.Handle == w.Handle }) {
			continue
		}
		if prog.related(w) {
			return &after[i]
		}
		fresh = append(fresh, i)
	}
	if settle && len(fresh) == 1 {
		return &after[fresh[0]]
	}
	return nil
}

// awaitOwner waits, until deadline (for noBridgeLook only when the launched process loads no
// accessibility bridge), for w to get its process: where the compositor does not say, it is
// found once the application registers on the accessibility bus (internal/platform/linux).
func awaitOwner(ctx context.Context, env *Env, w *platform.Window, deadline time.Time, launched int) {
	wait := max(time.Until(deadline), minTreeWait)
	if b, err := a11yenv.ProcessBridge(launched); err == nil && !b.Publishes {
		wait = min(wait, noBridgeLook)
	}
	progress.Seen(ctx, fmt.Sprintf("window %q is up; the application that owns it is not yet known", w.Title))
	_, _, _ = waitFor(ctx, env.Desktop, wait, "", func(ctx context.Context) (bool, int, error) {
		cur, err := env.Desktop.Window(ctx, w.Handle)
		if err != nil {
			return false, 0, platformError(err)
		}
		*w = cur
		return cur.ProcessID != 0, cur.ProcessID, nil
	})
}

// handOffGrace is how long launch waits, after a single-instance program handed off and exited,
// for the running instance to open a new window before settling for an existing one.
const handOffGrace = 2 * time.Second

// launchedProgram is what launch knows about the program it started, to recognise the running
// instance a single-instance program hands off to: the launched name and its symlink target's
// (libreoffice → soffice), and the application directory it lives in.
type launchedProgram struct {
	names []string
	// dir is the resolved executable's directory when that is the application's own
	// (/usr/lib/libreoffice/program), not a shared one such as /usr/bin.
	dir string
}

func newLaunchedProgram(path string) launchedProgram {
	p := launchedProgram{names: []string{filepath.Base(path)}}
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return p
	}
	if b := filepath.Base(resolved); !slices.Contains(p.names, b) {
		p.names = append(p.names, b)
	}
	if dir := filepath.Dir(resolved); !sharedBinDir(dir) {
		p.dir = dir
	}
	return p
}

// sharedBinDir reports whether dir holds many unrelated programs: a PATH entry or a system bin
// directory. Two programs there share nothing by living together.
func sharedBinDir(dir string) bool {
	switch dir {
	case "/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/usr/games":
		return true
	}
	return slices.Contains(filepath.SplitList(os.Getenv("PATH")), dir)
}

// related reports whether w belongs to an instance of the launched program: its process has the
// program's name (or that name plus an extension: soffice → soffice.bin), lives in the program's
// application directory, or its WM_CLASS names the program (libreoffice → libreoffice-writer).
func (p launchedProgram) related(w platform.Window) bool {
	var exe string
	if w.ProcessID > 0 {
		exe, _ = os.Readlink(fmt.Sprintf("/proc/%d/exe", w.ProcessID))
	}
	if p.dir != "" && exe != "" && filepath.Dir(exe) == p.dir {
		return true
	}
	for _, n := range p.names {
		for _, got := range []string{w.ProcessName, filepath.Base(exe)} {
			if got != "" && (strings.EqualFold(got, n) || strings.EqualFold(stem(got), n)) {
				return true
			}
		}
		if c := w.ClassName; c != "" && (strings.EqualFold(c, n) || len(c) > len(n) && strings.EqualFold(c[:len(n)+1], n+"-")) {
			return true
		}
	}
	return false
}

// stem is an executable name without its extension (soffice.bin → soffice).
func stem(name string) string {
	if i := strings.IndexByte(name, '.'); i > 0 {
		return name[:i]
	}
	return name
}

// handedOff finds the window a single-instance app showed or raised for us. A new window of an
// instance of the program (related) is the answer at once. Otherwise, once the grace has
// passed (settle), an existing window of an instance (the active one first: the app raised it),
// else the only window that appeared during the launch.
func handedOff(before, after []platform.Window, prog launchedProgram, settle bool) *platform.Window {
	isFresh := func(w platform.Window) bool {
		return !slices.ContainsFunc(before, func(b platform.Window) bool { return b.Handle == w.Handle })
	}
	var related, unrelatedFresh []int
	for i, w := range after {
		switch {
		case w.Type == "splash":
		case prog.related(w):
			related = append(related, i)
		case isFresh(w):
			unrelatedFresh = append(unrelatedFresh, i)
		}
	}
	for _, i := range slices.Backward(related) {
		if isFresh(after[i]) {
			return &after[i]
		}
	}
	if !settle {
		return nil
	}
	for _, i := range related {
		if after[i].Focused {
			return &after[i]
		}
	}
	if len(related) > 0 {
		return &after[related[len(related)-1]]
	}
	if len(unrelatedFresh) == 1 {
		return &after[unrelatedFresh[0]]
	}
	return nil
}

// descendsFrom reports whether pid is a descendant of ancestor, following /proc parent links.
func descendsFrom(pid, ancestor int) bool {
	for i := 0; i < 32 && pid > 1; i++ {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return false
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 2 {
			return false
		}
		ppid, err := strconv.Atoi(fields[1])
		if err != nil {
			return false
		}
		if ppid == ancestor {
			return true
		}
		pid = ppid
	}
	return false
}

func exitDetail(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		var said interface{ LastStderr() string }
		if errors.As(err, &said) {
			return ee.ProcessState.String() + "; its last words on stderr: " + said.LastStderr()
		}
		return ee.ProcessState.String()
	}
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}
