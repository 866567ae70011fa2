package reach_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcec/mcec/internal/headless"
)

// browserLaunch bounds the launch of a browser or an office app with a fresh profile: Firefox
// took more than 30 s to map its window beside a second make test (load 7 on 2 cores).
const browserLaunch = 60000

// appLaunch is the launch bound of every other application: a bound, not a wait (an idle machine
// shows their windows in 1-3 s; beside a second make test a GTK 4 app on GNOME took over 15 s).
const appLaunch = 45000

// app is one application of one toolkit, how it is started (plainly, as a user would: mcec's
// launch must switch accessibility on by itself) and the table of what must work.
type app struct {
	name    string // subtest name
	toolkit string
	program string // what runs, for the report
	// argv builds the launch tool's path and arguments; dir is a fresh temporary directory (for
	// profiles) and data the testdata directory.
	argv          []string
	launchTimeout int    // ms, the launch tool's timeout: a bound, not a wait
	title         string // a substring of the main window's title once it is ready
	table         []expectation
	drive         func(r *run)
	// desktop is the kind of private desktop it runs on ("": X11).
	desktop headless.Kind
	// settledTitle: launch must report the title the window settles on (title), not the
	// placeholder it shows first (a browser's "Blank page" or "New Tab").
	settledTitle bool
}

// common are the checks every app with a tree gets.
var common = []check{cLaunch, cTree, cDepth, cRoles, cNames, cBounds, cCapture, cSurvive}

// formChecks are the checks of the suite's own forms.
var formChecks = append(append([]check{}, common...), cValues, cSetValue, cInvoke, cToggle, cWaitFor, cDialog, cMainDialog)

// table builds an app's table: every check required, except the pending ones.
func table(checks []check, pend ...expectation) []expectation {
	out := req(checks...)
	for _, p := range pend {
		found := false
		for i := range out {
			if out[i].check == p.check {
				out[i], found = p, true
			}
		}
		if !found {
			out = append(out, p)
		}
	}
	return out
}

// apps lists the applications, one per toolkit and a real app where the toolkit's own forms
// could hide what real apps do. dir is the test's temporary directory.
func apps(t *testing.T, dir string) []*app {
	data, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"firefox", "firefox-wayland", "firefox-kwin", "firefox-gnome"} {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o700); err != nil { // --profile wants it to exist
			t.Fatal(err)
		}
	}
	py := "/usr/bin/python3" // Debian's, with python3-gi and PyQt
	page := "file://" + filepath.Join(data, "form.html")
	x11 := []*app{
		{name: "GTK3", toolkit: "GTK 3", program: "testdata/gtk3_form.py (python3-gi)",
			argv: []string{py, filepath.Join(data, "gtk3_form.py")}, launchTimeout: appLaunch, title: "Reach GTK3 Form",
			table: table(formChecks), drive: func(r *run) { r.form(false) }},
		{name: "GTK4", toolkit: "GTK 4", program: "testdata/gtk4_form.py (python3-gi)",
			argv: []string{py, filepath.Join(data, "gtk4_form.py")}, launchTimeout: appLaunch, title: "Reach GTK4 Form",
			table: table(formChecks), drive: func(r *run) { r.form(false) }},
		{name: "GTK4-demo", toolkit: "GTK 4", program: "gtk4-demo",
			argv: []string{"gtk4-demo"}, launchTimeout: appLaunch, title: "GTK Demo",
			table: table(append(append([]check{}, common...), cSetValue, cInvoke, cWaitFor, cDialog, cMainDialog),
				pending(cDialog, "with the Dialogs demo window (transient for the main window) holding the focus, openbox will not "+
					"activate the main window, and the Primary menu popover that the click opens does not stay open; close the demo first"),
				pending(cMainDialog, "follows dialog-tree")),
			drive: func(r *run) { r.gtk4Demo() }},
		{name: "Qt5", toolkit: "Qt 5", program: "testdata/qt_form.py 5 (PyQt5)",
			argv: []string{py, filepath.Join(data, "qt_form.py"), "5"}, launchTimeout: appLaunch, title: "Reach Qt5 Form",
			table: table(formChecks), drive: func(r *run) { r.form(false) }},
		{name: "Qt6", toolkit: "Qt 6", program: "testdata/qt_form.py 6 (PyQt6)",
			argv: []string{py, filepath.Join(data, "qt_form.py"), "6"}, launchTimeout: appLaunch, title: "Reach Qt6 Form",
			table: table(formChecks), drive: func(r *run) { r.form(false) }},
		{name: "Qt5-featherpad", toolkit: "Qt 5", program: "featherpad",
			argv: []string{"featherpad"}, launchTimeout: appLaunch, title: "Untitled",
			table: table(append(append([]check{}, common...), cSetValue, cInvoke, cWaitFor, cDialog, cMainDialog)),
			drive: func(r *run) { r.featherpad() }},
		{name: "Chromium", toolkit: "Chromium", program: "chromium, testdata/form.html", settledTitle: true,
			argv: []string{"chromium", "--no-sandbox", "--no-first-run", "--disable-gpu", "--user-data-dir=" + filepath.Join(dir, "chromium"),
				"--disable-background-networking", "--disable-component-update", "--disable-sync", page},
			launchTimeout: browserLaunch, title: "Reach Web Form",
			table: table(append(append([]check{}, common...), cValues, cSetValue, cInvoke, cToggle, cWaitFor, cDialog)),
			drive: func(r *run) { r.form(true) }},
		{name: "Firefox", toolkit: "Firefox (Gecko)", program: "firefox-esr, testdata/form.html", settledTitle: true,
			argv:          []string{"firefox-esr", "--no-remote", "--profile", filepath.Join(dir, "firefox"), page},
			launchTimeout: browserLaunch, title: "Reach Web Form",
			table: table(append(append([]check{}, common...), cValues, cSetValue, cInvoke, cToggle, cWaitFor, cDialog)),
			drive: func(r *run) { r.form(true) }},
		{name: "Epiphany", toolkit: "WebKitGTK (Epiphany)", program: "epiphany --private-instance, testdata/form.html", settledTitle: true,
			argv:          []string{"epiphany", "--private-instance", page},
			launchTimeout: browserLaunch, title: "Reach Web Form",
			table: table(append(append([]check{}, common...), cValues, cSetValue, cInvoke, cToggle, cWaitFor, cDialog)),
			drive: func(r *run) { r.form(true) }},
		{name: "GTK2-demo", toolkit: "GTK 2", program: "gtk-demo (gtk2.0-examples)",
			argv: []string{"gtk-demo"}, launchTimeout: appLaunch, title: "GTK+ Code Demos",
			table: table(append(append([]check{}, common...), cInvoke)), drive: func(r *run) { r.gtk2Demo() }},
		{name: "EFL-terminology", toolkit: "EFL (Elementary)", program: "terminology",
			argv: []string{"terminology"}, launchTimeout: appLaunch, title: "Terminology",
			table: table(append(append([]check{}, common...), cInvoke)), drive: func(r *run) { r.terminology() }},
		{name: "Writer", toolkit: "LibreOffice (VCL gtk3)", program: "libreoffice --writer",
			argv:          []string{"libreoffice", "--norestore", "-env:UserInstallation=file://" + filepath.Join(dir, "lo-writer"), "--writer"},
			launchTimeout: browserLaunch, title: "LibreOffice Writer",
			table: table(append(append([]check{}, common...), cSetValue, cInvoke, cWaitFor, cDialog, cMainDialog),
				pending(cInvoke, "flaky beside Calc on 2 cores: invoke of View > Status Bar answers ok (by hand its effect shows the item -checked), "+
					"yet in some runs the word count still shows 5 s later")),
			drive: func(r *run) { r.writer() }},
		{name: "Calc", toolkit: "LibreOffice (VCL gtk3)", program: "libreoffice --calc",
			argv:          []string{"libreoffice", "--norestore", "-env:UserInstallation=file://" + filepath.Join(dir, "lo-calc"), "--calc"},
			launchTimeout: browserLaunch, title: "LibreOffice Calc",
			table: table(append(append([]check{}, common...), cFindCell, cQueryBudget, cDialog, cMainDialog)),
			drive: func(r *run) { r.calc() }},
		{name: "Tk", toolkit: "Tk 8.6", program: "wish testdata/tk_form.tcl",
			argv: []string{"wish", filepath.Join(data, "tk_form.tcl")}, launchTimeout: appLaunch, title: "Reach Tk Form",
			table: table([]check{cLaunch, cPID, cNoTree, cCapture, cPixelClick, cSurvive}),
			drive: func(r *run) { r.pixels(true) }},
		{name: "Swing", toolkit: "Java Swing", program: "java testdata/Form.java (OpenJDK 17)",
			argv: []string{"java", filepath.Join(data, "Form.java")}, launchTimeout: appLaunch, title: "Reach Swing Form",
			table: table(formChecks), drive: func(r *run) { r.form(false) }},
		{name: "xterm", toolkit: "X11 (no toolkit)", program: "xterm -e sh -c 'echo hello; echo world; exec sleep 600'",
			argv:          []string{"xterm", "-T", "Reach xterm", "-e", "sh", "-c", "echo hello; echo world; exec sleep 600"},
			launchTimeout: appLaunch, title: "Reach xterm",
			table: table([]check{cLaunch, cPID, cNoTree, cCapture, cOCR, cSurvive}),
			drive: func(r *run) { r.pixels(false) }},
	}
	out := append(x11, onWayland(x11, headless.Wayland, "GTK3", "GTK4", "GTK4-demo", "Qt5", "Qt6", "Qt5-featherpad", "Chromium", "Firefox", "Epiphany")...)
	out = append(out, onWayland(x11, headless.KWin, "GTK3", "GTK4", "Qt5", "Chromium", "Firefox")...)
	return append(out, onWayland(x11, headless.GNOME, "GTK3", "GTK4", "Qt5", "Chromium", "Firefox")...)
}

// onWayland makes the apps named run natively on a private Wayland desktop of kind too (headless
// sway, KDE's KWin, or GNOME Shell with mcec's extension), with the same checks: rows of their
// own, named "… (Wayland)", "… (KWin)" and "… (GNOME)".
func onWayland(apps []*app, kind headless.Kind, names ...string) []*app {
	suffix := map[headless.Kind]string{headless.Wayland: "Wayland", headless.KWin: "KWin", headless.GNOME: "GNOME"}[kind]
	var out []*app
	for _, a := range apps {
		if !slices.Contains(names, a.name) {
			continue
		}
		w := *a
		w.name += "-" + suffix
		w.toolkit += " (" + suffix + ")"
		w.desktop = kind
		w.argv = slices.Clone(a.argv)
		for i, arg := range w.argv {
			// Profiles of their own: the X11 row's may still be in use.
			if strings.HasPrefix(arg, "--user-data-dir=") || i > 0 && w.argv[i-1] == "--profile" {
				w.argv[i] = strings.TrimSuffix(arg, "/") + "-" + strings.ToLower(suffix)
			}
		}
		out = append(out, &w)
	}
	return out
}
