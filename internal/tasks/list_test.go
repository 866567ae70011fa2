package tasks_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/mcec/mcec/internal/headless"
)

// pendingTasks are the tasks that fail on a known product bug, with the reason and the envelope
// that shows it. A pending task is reported, not failed; one that passes is reported as passing
// so that it can be made required.
var pendingTasks = map[string]string{}

const py = "/usr/bin/python3" // Debian's, with python3-gi and PyQt

func data(name string) string {
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return p
}

// tasks is the suite, in report order.
func tasks() []*task {
	var list []*task
	list = append(list, calculatorTasks()...)
	list = append(list, gtk3Tasks()...)
	list = append(list, gtk4Tasks()...)
	list = append(list, qtTasks()...)
	list = append(list, swingTasks()...)
	list = append(list, webTasks()...)
	list = append(list, officeTasks()...)
	list = append(list, bridgeTasks()...)
	list = append(list, pixelTasks()...)
	wayland := onWayland(list, "calculator-keys", "gtk3-form", "qt5-confirm-dialog", "calc-cell-csv", "writer-bold-save", "calc-formula")
	for _, w := range wayland {
		// LibreOffice places its cells unlike on X11 (atspi/vcl.go): a click by a cell's name on
		// Wayland is in make test.
		w.short = w.short || w.name == "calc-cell-csv-wayland"
	}
	list = append(list, wayland...)
	list = append(list, onWlroots(list, "calculator-keys", "gtk3-form", "qt5-confirm-dialog")...)
	list = append(list, onPhoc(list, "gtk3-form", "qt5-confirm-dialog")...)
	list = append(list, onShells(list, "writer-bold-save", "calc-formula", "calc-cell-csv")...)
	return append(list, onXWayland(list, "swing-form", "swing-confirm-dialog")...)
}

// onXWayland makes the tasks named, of programs that speak only X11 (Java's AWT), run on the
// private sway desktop with Xwayland, as in a user's Wayland session: tasks of their own, named
// "…-xwayland", in the quick subset where the X11 task is. mcec drives them through the X11
// backend there, placed by their X screen coordinates.
func onXWayland(list []*task, names ...string) []*task {
	out := onWayland(list, names...)
	for _, w := range out {
		w.name = strings.TrimSuffix(w.name, "-wayland") + "-xwayland"
		w.toolkit = strings.TrimSuffix(w.toolkit, " (Wayland)") + " (Xwayland on sway)"
		w.xwayland = true
	}
	return out
}

// onShells makes the tasks named run on private KWin and GNOME Shell desktops too, natively on
// Wayland: tasks of their own, named "…-kwin" and "…-gnome", in the quick subset where the X11
// task is. LibreOffice's are there: it places its content unlike every other toolkit
// (atspi/vcl.go), and each compositor draws its windows' frames its own way.
func onShells(list []*task, names ...string) []*task {
	var out []*task
	for _, shell := range []struct {
		kind  headless.Kind
		label string
	}{{headless.KWin, "KWin"}, {headless.GNOME, "GNOME"}} {
		for _, w := range onWayland(list, names...) {
			w.name = strings.TrimSuffix(w.name, "-wayland") + "-" + string(shell.kind)
			w.toolkit = strings.TrimSuffix(w.toolkit, " (Wayland)") + " (" + shell.label + ")"
			w.desktop = shell.kind
			out = append(out, w)
		}
	}
	return out
}

// onPhoc makes the tasks named run on a private phoc desktop (Phosh's wlroots compositor, which
// speaks no sway IPC): tasks of their own, named "…-phoc", in the quick subset where the X11 task
// is. Only tasks that read their result back from the application, not from its pixels, can run
// there (no tool outside mcec says where phoc's windows are).
func onPhoc(list []*task, names ...string) []*task {
	out := onWayland(list, names...)
	for _, w := range out {
		w.name = strings.TrimSuffix(w.name, "-wayland") + "-phoc"
		w.toolkit = strings.TrimSuffix(w.toolkit, " (Wayland)") + " (phoc)"
		w.desktop = headless.Phoc
	}
	return out
}

// onWlroots makes the tasks named run on the private sway desktop driven as Hyprland, labwc and
// the other wlroots compositors are, through wlr-foreign-toplevel alone (no places, owners by
// title): tasks of their own, named "…-wlroots", in the quick subset where the X11 task is. Only
// tasks without pointer actions on elements can run there.
func onWlroots(list []*task, names ...string) []*task {
	out := onWayland(list, names...)
	for _, w := range out {
		w.name = strings.TrimSuffix(w.name, "-wayland") + "-wlroots"
		w.toolkit = strings.TrimSuffix(w.toolkit, " (Wayland)") + " (wlroots protocols)"
		w.toplevels = true
	}
	return out
}

// onWayland makes the tasks named run on a private Wayland desktop (headless sway) too, with the
// same steps and read-backs: tasks of their own, named "… (wayland)", in the quick subset where
// the X11 task is.
func onWayland(list []*task, names ...string) []*task {
	var out []*task
	for _, tk := range list {
		if !slices.Contains(names, tk.name) {
			continue
		}
		w := *tk
		w.name += "-wayland"
		w.toolkit += " (Wayland)"
		w.desktop = headless.Wayland
		out = append(out, &w)
	}
	return out
}

// ---- galculator (GTK 3, a real calculator) ----

func calculatorTasks() []*task {
	calc := win("galculator")
	btn := func(name string) obj { return obj{"name": name, "role": "toggle button"} }
	return []*task{
		{name: "calculator-clicks", toolkit: "GTK 3", app: "galculator",
			goal: "compute 12 × 34 by clicking the calculator's buttons (real clicks at their centres)",
			steps: func(x *run) []step {
				s := []step{launch("galculator"), appears("galculator")}
				for _, b := range []string{"1", "2", "*", "3", "4", "="} {
					s = append(s, click(calc, btn(b)))
				}
				return s
			},
			check: func(x *run) error { return x.ocrHas("galculator", "408") }},
		{name: "calculator-invoke", toolkit: "GTK 3", app: "galculator",
			goal: "compute 987 − 654 by invoking the calculator's buttons by name",
			steps: func(x *run) []step {
				s := []step{launch("galculator"), appears("galculator")}
				for _, b := range []string{"9", "8", "7", "-", "6", "5", "4", "="} {
					s = append(s, invoke(calc, btn(b), "invoke"))
				}
				return s
			},
			check: func(x *run) error { return x.ocrHas("galculator", "333") }},
		{name: "calculator-keys", toolkit: "GTK 3", app: "galculator", short: true,
			goal: "compute 125 × 8 by typing it on the keyboard",
			steps: func(x *run) []step {
				return []step{launch("galculator"), appears("galculator"), focus(calc), keys("chars:125*8="), keys("enter")}
			},
			check: func(x *run) error { return x.ocrHas("galculator", "1000") }},
	}
}

// ---- the suite's GTK 3 app ----

func gtk3Tasks() []*task {
	app := win("Tasks GTK3 App")
	start := func(x *run) []step {
		return []step{launch(py, data("gtk3_app.py"), x.statePath()), appears("Tasks GTK3 App"),
			waitFor(app, obj{"name": "Apply", "role": "push button"})}
	}
	// menuItem opens a menu (invoke: its click action; or expand, issue 15 §5) and invokes an item.
	menuItem := func(menu, open, item string) []step {
		return []step{
			invoke(app, obj{"name": menu, "role": "menu"}, open),
			waitFor(app, obj{"name": item, "role": "menu item"}),
			invoke(app, obj{"name": item, "role": "menu item"}, "invoke"),
		}
	}
	note := obj{"name": "Note"}
	return []*task{
		{name: "gtk3-form", toolkit: "GTK 3", app: "testdata/gtk3_app.py", short: true,
			goal: "write a note, tick Urgent and press Apply, all through the accessibility API",
			steps: func(x *run) []step {
				return append(start(x),
					invoke(app, note, "setvalue", "buy milk"),
					invoke(app, obj{"name": "Urgent", "role": "check box"}, "toggle"),
					invoke(app, obj{"name": "Apply", "role": "push button"}, "invoke"))
			},
			check: func(x *run) error { return x.stateIs(obj{"note": "buy milk", "urgent": true, "applied": 1}) }},
		{name: "gtk3-form-clicks", toolkit: "GTK 3", app: "testdata/gtk3_app.py",
			goal: "the same with real input on a fresh desktop: click the note field, type, click Urgent, click Apply",
			steps: func(x *run) []step {
				return append(start(x),
					click(app, note),
					keys("chars:call Bob"),
					click(app, obj{"name": "Urgent", "role": "check box"}),
					click(app, obj{"name": "Apply", "role": "push button"}))
			},
			check: func(x *run) error { return x.stateIs(obj{"note": "call Bob", "urgent": true, "applied": 1}) }},
		{name: "gtk3-combo", toolkit: "GTK 3", app: "testdata/gtk3_app.py",
			goal: "pick Blue in the Colour combo box",
			steps: func(x *run) []step {
				return append(start(x), invoke(app, obj{"name": "Blue"}, "select"))
			},
			check: func(x *run) error { return x.stateIs(obj{"colour": "Blue"}) }},
		{name: "gtk3-slider-setvalue", toolkit: "GTK 3", app: "testdata/gtk3_app.py",
			goal: "set the Level slider to 42",
			steps: func(x *run) []step {
				return append(start(x), invoke(app, obj{"name": "Level", "role": "slider"}, "setvalue", "42"))
			},
			check: func(x *run) error { return x.stateIs(obj{"level": 42}) }},
		{name: "gtk3-slider-drag", toolkit: "GTK 3", app: "testdata/gtk3_app.py",
			goal: "drag the Level slider's knob from 0 to about 75 (within ±3), the position computed from the slider's bounds",
			steps: func(x *run) []step {
				return append(start(x),
					find(app, obj{"name": "Level", "role": "slider"}, "slider"),
					step{tool: "drag", argsFn: func(v vars) (obj, error) {
						sx, err1 := v.num("slider.x")
						sy, err2 := v.num("slider.y")
						sw, err3 := v.num("slider.width")
						sh, err4 := v.num("slider.height")
						if err := firstErr(err1, err2, err3, err4); err != nil {
							return nil, err
						}
						// The knob (about 16 px wide) starts at the trough's left end; the trough
						// spans the slider's width less one knob. The value is drawn above it.
						y := int(sy + sh*0.75)
						from := int(sx + 8)
						to := int(sx + 8 + 0.75*(sw-16))
						return obj{"from": obj{"x": from, "y": y}, "to": obj{"x": to, "y": y}}, nil
					}})
			},
			check: func(x *run) error {
				m, err := x.state()
				if err != nil {
					return err
				}
				if lv, _ := m["level"].(float64); lv < 72 || lv > 78 {
					return fmt.Errorf("the app's level is %v, want 75±3", m["level"])
				}
				return nil
			}},
		{name: "gtk3-about-dialog", toolkit: "GTK 3", app: "testdata/gtk3_app.py",
			goal: "open Help > About from the menu bar and close the About dialog it runs (a nested main loop)",
			steps: func(x *run) []step {
				s := append(start(x), menuItem("Help", "invoke", "About")...)
				return append(s,
					appears("About Tasks GTK3 App"),
					invoke(win("About Tasks GTK3 App"), obj{"name": "Close", "role": "push button"}, "invoke"),
					gone("About Tasks GTK3 App"))
			},
			check: func(x *run) error { return x.stateIs(obj{"about": "closed"}) }},
		{name: "gtk3-confirm-dialog", toolkit: "GTK 3", app: "testdata/gtk3_app.py",
			goal: "write a note, choose Edit > Clear… and answer Yes in the confirmation dialog",
			steps: func(x *run) []step {
				s := append(start(x), invoke(app, note, "setvalue", "draft"))
				s = append(s, menuItem("Edit", "expand", "Clear…")...)
				return append(s,
					appears("Confirm Clear"),
					invoke(win("Confirm Clear"), obj{"name": "Yes", "role": "push button"}, "invoke"),
					gone("Confirm Clear"))
			},
			check: func(x *run) error { return x.stateIs(obj{"clear": "yes", "note": ""}) }},
		{name: "gtk3-file-chooser", toolkit: "GTK 3", app: "testdata/gtk3_app.py",
			goal: "write a note and save it through File > Save As… in a GTK file chooser, typing the path",
			steps: func(x *run) []step {
				s := append(start(x), invoke(app, note, "setvalue", "saved by mcec"))
				s = append(s, menuItem("File", "invoke", "Save As…")...)
				chooser := win("Save Note As")
				return append(s,
					// The chooser opens with its name field focused: select what it holds, type the path.
					appears("Save Note As"), focus(chooser), keys("ctrl-a"), keys("chars:"+x.path("note.txt")),
					invoke(chooser, obj{"name": "Save", "role": "push button"}, "invoke"),
					gone("Save Note As"))
			},
			check: func(x *run) error { return fileHas(x.path("note.txt"), "saved by mcec\n") }},
	}
}

// ---- the suite's GTK 4 app ----

func gtk4Tasks() []*task {
	app := win("Tasks GTK4 App")
	start := func(x *run) []step {
		return []step{launch(py, data("gtk4_app.py"), x.statePath()), appears("Tasks GTK4 App"),
			waitFor(app, obj{"name": "Apply", "role": "push button"})}
	}
	return []*task{
		{name: "gtk4-note-apply", toolkit: "GTK 4", app: "testdata/gtk4_app.py",
			goal: "write a note and press Apply through the accessibility API",
			steps: func(x *run) []step {
				return append(start(x),
					invoke(app, obj{"name": "Note"}, "setvalue", "water plants"),
					invoke(app, obj{"name": "Apply", "role": "push button"}, "invoke"))
			},
			check: func(x *run) error { return x.stateIs(obj{"appliedNote": "water plants", "applied": 1}) }},
		{name: "gtk4-check-dropdown", toolkit: "GTK 4", app: "testdata/gtk4_app.py",
			goal: "tick Urgent and pick Large in the Size drop-down",
			steps: func(x *run) []step {
				return append(start(x),
					invoke(app, obj{"name": "Urgent", "role": "check box"}, "toggle"),
					invoke(app, obj{"name": "Size"}, "expand"),
					invoke(app, obj{"name": "Large"}, "select"))
			},
			check: func(x *run) error { return x.stateIs(obj{"urgent": true, "size": "Large"}) }},
	}
}

// ---- Qt 5 / Qt 6 forms and FeatherPad ----

func qtTasks() []*task {
	form := func(v string) *task {
		title := "Tasks Qt" + v + " Form"
		app := win(title)
		return &task{name: "qt" + v + "-form", toolkit: "Qt " + v, app: "testdata/qt_app.py " + v + " (PyQt" + v + ")",
			goal: "fill the form (name, Member, Plan = Team) and press Submit",
			steps: func(x *run) []step {
				return []step{launch(py, data("qt_app.py"), v, x.statePath()), appears(title),
					waitFor(app, obj{"name": "Submit", "role": "push button"}),
					invoke(app, obj{"name": "Name", "role": "text"}, "setvalue", "Grace Hopper"),
					invoke(app, obj{"name": "Member", "role": "check box"}, "toggle"),
					invoke(app, obj{"name": "Team"}, "select"),
					invoke(app, obj{"name": "Submit", "role": "push button"}, "invoke")}
			},
			check: func(x *run) error {
				return x.stateIs(obj{"submitted": 1, "submittedName": "Grace Hopper", "submittedMember": true, "submittedPlan": "Team"})
			}}
	}
	app5 := win("Tasks Qt5 Form")
	return []*task{
		form("5"),
		form("6"),
		{name: "qt5-confirm-dialog", toolkit: "Qt 5", app: "testdata/qt_app.py 5 (PyQt5)", short: true,
			goal: "write a name, press Reset… and answer Yes in the modal QMessageBox (exec, a nested loop)",
			steps: func(x *run) []step {
				return []step{launch(py, data("qt_app.py"), "5", x.statePath()), appears("Tasks Qt5 Form"),
					waitFor(app5, obj{"name": "Submit", "role": "push button"}),
					invoke(app5, obj{"name": "Name", "role": "text"}, "setvalue", "to be reset"),
					invoke(app5, obj{"name": "Reset…", "role": "push button"}, "invoke"),
					appears("Confirm Reset"),
					invoke(win("Confirm Reset"), obj{"name": "Yes", "role": "push button"}, "invoke"),
					gone("Confirm Reset")}
			},
			check: func(x *run) error { return x.stateIs(obj{"reset": "yes", "name": ""}) }},
		{name: "featherpad-save", toolkit: "Qt 5", app: "featherpad",
			goal: "type a line into FeatherPad and save it with Ctrl+S through its Qt file dialog, typing the path",
			steps: func(x *run) []step {
				return []step{launch("featherpad"), appears("Untitled"), focus(win("Untitled")),
					keys("chars:hello from mcec"), keys("ctrl-s"), appears("Save as"),
					keys("chars:" + x.path("pad.txt")), keys("enter"), gone("Save as")}
			},
			check: func(x *run) error { return fileHas(x.path("pad.txt"), "hello from mcec") }},
	}
}

// ---- Java Swing ----

func swingTasks() []*task {
	app := win("Tasks Swing App")
	start := func(x *run) []step {
		return []step{launch("java", data("SwingApp.java"), x.statePath()), appears("Tasks Swing App"),
			waitFor(app, obj{"name": "Submit", "role": "push button"})}
	}
	return []*task{
		{name: "swing-form", toolkit: "Java Swing", app: "testdata/SwingApp.java (OpenJDK 17, ATK wrapper)",
			goal: "fill the form (name, Member, Plan = Pro) and press Submit",
			steps: func(x *run) []step {
				return append(start(x),
					invoke(app, obj{"name": "Name"}, "setvalue", "Alan Turing"),
					invoke(app, obj{"name": "Member", "role": "check box"}, "toggle"),
					invoke(app, obj{"name": "Pro"}, "select"),
					invoke(app, obj{"name": "Submit", "role": "push button"}, "invoke"))
			},
			check: func(x *run) error {
				return x.stateIs(obj{"submitted": 1, "submittedName": "Alan Turing", "submittedMember": true, "submittedPlan": "Pro"})
			}},
		{name: "swing-confirm-dialog", toolkit: "Java Swing", app: "testdata/SwingApp.java (OpenJDK 17, ATK wrapper)",
			goal: "press Delete… and answer Yes in the modal JOptionPane dialog",
			steps: func(x *run) []step {
				return append(start(x),
					invoke(app, obj{"name": "Delete…", "role": "push button"}, "invoke"),
					appears("Confirm Delete"),
					invoke(win("Confirm Delete"), obj{"name": "Yes", "role": "push button"}, "invoke"),
					gone("Confirm Delete"))
			},
			check: func(x *run) error { return x.stateIs(obj{"deleted": "yes"}) }},
	}
}

// ---- Chromium and Firefox ----

func webTasks() []*task {
	serve := func(x *run) error {
		page, err := os.ReadFile(data("form.html"))
		if err != nil {
			return err
		}
		x.web, err = startFormServer(page)
		return err
	}
	page := win("Tasks Web Form")
	fill := func(x *run, argv ...string) []step {
		return []step{launch(argv[0], argv[1:]...), appears("Tasks Web Form"),
			waitFor(page, obj{"name": "Send order", "role": "push button"}),
			invoke(page, obj{"name": "Name", "role": "entry"}, "setvalue", "Ada Lovelace"),
			invoke(page, obj{"name": "Subscribe", "role": "check box"}, "toggle"),
			invoke(page, obj{"name": "Pro"}, "select"),
			invoke(page, obj{"name": "Send order", "role": "push button"}, "invoke"),
			appears("Order received")}
	}
	check := func(x *run) error {
		return x.web.submitted(map[string]string{"name": "Ada Lovelace", "subscribe": "yes", "plan": "Pro"})
	}
	// fillClicks is the same job with real input at the elements: a click into the field and
	// typing, a click on the check box, the select opened by a click and its entry clicked.
	// In Firefox the select's entries show twice in the tree (the options and the open popup's),
	// so the entry is picked with the keyboard there: Down, Enter.
	fillClicks := func(x *run, argv ...string) []step {
		s := []step{launch(argv[0], argv[1:]...), appears("Tasks Web Form"),
			waitFor(page, obj{"name": "Send order", "role": "push button"}),
			click(page, obj{"name": "Name", "role": "entry"}), keys("chars:Ada Lovelace"),
			click(page, obj{"name": "Subscribe", "role": "check box"}),
			click(page, obj{"name": "Plan", "role": "combo box"})}
		if argv[0] == "chromium" {
			s = append(s, waitFor(page, obj{"name": "Pro"}), click(page, obj{"name": "Pro"}))
		} else {
			s = append(s, waitFor(page, obj{"name": "Pro", "role": "menu item", "index": 1}), keys("down"), keys("enter"))
		}
		return append(s, click(page, obj{"name": "Send order", "role": "push button"}), appears("Order received"))
	}
	chromium := func(x *run) []string {
		return []string{"chromium", "--no-sandbox", "--no-first-run", "--disable-gpu", "--user-data-dir=" + x.path("chromium"),
			"--disable-background-networking", "--disable-component-update", "--disable-sync", x.web.url}
	}
	firefoxSetup := func(x *run) error {
		if err := os.MkdirAll(x.path("firefox"), 0o700); err != nil {
			return err
		}
		// A fresh profile opens the privacy notice in a second tab: a first-run page, not the job.
		prefs := `user_pref("datareporting.policy.dataSubmissionPolicyBypassNotification", true);
user_pref("browser.aboutwelcome.enabled", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("trailhead.firstrun.didSeeAboutWelcome", true);
`
		if err := os.WriteFile(filepath.Join(x.path("firefox"), "user.js"), []byte(prefs), 0o600); err != nil {
			return err
		}
		return serve(x)
	}
	firefox := func(x *run) []string {
		return []string{"firefox-esr", "--no-remote", "--profile", x.path("firefox"), x.web.url}
	}
	epiphany := func(x *run) []string { return []string{"epiphany", "--private-instance", x.web.url} }
	return []*task{
		{name: "epiphany-form", toolkit: "WebKitGTK (Epiphany)", app: "epiphany --private-instance, testdata/form.html from the test's server",
			goal:  "the form of chromium-form in Epiphany, whose page lives in WebKit's web process, through the accessibility API",
			setup: serve, steps: func(x *run) []step { return fill(x, epiphany(x)...) }, check: check},
		{name: "chromium-form", toolkit: "Chromium", app: "chromium, testdata/form.html from the test's server",
			goal:  "fill a web form through the accessibility API (setvalue, toggle, select, invoke) and submit it; the test's server records what arrived",
			setup: serve, steps: func(x *run) []step { return fill(x, chromium(x)...) }, check: check},
		{name: "chromium-form-clicks", toolkit: "Chromium", app: "chromium, testdata/form.html from the test's server",
			goal:  "the same form with real input: click the field and type, click the check box, open the select and click Pro, click the button",
			setup: serve, steps: func(x *run) []step { return fillClicks(x, chromium(x)...) }, check: check},
		{name: "firefox-form", toolkit: "Firefox (Gecko)", app: "firefox-esr, testdata/form.html from the test's server",
			goal:  "the form of chromium-form in Firefox, through the accessibility API",
			setup: firefoxSetup, steps: func(x *run) []step { return fill(x, firefox(x)...) }, check: check},
		{name: "firefox-form-clicks", toolkit: "Firefox (Gecko)", app: "firefox-esr, testdata/form.html from the test's server",
			goal:  "the form of chromium-form-clicks in Firefox, with real input",
			setup: firefoxSetup, steps: func(x *run) []step { return fillClicks(x, firefox(x)...) }, check: check},
	}
}

// ---- LibreOffice Writer and Calc ----

// officeProfile writes a LibreOffice user profile that skips the Tip of the Day.
func officeProfile(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "user"), 0o700); err != nil {
		return err
	}
	const xcu = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="ShowTipOfTheDay" oor:op="fuse"><value>false</value></prop></item>
</oor:items>
`
	return os.WriteFile(filepath.Join(dir, "user", "registrymodifications.xcu"), []byte(xcu), 0o600)
}

func officeTasks() []*task {
	profile := func(x *run) error { return officeProfile(x.path("lo")) }
	office := func(x *run, module, title string) []step {
		return []step{launch("libreoffice", "--norestore", "-env:UserInstallation=file://"+x.path("lo"), module),
			appears(title), focus(win(title))}
	}
	saveAs := func(path string) []step {
		return []step{keys("key:ctrl+shift+s"), appears("Save"), keys("chars:" + path), keys("enter"), gone("Save")}
	}
	writer := win("LibreOffice Writer")
	return []*task{
		{name: "writer-bold-save", toolkit: "LibreOffice (VCL gtk3)", app: "libreoffice --writer",
			goal:  "type a sentence, select its last word, press the Bold button by name and save as .odt",
			setup: profile,
			steps: func(x *run) []step {
				s := office(x, "--writer", "LibreOffice Writer")
				s = append(s, waitFor(writer, obj{"role": "document text"}),
					keys("chars:Hello bold world"), keys("key:ctrl+shift+left"),
					invoke(writer, obj{"name": "Bold", "role": "toggle button"}, "invoke"))
				return append(s, saveAs(x.path("doc.odt"))...)
			},
			check: func(x *run) error { return boldWord(x.path("doc.odt"), "Hello bold ", "world") }},
		{name: "calc-formula", toolkit: "LibreOffice (VCL gtk3)", app: "libreoffice --calc",
			goal:  "enter 6 and 7 in A1 and A2, the formula =A1*A2 in A3, and save as .ods",
			setup: profile,
			steps: func(x *run) []step {
				s := office(x, "--calc", "LibreOffice Calc")
				s = append(s, keys("chars:6\n7\n=A1*A2\n"))
				return append(s, saveAs(x.path("sheet.ods"))...)
			},
			check: func(x *run) error {
				content, err := zipEntry(x.path("sheet.ods"), "content.xml")
				if err != nil {
					return err
				}
				if !strings.Contains(content, `table:formula="of:=[.A1]*[.A2]"`) || !strings.Contains(content, `office:value="42"`) {
					return fmt.Errorf("sheet.ods has no A1*A2 formula worth 42: %s", cut(content[min(len(content), strings.Index(content, "<office:body")+1):], 1500))
				}
				return nil
			}},
		{name: "calc-cell-csv", toolkit: "LibreOffice (VCL gtk3)", app: "libreoffice --calc",
			goal:  "find cell C3 by name, click it, type a value, save as .csv and answer the two format dialogs",
			setup: profile,
			steps: func(x *run) []step {
				calc := win("LibreOffice Calc")
				s := office(x, "--calc", "LibreOffice Calc")
				// The window appears before the sheet's cells are exposed (LibreOffice still starting
				// under load): an agent waits for the cell it means to click.
				s = append(s, waitFor(calc, obj{"name": "C3"}), click(calc, obj{"name": "C3"}), keys("chars:mcec was here\n"))
				s = append(s, keys("key:ctrl+shift+s"), appears("Save"), keys("chars:"+x.path("cells.csv")), keys("enter"),
					appears("Confirm File Format"),
					invoke(win("Confirm File Format"), obj{"nameContains": "Use Text CSV", "role": "push button"}, "invoke"),
					appears("Export Text File"),
					invoke(win("Export Text File"), obj{"name": "OK", "role": "push button"}, "invoke"),
					gone("Export Text File"))
				return s
			},
			check: func(x *run) error { return fileHas(x.path("cells.csv"), ",,\n,,\n,,mcec was here") }},
	}
}

// boldWord checks an .odt: the paragraph has plain then the word in a span whose automatic style
// is bold.
func boldWord(path, plain, word string) error {
	content, err := zipEntry(path, "content.xml")
	if err != nil {
		return err
	}
	m := regexp.MustCompile(regexp.QuoteMeta(plain) + `<text:span text:style-name="([^"]+)">` + regexp.QuoteMeta(word) + `</text:span>`).FindStringSubmatch(content)
	if m == nil {
		return fmt.Errorf("no %q followed by a span %q in content.xml: %s", plain, word, cut(content[min(len(content), max(0, strings.Index(content, "<office:body"))):], 1200))
	}
	style := regexp.MustCompile(`<style:style style:name="` + regexp.QuoteMeta(m[1]) + `"[^>]*>.*?</style:style>`).FindString(content)
	if !strings.Contains(style, `fo:font-weight="bold"`) {
		return fmt.Errorf("the span's style %s is not bold: %s", m[1], style)
	}
	return nil
}

// ---- apps without a tree: Tk and xterm ----

// ---- toolkits whose bridges launch switches on: GTK 2, EFL ----

func bridgeTasks() []*task {
	demo := win("GTK+ Code Demos")
	term := win("Terminology")
	return []*task{
		{name: "gtk2-demo", toolkit: "GTK 2", app: "gtk-demo (gtk2.0-examples)",
			goal: "open the Button Boxes demo from gtk-demo's list (a GTK 2 tree, there only with the modules launch sets)",
			steps: func(x *run) []step {
				return []step{launch("gtk-demo"), appears("GTK+ Code Demos"),
					invoke(demo, obj{"name": "Button Boxes", "role": "table cell"}, "invoke"), appears("Button Boxes")}
			},
			check: func(x *run) error { return x.ocrHas("Button Boxes", "Horizontal") }},
		// Typing into the terminal is not part of it: with the accessibility bridge on, EFL 1.26
		// drops every key (XTEST's and xdotool's alike; docs/troubleshooting.md).
		{name: "efl-terminology", toolkit: "EFL (Elementary)", app: "terminology",
			goal: "finish Terminology's first-run scale wizard with its Done button (an EFL tree, there only with ELM_ATSPI_MODE)",
			steps: func(x *run) []step {
				return []step{launch("terminology"), appears("Terminology"),
					invoke(term, obj{"name": "Done", "role": "push button"}, "invoke"),
					waitGone(term, obj{"name": "Done", "role": "push button"})}
			},
			// Terminology writes its configuration when the wizard is done.
			check: func(x *run) error {
				return fileHas(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "terminology", "config", "standard", "base.cfg"))
			}},
	}
}

func pixelTasks() []*task {
	tk := win("Tasks Tk App")
	term := win("Tasks xterm")
	xterm := func() step {
		// A shell without the machine's startup files, so the prompt is known ("bash-5.2# ") and
		// nothing of the user's .bashrc runs: the task types once the prompt shows, as a person
		// would (keys typed before the shell reads them are the terminal's, not the shell's).
		return launch("xterm", "-T", "Tasks xterm", "-fa", "DejaVu Sans Mono", "-fs", "14", "-geometry", "70x12+40+40",
			"-e", "bash", "--norc", "--noprofile")
	}
	return []*task{
		{name: "tk-button", toolkit: "Tk 8.6", app: "wish testdata/tk_app.tcl",
			goal: "press the Count button twice, found on screen by OCR word boxes (Tk has no tree)",
			steps: func(x *run) []step {
				return []step{launch("wish", data("tk_app.tcl"), x.statePath()), appears("Tasks Tk App"),
					ocrWord(tk, "Count", "words"), clickWord(tk, "words", "Count"), clickWord(tk, "words", "Count")}
			},
			check: func(x *run) error { return x.stateIs(obj{"count": 2}) }},
		{name: "tk-entry", toolkit: "Tk 8.6", app: "wish testdata/tk_app.tcl",
			goal: "click into the Word entry (right of its label, found by OCR), type a word and press Save",
			steps: func(x *run) []step {
				return []step{launch("wish", data("tk_app.tcl"), x.statePath()), appears("Tasks Tk App"),
					ocrWord(tk, "Word", "words"),
					step{tool: "click", argsFn: func(v vars) (obj, error) {
						list, _ := v["words"].([]any)
						for _, w := range list {
							if t, _ := lookup(w, "text"); t != "Word" {
								continue
							}
							m, _ := w.(map[string]any)
							wx, _ := m["x"].(float64)
							wy, _ := m["y"].(float64)
							wh, _ := m["height"].(float64)
							// The entry starts about 100 px right of its label's left edge.
							return obj{"at": obj{"x": int(wx + 150), "y": int(wy + wh/2)}}, nil
						}
						return nil, fmt.Errorf("no word box Word")
					}},
					keys("chars:dog"), clickWord(tk, "words", "Save")}
			},
			check: func(x *run) error { return x.stateIs(obj{"saved": "dog"}) }},
		{name: "xterm-command", toolkit: "X11 (no toolkit)", app: "xterm",
			goal: "run a shell command in xterm and read its output back with get-text",
			steps: func(x *run) []step {
				return []step{xterm(), appears("Tasks xterm"), getText(term, "bash-"), focus(term),
					keys("chars:expr 1234 \\* 5 | tee " + x.path("out.txt") + "\n"), getText(term, "6170")}
			},
			check: func(x *run) error {
				if err := fileHas(x.path("out.txt"), "6170\n"); err != nil {
					return err
				}
				return x.ocrHas("Tasks xterm", "6170")
			}},
		{name: "xterm-unicode", toolkit: "X11 (no toolkit)", app: "xterm", short: true,
			goal: "type a command with characters missing from the keymap (ü, ß, €) into xterm",
			steps: func(x *run) []step {
				return []step{xterm(), appears("Tasks xterm"), getText(term, "bash-"), focus(term),
					keys("chars:printf '%s\\n' 'Grüße 5€' > " + x.path("u.txt") + "\n")}
			},
			check: func(x *run) error { return fileHas(x.path("u.txt"), "Grüße 5€\n") }},
	}
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
