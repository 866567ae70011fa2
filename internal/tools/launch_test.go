package tools_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/safety"
	"github.com/mcec/mcec/internal/testdesk"
)

type launchResult struct {
	ProcessID          int     `json:"processId"`
	ProcessName        string  `json:"processName"`
	Handle             uint32  `json:"handle"`
	Window             *window `json:"window"`
	StartedNewProcess  bool    `json:"startedNewProcess"`
	AttachedToExisting bool    `json:"attachedToExisting"`
	WindowTimedOut     bool    `json:"windowTimedOut"`
	Accessible         bool    `json:"accessible"`
}

// launch calls the launch tool, which must succeed, and stops what it started when the test ends:
// the harness is attached to the test desktop, so the daemon leaves launched programs running.
func (h *harness) launch(args map[string]any) (launchResult, contract.Envelope, time.Duration) {
	h.t.Helper()
	t := h.t
	began := time.Now()
	env := h.call("launch", args)
	took := time.Since(began)
	var res launchResult
	if env.OK() {
		if err := env.DecodeResult(&res); err != nil {
			t.Fatal(err)
		}
		if res.StartedNewProcess {
			stopLaunched(t, res.ProcessID)
		}
	}
	if !env.OK() {
		t.Fatalf("launch %v failed: %+v", args, env.Err())
	}
	return res, env, took
}

// stopLaunched kills, at cleanup, the process group pid belongs to (launch starts every program
// as the leader of a group of its own, so a helper like oosplash goes with its soffice.bin).
func stopLaunched(t *testing.T, pid int) {
	group := processGroup(pid)
	t.Cleanup(func() {
		if group > 0 {
			testdesk.Kill(t, group)
		}
		testdesk.Kill(t, pid)
	})
}

// processGroup reads pid's process group from /proc (0 when it is gone).
func processGroup(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // state ppid pgrp …
	if len(fields) < 3 {
		return 0
	}
	g, _ := strconv.Atoi(fields[2])
	return g
}

// environ is process pid's environment.
func environ(t *testing.T, pid int) map[string]string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, kv := range bytes.Split(b, []byte{0}) {
		k, v, _ := strings.Cut(string(kv), "=")
		m[k] = v
	}
	return m
}

func warningOf(env contract.Envelope, code contract.Code) *contract.Warning {
	for _, w := range env.Warnings() {
		if w.Code == code {
			return &w
		}
	}
	return nil
}

func needProgram(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed (make test-deps installs it)", name)
	}
	return p
}

// assertTreeNow checks that a query right after launch returns the window's tree with a node named
// name somewhere in it.
func (h *harness) assertTreeNow(handle uint32, name string) {
	h.t.Helper()
	var q struct {
		NodeCount int   `json:"nodeCount"`
		Tree      *node `json:"tree"`
	}
	h.ok("query", map[string]any{"handle": handle, "maxDepth": 30, "maxNodes": 2000}, &q)
	seen := false
	if q.Tree != nil {
		q.Tree.walk(func(n *node) { seen = seen || n.Name == name })
	}
	if !seen {
		h.t.Errorf("query right after launch: %d nodes, none named %q", q.NodeCount, name)
	}
}

// TestLaunchQt starts a PyQt5 form through launch on the attached test desktop: launch returns
// once its tree answers, and the form got the Qt switch although the server's own environment
// said otherwise (the attached path applies the switches too).
func TestLaunchQt(t *testing.T) {
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import PyQt5.QtWidgets").Run(); err != nil {
		t.Skip("python3-pyqt5 is not installed (make test-deps installs it)")
	}
	// The server's environment switches Qt off and hides GTK: launch must switch both back on.
	t.Setenv("QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "0")
	t.Setenv("NO_AT_BRIDGE", "1")
	h := newHarness(t)
	res, env, took := h.launch(map[string]any{"path": python, "arguments": []string{"testdata/qtform.py"}, "timeout": 20000})
	t.Logf("Qt 5 form: window and tree in %v", took.Round(time.Millisecond))
	if !res.Accessible || res.Handle == 0 || !res.StartedNewProcess || res.AttachedToExisting {
		t.Fatalf("launch: %+v, warnings %+v", res, env.Warnings())
	}
	if len(env.Warnings()) != 0 {
		t.Errorf("warnings %+v", env.Warnings())
	}
	e := environ(t, res.ProcessID)
	if e["QT_LINUX_ACCESSIBILITY_ALWAYS_ON"] != "1" || e["GNOME_ACCESSIBILITY"] != "1" {
		t.Errorf("the form's environment lacks the switches: QT_LINUX_ACCESSIBILITY_ALWAYS_ON=%q GNOME_ACCESSIBILITY=%q",
			e["QT_LINUX_ACCESSIBILITY_ALWAYS_ON"], e["GNOME_ACCESSIBILITY"])
	}
	if v, ok := e["NO_AT_BRIDGE"]; ok {
		t.Errorf("NO_AT_BRIDGE=%q reached the form", v)
	}
	// Qt's bridge crashes on Properties.GetAll: if the app dies here, the AT-SPI code sent it.
	h.assertTreeNow(res.Handle, "Submit")
}

// TestLaunchGTK4 starts gtk4-demo, which registers on the bus seconds after its window maps:
// launch waits for that.
func TestLaunchGTK4(t *testing.T) {
	needProgram(t, "gtk4-demo")
	h := newHarness(t)
	res, env, took := h.launch(map[string]any{"path": "gtk4-demo", "timeout": 30000})
	t.Logf("gtk4-demo: window and tree in %v", took.Round(time.Millisecond))
	if !res.Accessible || res.Handle == 0 || res.ProcessName != "gtk4-demo" {
		t.Fatalf("launch: %+v, warnings %+v", res, env.Warnings())
	}
	var q struct{ NodeCount int }
	h.ok("query", map[string]any{"handle": res.Handle, "maxDepth": 1, "maxNodes": 10}, &q)
	if q.NodeCount < 1 {
		t.Errorf("query after launch: %+v", q)
	}
}

// TestLaunchJava starts a one-file Swing app (source launch): launch adds the ATK wrapper to
// JAVA_TOOL_OPTIONS and waits for the tree.
func TestLaunchJava(t *testing.T) {
	needProgram(t, "java")
	if _, err := os.Stat("/usr/share/java/java-atk-wrapper.jar"); err != nil {
		t.Skip("libatk-wrapper-java is not installed (make test-deps installs it)")
	}
	h := newHarness(t)
	res, env, took := h.launch(map[string]any{"path": "java", "arguments": []string{"testdata/Hello.java"}, "timeout": 30000})
	t.Logf("Java Swing: window and tree in %v", took.Round(time.Millisecond))
	if !res.Accessible || res.Handle == 0 {
		t.Fatalf("launch: %+v, warnings %+v", res, env.Warnings())
	}
	if opts := environ(t, res.ProcessID)["JAVA_TOOL_OPTIONS"]; !strings.Contains(opts, "org.GNOME.Accessibility.AtkWrapper") {
		t.Errorf("JAVA_TOOL_OPTIONS = %q", opts)
	}
	h.assertTreeNow(res.Handle, "Press me")
}

// TestLaunchNoBridge starts xterm, which has no accessibility bridge: launch returns as soon as the
// window maps, says accessible:false and tells the agent to use pixels.
func TestLaunchNoBridge(t *testing.T) {
	needProgram(t, "xterm")
	h := newHarness(t)
	res, env, took := h.launch(map[string]any{"path": "xterm", "timeout": 20000})
	t.Logf("xterm: window in %v", took.Round(time.Millisecond))
	if res.Accessible || res.Handle == 0 {
		t.Fatalf("launch: %+v", res)
	}
	if took > 10*time.Second {
		t.Errorf("launch of xterm took %v: it waited for a tree that never comes", took)
	}
	w := warningOf(env, contract.WarnNoAccessibleTree)
	if w == nil || !strings.Contains(w.Detail, "capture") || !strings.Contains(w.Detail, "pixel") {
		t.Errorf("warnings %+v: want no-accessible-tree pointing to capture and pixel input", env.Warnings())
	}
	if warningOf(env, contract.WarnTreeNotReady) != nil {
		t.Errorf("xterm reported as not ready yet: %+v", env.Warnings())
	}
}

// TestLaunchTreeNotReady starts a GTK 3 window whose main loop blocks right after mapping: its
// process carries a bridge, so launch waits for the tree until the timeout, then returns
// accessible:false with tree-not-ready (not no-accessible-tree).
func TestLaunchTreeNotReady(t *testing.T) {
	h := newHarness(t)
	res, env, took := h.launch(map[string]any{"path": "/usr/bin/python3", "arguments": []string{"testdata/stuck.py", "60"}, "timeout": 3000})
	if res.Accessible || res.Handle == 0 || res.WindowTimedOut {
		t.Fatalf("launch: %+v, warnings %+v", res, env.Warnings())
	}
	w := warningOf(env, contract.WarnTreeNotReady)
	if w == nil || !strings.Contains(w.Detail, "not ready yet") || warningOf(env, contract.WarnNoAccessibleTree) != nil {
		t.Errorf("warnings %+v: want tree-not-ready saying not ready yet", env.Warnings())
	} else {
		t.Logf("tree-not-ready: %s", w.Detail)
	}
	if took < 2*time.Second || took > 10*time.Second {
		t.Errorf("launch took %v with a 3 s timeout", took)
	}
}

// TestLaunchLibreOffice: libreoffice starts oosplash, which starts soffice.bin, whose window
// launch reports; a second launch that the running instance answers (the new launcher exits 0,
// the instance opens a new window) is attachedToExisting.
func TestLaunchLibreOffice(t *testing.T) {
	needProgram(t, "libreoffice")
	h := newHarness(t)
	// A profile of its own: an instance of another test or of the user must not answer.
	profile := "-env:UserInstallation=file://" + filepath.Join(t.TempDir(), "profile")
	args := map[string]any{"path": "libreoffice", "arguments": []string{"--writer", "--norestore", profile}, "timeout": 60000}
	first, env, took := h.launch(args)
	t.Logf("LibreOffice Writer (fresh profile): window and tree in %v", took.Round(time.Millisecond))
	comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", first.ProcessID))
	if strings.TrimSpace(string(comm)) != "soffice.bin" || first.ProcessName != "soffice.bin" || first.Handle == 0 || !first.StartedNewProcess {
		t.Fatalf("first launch: %+v (process %d is %q), warnings %+v", first, first.ProcessID, comm, env.Warnings())
	}
	if !first.Accessible {
		t.Errorf("first launch not accessible: warnings %+v", env.Warnings())
	}

	again, env, took := h.launch(args)
	t.Logf("LibreOffice hand-off: window in %v", took.Round(time.Millisecond))
	if !again.AttachedToExisting || again.StartedNewProcess || again.ProcessID != first.ProcessID ||
		again.Handle == 0 || again.Handle == first.Handle {
		t.Fatalf("second launch: %+v, first %+v, warnings %+v", again, first, env.Warnings())
	}
	if !again.Accessible {
		t.Errorf("second launch not accessible: warnings %+v", env.Warnings())
	}
}

// TestLaunchFailureQuotesStderr starts a program that explains itself on stderr and exits before
// any window, as Chromium does when run as root without --no-sandbox: launch-failed carries its
// last words, so the agent can fix the call instead of guessing. Programs of a private desktop
// only (design.md): on an attached one they outlive mcec and must keep their own stderr.
func TestLaunchFailureQuotesStderr(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	d, err := daemon.Start(ctx, daemon.Config{Headless: true, SessionsDir: t.TempDir(), Safety: safety.Settings{AllowAll: true}})
	if err != nil {
		t.Fatalf("daemon: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	h := &harness{t: t, d: d}
	env := h.call("launch", map[string]any{"path": "/bin/sh", "arguments": []string{"-c",
		"echo starting >&2; echo 'Running as root without --no-sandbox is not supported' >&2; exit 3"}})
	if env.OK() || env.Err().Code != contract.CodeLaunchFailed {
		t.Fatalf("want launch-failed, got ok=%v %+v", env.OK(), env.Err())
	}
	detail := env.Err().Detail
	if !strings.Contains(detail, "exit status 3") || !strings.Contains(detail, "starting | Running as root without --no-sandbox is not supported") {
		t.Errorf("detail %q: want the exit status and the last stderr lines", detail)
	}
}
