package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/platform"
)

// defaultLaunchTimeout is how long launch waits for the new program's window (PRODUCT.md §4).
const defaultLaunchTimeout = 5000

type launchArgs struct {
	Path             string   `json:"path" jsonschema:"Program to start: a path, or a name looked up on PATH. Never split on spaces."`
	Arguments        []string `json:"arguments,omitempty" jsonschema:"Arguments, one per element."`
	WorkingDirectory string   `json:"workingDirectory,omitempty" jsonschema:"Directory to start in (default: the server's)."`
	Timeout          *int     `json:"timeout,omitempty" jsonschema:"Milliseconds to wait for its window (default 5000)."`
}

type launchResult struct {
	ProcessID   int         `json:"processId"`
	ProcessName string      `json:"processName"`
	Handle      uint32      `json:"handle,omitempty"`
	Window      *WindowInfo `json:"window,omitempty"`
	// StartedNewProcess is false when a single-instance application handed off to a running one.
	StartedNewProcess  bool `json:"startedNewProcess"`
	AttachedToExisting bool `json:"attachedToExisting"`
	// WindowTimedOut: the process runs but showed no window within the timeout.
	WindowTimedOut bool `json:"windowTimedOut,omitempty"`
}

func launchTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[launchArgs]{
		Name:  "launch",
		Title: "Launch an application",
		Description: "Start a program inside the desktop with the environment that makes toolkits expose their " +
			"accessibility trees, and wait for its window. Reports the window, or the existing instance a " +
			"single-instance application handed off to (attachedToExisting).",
		Annotations: catalog.Annotations{Destructive: true, OpenWorld: true},
		Result:      launchResult{},
		Errors:      []contract.Code{contract.CodeLaunchPathMissing, contract.CodeLaunchFailed, contract.CodeBadArguments, contract.CodeCommandDisabled},
		Run: func(ctx context.Context, call *catalog.Call, in *launchArgs) (*catalog.Response, error) {
			return runLaunch(ctx, env, call, in)
		},
	})
}

func runLaunch(ctx context.Context, env *Env, call *catalog.Call, in *launchArgs) (*catalog.Response, error) {
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
	before, err := env.Desktop.Windows(ctx)
	if err != nil {
		return nil, platformError(err)
	}
	cmd := exec.Command(path, in.Arguments...)
	cmd.Dir = in.WorkingDirectory
	exited, err := env.StartProcess(cmd)
	if err != nil {
		return nil, contract.Errorf(contract.CodeLaunchFailed, "start %s: %v", path, err)
	}
	pid := cmd.Process.Pid
	res := launchResult{ProcessID: pid, ProcessName: filepath.Base(path), StartedNewProcess: true}

	var (
		found   *platform.Window
		exitErr error
		goneAt  time.Time
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
		if w := ownWindow(ws, pid); w != nil {
			found = w
			return true, pid, nil
		}
		if goneAt.IsZero() {
			return false, pid, nil
		}
		// It exited without a window of its own: a single-instance hand-off (exit status 0), whose
		// running instance usually opens a new window shortly after, or a failure.
		if exitErr != nil {
			return true, 0, nil
		}
		w, fresh := handedOff(before, ws, filepath.Base(path))
		if w != nil && (fresh || time.Since(goneAt) > handOffGrace) {
			found = w
			return true, w.ProcessID, nil
		}
		return time.Since(goneAt) > handOffGrace, 0, nil
	}
	if _, _, err := waitFor(ctx, env.Desktop, time.Duration(timeout)*time.Millisecond, check); err != nil {
		return nil, err
	}
	gone := !goneAt.IsZero()
	switch {
	case found != nil && found.ProcessID != pid && gone:
		res.StartedNewProcess, res.AttachedToExisting = false, true
		res.ProcessID, res.ProcessName = found.ProcessID, found.ProcessName
	case found == nil && gone:
		return nil, contract.Errorf(contract.CodeLaunchFailed, "%s exited (%v) before showing a window", path, exitDetail(exitErr))
	case found == nil:
		res.WindowTimedOut = true
	}
	if found != nil {
		info := windowInfo(*found)
		res.Handle, res.Window = found.Handle, &info
		if found.ProcessName != "" {
			res.ProcessName = found.ProcessName
		}
		call.Session.SetTarget(info)
	}
	return &catalog.Response{Result: res}, nil
}

// ownWindow finds a window of pid or of one of its descendants.
func ownWindow(ws []platform.Window, pid int) *platform.Window {
	for i := range ws {
		if ws[i].ProcessID == pid || descendsFrom(ws[i].ProcessID, pid) {
			return &ws[i]
		}
	}
	return nil
}

// handOffGrace is how long launch waits, after a single-instance program handed off and exited,
// for the running instance to open a new window before settling for an existing one.
const handOffGrace = time.Second

// handedOff finds the window a single-instance app showed or raised for us: one of a process
// with the program's name, preferring a window that is new (fresh), then the active one.
func handedOff(before, after []platform.Window, name string) (w *platform.Window, fresh bool) {
	var candidates []platform.Window
	for _, w := range after {
		if strings.EqualFold(w.ProcessName, name) {
			candidates = append(candidates, w)
		}
	}
	for i, w := range candidates {
		if !slices.ContainsFunc(before, func(b platform.Window) bool { return b.Handle == w.Handle }) {
			return &candidates[i], true
		}
	}
	for i, w := range candidates {
		if w.Focused {
			return &candidates[i], false
		}
	}
	if len(candidates) > 0 {
		return &candidates[len(candidates)-1], false
	}
	return nil, false
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
		return ee.ProcessState.String()
	}
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}
