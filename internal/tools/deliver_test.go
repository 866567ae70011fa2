package tools_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/sysload"
	"github.com/mcec/mcec/internal/testdesk"
)

// invoke's delivery (issue 15): menus by name, real input where the accessibility API strands the
// agent (modal dialogs) or has nothing (web check boxes, GTK 4 check buttons), and setvalue read
// back, with typing where the toolkit ignored it. Every effect is checked by an independent read:
// the app's own status label, or the page's title, which the page computes from its fields.

type deliverRes struct {
	Invoked      bool    `json:"invoked"`
	Action       string  `json:"action"`
	Via          string  `json:"via"`
	Verified     *bool   `json:"verified"`
	ModalPending bool    `json:"modalPending"`
	Element      *node   `json:"element"`
	Effect       *effect `json:"effect"`
}

type effect struct {
	SettledMs     int64 `json:"settledMs"`
	WindowsOpened []struct {
		Handle uint32 `json:"handle"`
		Title  string `json:"title"`
	} `json:"windowsOpened"`
	Changed []changeJSON `json:"changed"`
}

// act invokes action on the element sel of pid and checks that it was delivered by via.
func (h *harness) act(pid int, sel map[string]any, action, via string, extra map[string]any) deliverRes {
	h.t.Helper()
	args := map[string]any{"element": sel, "action": action}
	if sel["ref"] == nil {
		args["pid"] = pid
	}
	for k, v := range extra {
		args[k] = v
	}
	began := time.Now()
	var r deliverRes
	h.ok("invoke", args, &r)
	h.t.Logf("%s %v: via %s in %v (settled %d ms), modalPending %v", action, sel, r.Via, time.Since(began).Round(time.Millisecond),
		r.Effect.SettledMs, r.ModalPending)
	if !r.Invoked || r.Action != action {
		h.t.Fatalf("invoke %s %v: %+v", action, sel, r)
	}
	if via != "" && r.Via != via {
		h.t.Errorf("%s %v was delivered via %q, want %q", action, sel, r.Via, via)
	}
	return r
}

// waitNamed waits until an element named name exists in pid's window (a status label).
func (h *harness) waitNamed(pid int, name string) {
	h.t.Helper()
	var r findRes
	h.ok("find", map[string]any{"pid": pid, "element": map[string]any{"name": name}, "timeout": 5000}, &r)
	if !r.Found {
		h.t.Fatalf("no element named %q appeared", name)
	}
}

// waitTitle waits until a window whose title contains title exists.
func (h *harness) waitTitle(title string) {
	h.t.Helper()
	var r struct{ Satisfied bool }
	h.ok("windows", map[string]any{"window": title, "condition": "appears", "timeout": 10000}, &r)
	if !r.Satisfied {
		var all struct{ Windows []window }
		h.ok("windows", map[string]any{}, &all)
		h.t.Fatalf("no window titled %q; windows: %+v", title, all.Windows)
	}
}

func startMenus(t *testing.T) *testdesk.Proc {
	t.Helper()
	p := testdesk.Start(t, "/usr/bin/python3", "testdata/menus.py")
	testdesk.WaitWindow(t, p.PID, 20*time.Second)
	testdesk.WaitAccessible(t, p.PID, 20*time.Second)
	return p
}

func TestDeliverGTK3Menus(t *testing.T) {
	h := newHarness(t)
	p := startMenus(t)
	defer assertNothingHeld(t, h)
	file := map[string]any{"name": "File", "role": "menu"}
	open := map[string]any{"name": "Open", "role": "menu item"}
	shows := func(sel map[string]any) bool { return !h.findOne(p.PID, sel).IsOffscreen }

	t.Run("expand and collapse a menu by name", func(t *testing.T) {
		h.t = t
		for _, step := range []struct {
			action string
			open   bool
		}{{"expand", true}, {"expand", true}, {"collapse", false}, {"collapse", false}} {
			h.act(p.PID, file, step.action, "accessibility", nil)
			testdesk.WaitFor(t, 3*time.Second, "the File menu to follow "+step.action, func() bool { return shows(open) == step.open })
		}
	})
	t.Run("select a menu item by name", func(t *testing.T) {
		h.t = t
		h.act(p.PID, file, "expand", "accessibility", nil)
		testdesk.WaitFor(t, 3*time.Second, "the File menu to open", func() bool { return shows(open) })
		h.act(p.PID, open, "select", "input", nil)
		h.waitNamed(p.PID, "Status: opened")
		testdesk.WaitFor(t, 3*time.Second, "the menu to close after its item was chosen", func() bool { return !shows(open) })
	})
	t.Run("a menu item opens an About dialog that stays answerable", func(t *testing.T) {
		h.t = t
		about := map[string]any{"name": "About", "role": "menu item"}
		h.act(p.PID, map[string]any{"name": "Help", "role": "menu"}, "expand", "accessibility", nil)
		testdesk.WaitFor(t, 3*time.Second, "the Help menu to open", func() bool { return shows(about) })
		r := h.act(p.PID, about, "invoke", "input", nil)
		if !r.ModalPending {
			t.Errorf("the About dialog is modal, but modalPending is false: %+v", r.Effect)
		}
		var w findRes
		h.ok("wait-for", map[string]any{"window": "About mcec menus", "element": map[string]any{"name": "Close", "role": "push button"}}, &w)
		if !w.Found {
			t.Fatal("the About dialog's Close button cannot be read")
		}
		h.act(p.PID, map[string]any{"ref": w.Element.Ref}, "invoke", "input", nil)
		var gone struct{ Satisfied bool }
		h.ok("windows", map[string]any{"window": "About mcec menus", "condition": "disappears", "timeout": 5000}, &gone)
		if !gone.Satisfied {
			t.Fatal("the About dialog did not close")
		}
		h.waitNamed(p.PID, "Status: about closed")
	})
	t.Run("an item of a closed menu is clicked after its menu is opened", func(t *testing.T) {
		h.t = t
		about := map[string]any{"name": "About", "role": "menu item"}
		if shows(about) {
			t.Fatal("the Help menu is still open")
		}
		r := h.act(p.PID, about, "invoke", "input", nil)
		if !r.ModalPending {
			t.Errorf("no modalPending: %+v", r.Effect)
		}
		var w findRes
		h.ok("wait-for", map[string]any{"window": "About mcec menus", "element": map[string]any{"name": "Close", "role": "push button"}}, &w)
		h.act(p.PID, map[string]any{"ref": w.Element.Ref}, "invoke", "input", nil)
		h.waitNamed(p.PID, "Status: about closed")
	})
	t.Run("a button that runs a modal dialog", func(t *testing.T) {
		h.t = t
		r := h.act(p.PID, map[string]any{"name": "Run modal"}, "invoke", "input", nil)
		if !r.ModalPending {
			t.Errorf("no modalPending: %+v", r.Effect)
		}
		var w findRes
		h.ok("wait-for", map[string]any{"window": "mcec modal dialog", "element": map[string]any{"name": "OK", "role": "push button"}}, &w)
		h.act(p.PID, map[string]any{"ref": w.Element.Ref}, "invoke", "input", nil)
		h.waitNamed(p.PID, "Status: modal closed")
	})
	t.Run("toggle, combo entry and entry through accessibility", func(t *testing.T) {
		h.t = t
		h.act(p.PID, map[string]any{"name": "Remember"}, "toggle", "accessibility", nil)
		h.waitNamed(p.PID, "Status: remember True")
		// A combo box entry is picked as a user does (open, click), and read back.
		r := h.act(p.PID, map[string]any{"name": "Green", "role": "menu item"}, "select", "input", nil)
		if r.Verified == nil || !*r.Verified {
			t.Errorf("select of a combo box entry not verified: %+v", r)
		}
		h.waitNamed(p.PID, "Status: colour Green")
		r = h.act(p.PID, map[string]any{"role": "text"}, "setvalue", "accessibility", map[string]any{"text": "set by mcec"})
		if r.Verified == nil || !*r.Verified {
			t.Errorf("setvalue not verified: %+v", r)
		}
		// Forced through input, the same field is typed into.
		r = h.act(p.PID, map[string]any{"role": "text"}, "setvalue", "input", map[string]any{"text": "typed ✓", "via": "input"})
		if r.Verified == nil || !*r.Verified {
			t.Errorf("typed setvalue not verified: %+v", r)
		}
		if n := h.findOne(p.PID, map[string]any{"role": "text"}); n.Value == nil || *n.Value != "typed ✓" {
			t.Errorf("the entry holds %v", n.Value)
		}
	})
	t.Run("arguments", func(t *testing.T) {
		h.t = t
		contracttest.Fail(t, h.call("invoke", map[string]any{"pid": p.PID, "element": file, "via": "telepathy"}),
			contract.InvalidArgument, contract.CodeBadArguments)
		contracttest.Fail(t, h.call("invoke", map[string]any{"pid": p.PID, "element": file, "action": "expand", "via": "input"}),
			contract.InvalidArgument, contract.CodeBadArguments)
		// Open is not showing while its menu is closed: there is nothing to click.
		contracttest.Fail(t, h.call("invoke", map[string]any{"pid": p.PID, "element": open, "via": "input"}),
			contract.InvalidArgument, contract.CodePatternUnsupported)
	})
}

// webForm launches a browser on testdata/webform.html through launch and returns its pid.
func (h *harness) webForm(browser string) int {
	h.t.Helper()
	needProgram(h.t, browser)
	page, err := filepath.Abs("testdata/webform.html")
	if err != nil {
		h.t.Fatal(err)
	}
	dir := h.t.TempDir()
	var args []string
	switch browser {
	case "chromium":
		args = []string{"--no-sandbox", "--no-first-run", "--disable-gpu", "--user-data-dir=" + dir,
			"--disable-background-networking", "--disable-component-update", "--disable-sync", "file://" + page}
	default:
		if err := os.MkdirAll(filepath.Join(dir, "profile"), 0o700); err != nil {
			h.t.Fatal(err)
		}
		// No first-run tabs: they can take the foreground from the page under test.
		prefs := strings.Join([]string{
			`user_pref("browser.aboutwelcome.enabled", false);`,
			`user_pref("browser.startup.homepage_override.mstone", "ignore");`,
			`user_pref("startup.homepage_welcome_url", "");`,
			`user_pref("startup.homepage_welcome_url.additional", "");`,
			`user_pref("datareporting.policy.dataSubmissionEnabled", false);`,
			`user_pref("datareporting.policy.firstRunURL", "");`,
			`user_pref("browser.shell.checkDefaultBrowser", false);`,
		}, "\n")
		if err := os.WriteFile(filepath.Join(dir, "profile", "user.js"), []byte(prefs+"\n"), 0o600); err != nil {
			h.t.Fatal(err)
		}
		args = []string{"--no-remote", "--profile", filepath.Join(dir, "profile"), "file://" + page}
	}
	res, _, took := h.launch(map[string]any{"path": browser, "arguments": args, "timeout": 30000})
	h.t.Logf("%s launched in %v", browser, took.Round(time.Millisecond))
	h.waitTitle("form name=initial text agree=false go=0")
	var r findRes
	h.ok("find", map[string]any{"pid": res.ProcessID, "element": map[string]any{"name": "Agree", "role": "check box"}, "timeout": 15000}, &r)
	if !r.Found {
		h.t.Fatal("the page's tree never showed its check box")
	}
	return res.ProcessID
}

// driveWebForm toggles the page's check box, sets its text field and presses its button, each
// checked through the page's title.
func driveWebForm(t *testing.T, h *harness, pid int, setVia string, textInValue bool) {
	agree := map[string]any{"name": "Agree", "role": "check box"}
	field := map[string]any{"name": "Name field"}
	h.act(pid, agree, "toggle", "", nil)
	h.waitTitle("agree=true")
	h.act(pid, agree, "toggle", "", nil)
	h.waitTitle("agree=false")
	r := h.act(pid, field, "setvalue", setVia, map[string]any{"text": "typed by mcec"})
	if r.Verified == nil || !*r.Verified {
		t.Errorf("setvalue not verified: %+v", r)
	}
	h.waitTitle("form name=typed by mcec agree=false")
	// The default settle (1 s, stretched by the load average) can end before a loaded browser
	// updates the page; the check is about what the effect reports, so it gives the effect time
	// to see it (an effect ends as soon as it sees a change, so this costs nothing when quick).
	// Beside a second make test, Firefox showed the new text after the 1.3 s settle ended.
	goSettle := min(sysload.Scale(5*time.Second), 10*time.Second).Milliseconds()
	r = h.act(pid, map[string]any{"name": "Go", "role": "push button"}, "invoke", "input", map[string]any{"settle": goSettle})
	h.waitTitle("go=1")
	// Its only change on the page is the status paragraph's text: the effect must say so
	// (Firefox keeps a paragraph's text out of its name; Chromium replaces its text node, which
	// the effect counts as added).
	if textInValue && !slices.ContainsFunc(r.Effect.Changed, func(c changeJSON) bool { return c.Value != nil && strings.Contains(*c.Value, "pressed 1") }) {
		t.Errorf("pressing Go: the effect does not report the status paragraph's new text: %+v", r.Effect)
	}
	h.act(pid, field, "setvalue", setVia, map[string]any{"text": ""})
	h.waitTitle("form name= agree=false")
	// A number input wrapped in its label (both named Nights in Firefox): one target, and the
	// browser applies the Value a moment after the call returns: verified, never "kept its value".
	r = h.act(pid, map[string]any{"name": "Nights"}, "setvalue", "", map[string]any{"text": "5"})
	if r.Verified == nil || !*r.Verified {
		t.Errorf("setvalue of the number not verified: %+v", r)
	}
	h.waitTitle("nights=5")
	// A <label for> and its field share the name City: the label-for relation says which is the
	// field, so the name alone is not ambiguous.
	h.act(pid, map[string]any{"name": "City"}, "setvalue", setVia, map[string]any{"text": "Paris"})
	h.waitTitle("city=Paris")
	// ARIA tabs: Chromium declines Selection.SelectChild on them; a click selects.
	h.act(pid, map[string]any{"name": "Hotels", "role": "page tab"}, "select", "", nil)
	h.waitTitle("tab=Hotels")
}

func TestDeliverChromium(t *testing.T) {
	h := newHarness(t)
	pid := h.webForm("chromium")
	defer assertNothingHeld(t, h)
	// Chromium's inputs have no EditableText: setvalue types.
	driveWebForm(t, h, pid, "input", false)
}

func TestDeliverFirefox(t *testing.T) {
	h := newHarness(t)
	pid := h.webForm("firefox-esr")
	defer assertNothingHeld(t, h)
	// Gecko answers SetTextContents with success and changes nothing: the read-back says so.
	env := h.call("invoke", map[string]any{"pid": pid, "element": map[string]any{"name": "Name field"}, "action": "setvalue",
		"text": "never applied", "via": "accessibility"})
	e := contracttest.Fail(t, env, contract.Internal, contract.CodeValueNotApplied)
	if !strings.Contains(e.Detail, "initial text") {
		t.Errorf("the detail does not say what the field holds: %s", e.Detail)
	}
	if part, ok := e.PartialResult.(map[string]any); !ok || part["value"] != "initial text" {
		t.Errorf("partialResult %+v", e.PartialResult)
	}
	driveWebForm(t, h, pid, "input", true)
}

func TestDeliverGTK4CheckButton(t *testing.T) {
	h := newHarness(t)
	res, _, _ := h.launch(map[string]any{"path": "/usr/bin/python3", "arguments": []string{"../reach/testdata/gtk4_form.py"}, "timeout": 20000})
	defer assertNothingHeld(t, h)
	check := map[string]any{"name": "Subscribe", "role": "check box"}
	var r findRes
	h.ok("find", map[string]any{"pid": res.ProcessID, "element": check, "timeout": 15000}, &r)
	if !r.Found || r.Element.ToggleState != "off" {
		t.Fatalf("check button %+v", r.Element)
	}
	// GTK 4.8 check buttons offer no action: toggle clicks them.
	h.act(res.ProcessID, check, "toggle", "input", nil)
	testdesk.WaitFor(t, 5*time.Second, "the check button to turn on", func() bool {
		return h.findOne(res.ProcessID, check).ToggleState == "on"
	})
}

// TestGTK4PopoverItems chooses items of a GTK 4 popover menu by name, by a real click: GTK 4.8
// reports a popover's objects as if it sat where its button starts, not where its surface is
// (gnome-calculator's Primary menu: 120 px right, 18 px up), so the click chose a neighbour or
// closed the menu. The items are read both in a tree (find) and by ref.
func TestGTK4PopoverItems(t *testing.T) {
	h := newHarness(t)
	p := testdesk.Start(t, "/usr/bin/python3", "testdata/popover4.py")
	testdesk.WaitWindow(t, p.PID, 20*time.Second)
	testdesk.WaitAccessible(t, p.PID, 20*time.Second)
	defer assertNothingHeld(t, h)
	choose := map[string]any{"name": "Choose", "role": "push button"}
	item := func(label string) map[string]any {
		return map[string]any{"name": label + ", one of six choices in this menu", "role": "menu item"}
	}
	open := func() {
		h.act(p.PID, choose, "invoke", "input", nil)
		testdesk.WaitFor(t, 3*time.Second, "the popover to open", func() bool {
			var r findRes
			h.ok("find", map[string]any{"pid": p.PID, "element": item("Alpha")}, &r)
			return r.Found && !r.Element.IsOffscreen
		})
	}
	open()
	h.act(p.PID, item("Delta"), "invoke", "input", nil)
	h.waitNamed(p.PID, "Status: chose Delta")
	open()
	h.act(p.PID, map[string]any{"ref": h.findOne(p.PID, item("Bravo")).Ref}, "invoke", "input", nil)
	h.waitNamed(p.PID, "Status: chose Bravo")
}

// TestSetFocusFocused: setfocus on the GTK 4 field that has the focus succeeds, verified, and
// does not warn that the action may have been lost (nothing had to change).
func TestSetFocusFocused(t *testing.T) {
	h := newHarness(t)
	res, _, _ := h.launch(map[string]any{"path": "/usr/bin/python3", "arguments": []string{"../reach/testdata/gtk4_form.py"}, "timeout": 20000})
	field := map[string]any{"name": "Name field"}
	testdesk.WaitFor(t, 15*time.Second, "the GTK 4 form's field to have the focus", func() bool {
		return h.findOne(res.ProcessID, field).IsFocused
	})
	env := h.call("invoke", map[string]any{"pid": res.ProcessID, "element": field, "action": "setfocus"})
	var r deliverRes
	if err := env.DecodeResult(&r); err != nil || !env.OK() {
		t.Fatalf("setfocus: %+v %v", env.Err(), err)
	}
	if r.Verified == nil || !*r.Verified {
		t.Errorf("setfocus on the focused field: verified %v", r.Verified)
	}
	for _, w := range env.Warnings() {
		if w.Code == contract.WarnNoObservedEffect {
			t.Errorf("setfocus on the focused field warned %s: %s", w.Code, w.Detail)
		}
	}
}
