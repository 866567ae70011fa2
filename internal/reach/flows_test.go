package reach_test

import (
	"slices"
	"strings"
	"time"

	"github.com/mcec/mcec/internal/sysload"
)

var (
	greetSel   = map[string]any{"name": "Greet", "role": "push button"}
	fieldSel   = map[string]any{"name": "Name field"}
	checkSel   = map[string]any{"name": "Subscribe", "role": "check box"}
	openSel    = map[string]any{"name": "Open dialog", "role": "push button"}
	buttonRole = []string{"push button", "button"}
	textRoles  = []string{"text", "entry"}
)

// form drives one of the suite's own forms (testdata/): a named text field, a Greet button that
// changes a status label (and, in the browser page, the title), a check box and a dialog.
func (r *run) form(web bool) {
	if !r.start() {
		return
	}
	if r.waitTree(greetSel) {
		r.defaultQuery("Greet", "Name field", "Subscribe", "Open dialog")
		initial := "initial text"
		r.controls([]control{
			{sel: greetSel, roles: buttonRole},
			{sel: fieldSel, roles: textRoles, value: &initial},
			{sel: checkSel, roles: []string{"check box"}},
			{sel: openSel, roles: buttonRole},
		})
		r.setValue(fieldSel, "typed by mcec")
		r.greet(web)
		r.toggle()
		r.formDialog(web)
	} else {
		r.defaultQuery()
	}
	r.capture()
	r.measure()
	r.survive(greetSel, greetSel)
}

// setValue writes text into a field and reads it back with a later find.
func (r *run) setValue(sel map[string]any, text string) {
	env, ok := r.invoke(sel, "setvalue", text)
	if !ok {
		r.rec(cSetValue, false, "invoke setvalue %q: %s", text, describe(env))
		return
	}
	n, ok := poll(3*time.Second, func() *node { n, _ := r.find(sel); return n },
		func(n *node) bool { return n != nil && n.Value != nil && *n.Value == text })
	r.rec(cSetValue, ok, "after setvalue %q the field reads %s", text, n)
}

// greet finds and invokes Greet, reads the effect back independently, then checks that a
// wait-for started before the next press sees its effect.
func (r *run) greet(web bool) {
	n, why := r.find(greetSel)
	if n == nil {
		r.rec(cInvoke, false, "find Greet: %s", why)
		return
	}
	env, ok := r.invoke(map[string]any{"ref": n.Ref}, "invoke", "")
	if !ok {
		r.rec(cInvoke, false, "invoke Greet (ref %s): %s", n.Ref, describe(env))
		return
	}
	if web {
		title, ok := r.mainTitle(5*time.Second, "greeted 1")
		r.rec(cInvoke, ok, "after invoke the page title is %q", title)
	} else {
		_, ok := r.treeShows(5*time.Second, func(n *node) bool { return n.hasText("Status: greeted 1") })
		r.rec(cInvoke, ok, "after invoke a later query shows the label %q: %v", "Status: greeted 1", ok)
	}
	// The label's text; in a browser the page (document web, named by its title), since Gecko
	// keeps a paragraph's text in its Text interface, not in a named node.
	label := map[string]any{"nameContains": "Status: greeted 2"}
	if web {
		label = map[string]any{"role": "document web", "nameContains": "greeted 2"}
	}
	wait := r.k.callAsync("wait-for", r.with(map[string]any{"element": label, "timeout": stretched(10 * time.Second)}))
	r.invoke(greetSel, "invoke", "")
	env = wait()
	var fr findResult
	ok, why = decode(env, &fr)
	r.rec(cWaitFor, ok && fr.Found, "wait-for %v: %s found=%v %s", label, why, fr.Found, fr.Element)
}

// toggle checks Subscribe through invoke toggle and reads the state back.
func (r *run) toggle() {
	env, ok := r.invoke(checkSel, "toggle", "")
	if !ok {
		r.rec(cToggle, false, "invoke toggle: %s", describe(env))
		return
	}
	n, ok := poll(3*time.Second, func() *node { n, _ := r.find(checkSel); return n },
		func(n *node) bool { return n != nil && n.ToggleState == "on" })
	r.rec(cToggle, ok, "after toggle: %s", n)
}

// formDialog opens the form's dialog, checks both windows' trees and closes it. In the browser
// page the dialog is a modal <dialog> inside the page.
func (r *run) formDialog(web bool) {
	env, ok := r.invoke(openSel, "invoke", "")
	if !ok {
		r.rec(cDialog, false, "invoke Open dialog: %s", describe(env))
		r.rec(cMainDialog, false, "no dialog")
		return
	}
	if web {
		_, ok := r.treeShows(5*time.Second, func(n *node) bool {
			return n.first(func(c *node) bool { return c.Role == "dialog" }) != nil && n.hasText("This is the dialog")
		})
		r.rec(cDialog, ok, "the page's modal dialog in the tree: %v", ok)
		r.invoke(map[string]any{"name": "Close dialog", "role": "push button"}, "invoke", "")
		return
	}
	dlg, ok := r.dialogWindow("Reach Dialog")
	if !ok {
		r.rec(cDialog, false, "no window \"Reach Dialog\" after invoke (%s)", describe(env))
		r.rec(cMainDialog, false, "no dialog")
		return
	}
	r.dialogTrees(dlg, "This is the dialog", "Greet")
	r.closeDialog(dlg, "Close dialog")
}

// pixels drives an app without an accessibility tree (Tk, xterm): pid, a clear no-tree error,
// a capture that is not blank, and what pixels can do.
func (r *run) pixels(tk bool) {
	if !r.start() {
		return
	}
	r.pidCheck()
	r.noTree()
	r.capture()
	if tk {
		// The Greet button is the 120x30 box at 20,60 of the window (testdata/tk_form.tcl).
		env, _ := r.k.call("click", r.with(map[string]any{"at": map[string]any{"x": 80, "y": 75}}))
		if !env.OK() {
			r.rec(cPixelClick, false, "click: %s", describe(env))
		} else {
			title, ok := r.mainTitle(5*time.Second, "greeted 1")
			r.rec(cPixelClick, ok, "after a click on Greet the title is %q", title)
		}
	} else {
		// A terminal that just mapped may not have drawn its text yet (ocr-no-text): look again, as
		// an agent would, for a few seconds.
		type text struct {
			ok       bool
			why, got string
		}
		got, ok := poll(5*time.Second, func() text {
			env, _ := r.k.call("get-text", r.main())
			var gt struct {
				Text string `json:"text"`
			}
			ok, why := decode(env, &gt)
			return text{ok, why, gt.Text}
		}, func(t text) bool { return t.ok && strings.Contains(t.got, "hello") && strings.Contains(t.got, "world") })
		r.rec(cOCR, ok, "get-text: %s %q", got.why, got.got)
	}
	r.measure()
	r.surviveNoTree()
}

// gtk4Demo drives gtk4-demo: filter the demo list through the search entry, run a demo, and the
// About dialog from the primary menu.
func (r *run) gtk4Demo() {
	if !r.start() {
		return
	}
	runSel := map[string]any{"name": "Run", "role": "push button"}
	if r.waitTree(runSel) {
		r.defaultQuery("Run", "Demo list", "Application Class")
		r.controls([]control{
			{sel: runSel, roles: buttonRole},
			{sel: map[string]any{"name": "Demo list"}, roles: []string{"list", "list box", "tree table"}},
			{sel: map[string]any{"role": "entry"}, roles: textRoles, noBox: true}, // hidden until Search is on
		})
		// A wait-for on a list entry that the filter removes, started before the filter.
		// The bound stretches with the load: beside a second make test the list was still
		// unfiltered after 10 s (wait-for now rests between slow looks, wait.go's rest).
		wait := r.k.callAsync("wait-for", r.with(map[string]any{"element": map[string]any{"name": "Application Class", "role": "panel"},
			"condition": "disappears", "timeout": stretched(10 * time.Second)}))
		if env, ok := r.invoke(map[string]any{"name": "Search"}, "invoke", ""); !ok {
			r.t.Logf("invoke Search: %s", describe(env))
		}
		r.setValue(map[string]any{"role": "entry"}, "Dialogs")
		env := wait()
		var fr findResult
		ok, why := decode(env, &fr)
		r.rec(cWaitFor, ok, "wait-for \"Application Class\" to disappear after filtering: %s", why)
		// Run the selected demo: a window of its own.
		before := r.countWindows()
		if env, ok := r.invoke(runSel, "invoke", ""); !ok {
			r.rec(cInvoke, false, "invoke Run: %s", describe(env))
		} else {
			n, ok := poll(5*time.Second, r.countWindows, func(n int) bool { return n > before })
			r.rec(cInvoke, ok, "after Run the app has %d windows (before %d)", n, before)
			// The demo's window takes the focus a moment after it maps, and a GTK 4 popover closes
			// when its window loses the focus: as an agent would, let the new window settle first.
			poll(5*time.Second, r.foregroundWindow, func(h uint32) bool { return h != 0 && h != r.win.Handle })
		}
		r.aboutDialog(map[string]any{"name": "Primary menu", "index": 1}, map[string]any{"nameContains": "About", "role": "menu item"},
			"About", "", "Demo list")
	} else {
		r.defaultQuery()
	}
	r.capture()
	r.measure()
	r.survive(runSel, nil)
}

// foregroundWindow is the handle of the app's focused window (0 when none is).
func (r *run) foregroundWindow() uint32 {
	env, _ := r.k.call("windows", map[string]any{"pid": r.pid})
	var wr windowsResult
	decode(env, &wr)
	for _, w := range wr.Windows {
		if slices.Contains(w.State, "focused") {
			return w.Handle
		}
	}
	return 0
}

// countWindows is how many windows the app has.
func (r *run) countWindows() int {
	env, _ := r.k.call("windows", map[string]any{"pid": r.pid})
	var wr windowsResult
	decode(env, &wr)
	return wr.Count
}

// aboutDialog opens a dialog through a menu (menu, then item), checks both windows' trees and
// closes it with Escape.
func (r *run) aboutDialog(menu, item map[string]any, title, dialogMark, mainMark string) {
	if menu != nil {
		if env, ok := r.invoke(menu, "invoke", ""); !ok {
			r.t.Logf("invoke menu %v: %s", menu, describe(env))
		}
	}
	// A menu's items appear some milliseconds after it opens: invoke does not wait, wait-for does.
	r.k.call("wait-for", r.with(map[string]any{"element": item, "timeout": stretched(5 * time.Second)}))
	env, ok := r.invoke(item, "invoke", "")
	if !ok {
		r.rec(cDialog, false, "invoke %v: %s", item, describe(env))
		r.rec(cMainDialog, false, "no dialog")
		return
	}
	dlg, ok := r.dialogWindow(title)
	if !ok {
		r.rec(cDialog, false, "no window %q after invoke", title)
		r.rec(cMainDialog, false, "no dialog")
		return
	}
	r.dialogTrees(dlg, dialogMark, mainMark)
	r.closeDialog(dlg, "")
}

// featherpad drives FeatherPad (Qt 5): type into the editor (the status bar counts the words),
// a new tab from the tool bar, and the About dialog.
func (r *run) featherpad() {
	if !r.start() {
		return
	}
	newSel := map[string]any{"name": "New", "role": "push button"}
	if r.waitTree(newSel) {
		root := r.defaultQuery("New", "File", "text")
		r.controls([]control{
			{sel: newSel, roles: buttonRole},
			{sel: map[string]any{"name": "File", "role": "menu item"}, roles: []string{"menu item", "menu"}},
			{sel: map[string]any{"nameContains": "Words:"}, roles: []string{"label"}},
		})
		editor := root.first(func(n *node) bool { return n.Role == "text" && n.Width != nil && *n.Width > 300 })
		if editor == nil {
			r.rec(cSetValue, false, "no editor (a wide text node) in the default query")
		} else {
			text := "hello reach world"
			wait := r.k.callAsync("wait-for", r.with(map[string]any{"element": map[string]any{"ref": editor.Ref},
				"condition": "value", "text": text, "timeout": stretched(10 * time.Second)}))
			r.setValue(map[string]any{"ref": editor.Ref}, text)
			env := wait()
			var fr findResult
			ok, why := decode(env, &fr)
			r.rec(cWaitFor, ok && fr.Found, "wait-for the editor's value %q: %s %s", text, why, fr.Element)
		}
		if env, ok := r.invoke(newSel, "invoke", ""); !ok {
			r.rec(cInvoke, false, "invoke New: %s", describe(env))
		} else {
			_, ok := r.treeShows(5*time.Second, func(n *node) bool {
				tabs := 0
				n.walk(func(c *node) {
					if c.Role == "page tab" {
						tabs++
					}
				})
				return tabs >= 2
			})
			r.rec(cInvoke, ok, "after invoke New a later query shows two tabs: %v", ok)
		}
		r.aboutDialog(nil, map[string]any{"name": "About", "role": "menu item"}, "About FeatherPad", "A lightweight", "Encoding:")
	} else {
		r.defaultQuery()
	}
	r.capture()
	r.measure()
	r.survive(newSel, nil)
}

// writer drives LibreOffice Writer: the Tip of the Day dialog a fresh profile opens, typing into
// the document (the status bar counts words), and the status bar switched off from the menu.
func (r *run) writer() {
	if !r.start() {
		return
	}
	r.officeTip("Untitled 1")
	docSel := map[string]any{"role": "document text"}
	if r.waitTree(docSel) {
		r.defaultQuery("document text", "File", "Formatting")
		r.controls([]control{
			{sel: docSel, roles: []string{"document text"}},
			{sel: map[string]any{"name": "Formatting", "role": "tool bar"}, roles: []string{"tool bar"}},
			{sel: map[string]any{"name": "File", "index": 0}, roles: []string{"menu"}},
		})
		// LibreOffice counts words on an idle timer: beside a second make test (load 16) the count
		// had not shown 10 s after the wait began, while walks of all 1,957 objects finished.
		wait := r.k.callAsync("wait-for", r.with(map[string]any{"element": map[string]any{"text": "2 words, 11 characters"},
			"timeout": stretched(10 * time.Second)}))
		r.setValue(map[string]any{"role": "paragraph", "index": 0}, "hello reach")
		env := wait()
		var fr findResult
		ok, why := decode(env, &fr)
		r.rec(cWaitFor, ok && fr.Found, "wait-for the status bar's word count: %s %s", why, fr.Element)
		words := map[string]any{"text": "2 words, 11 characters"}
		if env, ok := r.invoke(map[string]any{"name": "Status Bar", "role": "check menu item", "index": 0}, "invoke", ""); !ok {
			r.rec(cInvoke, false, "invoke View > Status Bar: %s", describe(env))
		} else {
			_, ok := poll(5*time.Second, func() *node { n, _ := r.find(words); return n },
				func(n *node) bool { return n == nil || n.IsOffscreen })
			r.rec(cInvoke, ok, "after View > Status Bar the word count is hidden: %v (invoke answered %s)", ok, clip(describe(env), 600))
		}
	} else {
		r.defaultQuery()
	}
	r.capture()
	r.measure()
	r.survive(docSel, nil)
}

// officeTip checks the dialog trees on the Tip of the Day dialog a fresh LibreOffice profile
// shows over the document, then closes it.
func (r *run) officeTip(mainMark string) {
	dlg, ok := r.dialogWindow("Tip of the Day")
	if !ok {
		r.rec(cDialog, false, "no Tip of the Day dialog")
		r.rec(cMainDialog, false, "no dialog")
		return
	}
	r.dialogTrees(dlg, "Show tips on startup", mainMark)
	r.closeDialog(dlg, "")
}

// calc drives LibreOffice Calc: a sheet claiming about 2^30 cells must be neither expanded nor
// walked: the default query stays fast, and find of cell A1 answers at once.
func (r *run) calc() {
	if !r.start() {
		return
	}
	r.officeTip("Untitled 1")
	sheetSel := map[string]any{"name": "Formatting", "role": "tool bar"}
	if r.waitTree(sheetSel) {
		// Both bounds stretch with the load as the walk budgets themselves do (sysload): beside a
		// second make test the default query took 3.0 s and find 4.1 s.
		root := r.defaultQuery("Formatting", "File")
		r.rec(cQueryBudget, root != nil && time.Duration(r.res.queryMS)*time.Millisecond < sysload.Scale(3*time.Second),
			"default query: %d nodes in %d ms (truncated %v)", r.res.nodes, r.res.queryMS, r.res.truncated)
		start := time.Now()
		n, why := r.find(map[string]any{"name": "A1"})
		took := time.Since(start)
		// Quiet, it answers in 0.1–0.3 s; a walk that expanded the sheet took 20 s and missed.
		// The bound is the latter's, not a benchmark: a loaded 2-core machine took 1.9 s.
		r.rec(cFindCell, n != nil && took < sysload.Scale(3*time.Second), "find A1: %s %s in %d ms", n, why, took.Milliseconds())
		r.controls([]control{
			{sel: sheetSel, roles: []string{"tool bar"}},
			{sel: map[string]any{"name": "File", "index": 0}, roles: []string{"menu"}},
		})
		if n != nil {
			r.bounds("A1", n)
		}
	} else {
		r.defaultQuery()
	}
	r.capture()
	r.measure()
	r.survive(sheetSel, nil)
}

// clip shortens s for a message.
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// gtk2Demo drives GTK 2's gtk-demo (gtk2.0-examples), whose tree exists only with the gail and
// atk-bridge modules launch adds: the demo list, the Info text, and a demo opened from the list.
func (r *run) gtk2Demo() {
	if !r.start() {
		return
	}
	boxesSel := map[string]any{"name": "Button Boxes", "role": "table cell"}
	if r.waitTree(boxesSel) {
		r.defaultQuery("Button Boxes", "Info", "Source")
		r.controls([]control{
			{sel: boxesSel, roles: []string{"table cell"}},
			{sel: map[string]any{"name": "Info", "role": "page tab"}, roles: []string{"page tab"}},
		})
		if env, ok := r.invoke(boxesSel, "invoke", ""); !ok {
			r.rec(cInvoke, false, "invoke Button Boxes: %s", describe(env))
		} else {
			dlg, ok := r.dialogWindow("Button Boxes")
			r.rec(cInvoke, ok, "after invoking the Button Boxes row, windows lists the demo's window: %v", dlg.Title)
		}
	} else {
		r.defaultQuery()
	}
	r.capture()
	r.measure()
	r.survive(boxesSel, nil)
}

// terminology drives EFL's Terminology, whose tree exists only with ELM_ATSPI_MODE, which
// launch sets: the scale wizard a fresh configuration opens, closed with its Done button.
func (r *run) terminology() {
	if !r.start() {
		return
	}
	doneSel := map[string]any{"name": "Done", "role": "push button"}
	if r.waitTree(doneSel) {
		r.defaultQuery("Done", "Scale")
		r.controls([]control{
			{sel: doneSel, roles: buttonRole},
			{sel: map[string]any{"name": "Scale", "role": "label"}, roles: []string{"label"}},
		})
		if env, ok := r.invoke(doneSel, "invoke", ""); !ok {
			r.rec(cInvoke, false, "invoke Done: %s", describe(env))
		} else {
			_, ok := r.treeShows(5*time.Second, func(n *node) bool { return n.first(func(c *node) bool { return c.Name == "Done" }) == nil })
			r.rec(cInvoke, ok, "after invoking Done a later query shows the wizard closed: %v", ok)
		}
	} else {
		r.defaultQuery()
	}
	r.capture()
	r.measure()
	r.survive(map[string]any{"role": "window"}, nil)
}
