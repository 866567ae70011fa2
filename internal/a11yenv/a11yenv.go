// Package a11yenv is the one place that knows each toolkit's accessibility switches: the
// environment variables and arguments that make a program publish its AT-SPI tree without the
// user knowing the tricks (Env, Prepare, For), and which loaded libraries say that a running
// process carries a bridge at all (ClassifyMaps, ProcessBridge).
//
// Everything mcec starts goes through it: the private desktop's environment (internal/headless),
// and every program the daemon starts (launch, --launch, raw-command program entries), on the
// private desktop and on an attached one alike. It changes only the started program's own
// environment, never the user's settings.
package a11yenv

import (
	"slices"
	"strings"
)

// switches are set in every program's environment. Each one is read by one family of toolkits
// and ignored by the rest.
var switches = []struct{ key, value string }{
	// Qt 5 and 6 read org.a11y.Status.IsEnabled once at start-up; this makes them publish anyway.
	{"QT_LINUX_ACCESSIBILITY_ALWAYS_ON", "1"},
	// Qt 4 and early Qt 5.
	{"QT_ACCESSIBILITY", "1"},
	// Mozilla apps (Firefox, Thunderbird) and older GNOME libraries.
	{"GNOME_ACCESSIBILITY", "1"},
	// Chromium and Electron: the browser side of their tree (renderers need the flag too).
	{"ACCESSIBILITY_ENABLED", "1"},
	// EFL (Elementary: Terminology, Enlightenment's apps) publishes only in this mode.
	{"ELM_ATSPI_MODE", "1"},
}

// GTK 2 loads its accessibility (GAIL) and the AT-SPI bridge only as modules named in
// GTK_MODULES; they are added to the user's own list. GTK 3 and 4 have both built in and ignore
// modules they do not find (checked: no message, no change).
const gtkModulesVar = "GTK_MODULES"

var gtk2Modules = []string{"gail", "atk-bridge"}

// NO_AT_BRIDGE=1 hides a GTK app from AT-SPI entirely. GTK3 needs nothing else (its ATK bridge is
// built in); GTK4 publishes by default unless GTK_A11Y=none.
const noAtBridge = "NO_AT_BRIDGE"

// Chromium's switch for the renderer (page) part of the tree; without it a page is one node.
const rendererFlag = "--force-renderer-accessibility"

// Chromium's switch for its display server: on a Wayland desktop without X it must be told, as
// Debian's build defaults to X11 and then fails to open a display.
const ozoneFlag = "--ozone-platform"

// The Java ATK wrapper's options (Debian package libatk-wrapper-java).
const (
	javaOptionsVar = "JAVA_TOOL_OPTIONS"
	atTechProperty = "-Djavax.accessibility.assistive_technologies="
	atkWrapper     = "org.GNOME.Accessibility.AtkWrapper"
)

// Env returns base with every toolkit switch set and the variables that hide programs from
// AT-SPI removed; everything else is kept in order. It is idempotent and does not modify base.
func Env(base []string) []string {
	out := make([]string, 0, len(base)+len(switches))
	for _, kv := range base {
		k, v, _ := strings.Cut(kv, "=")
		if k == noAtBridge || k == "GTK_A11Y" && v == "none" ||
			slices.ContainsFunc(switches, func(s struct{ key, value string }) bool { return s.key == k }) {
			continue
		}
		out = append(out, kv)
	}
	for _, s := range switches {
		out = append(out, s.key+"="+s.value)
	}
	return setVar(out, gtkModulesVar, withModules(lookup(out, gtkModulesVar), gtk2Modules))
}

// withModules adds the modules missing from a colon-separated GTK_MODULES list, keeping its order.
func withModules(list string, modules []string) string {
	have := strings.FieldsFunc(list, func(r rune) bool { return r == ':' })
	for _, m := range modules {
		if !slices.Contains(have, m) {
			have = append(have, m)
		}
	}
	return strings.Join(have, ":")
}

// Program is what Prepare needs to know about the program beyond its arguments; Inspect reads it
// from the file system.
type Program struct {
	// Chromium: Chromium, Chrome or an Electron app, whose renderers publish only with rendererFlag.
	Chromium bool
	// Java: a JVM, or a script that starts one.
	Java bool
}

// Host is what is installed on this machine; DetectHost reads it.
type Host struct {
	// JavaATKWrapper is the path of java-atk-wrapper.jar when it and its JNI library are both
	// installed, "" otherwise.
	JavaATKWrapper string
}

// Prepare returns the environment and argv (argv[0] included) to start a program with so that its
// toolkit publishes its accessibility tree: Env's switches for everyone, the renderer flag for
// Chromium and Electron, the ATK wrapper for Java when the host has it. Neither input is modified.
func Prepare(env, argv []string, p Program, h Host) ([]string, []string) {
	env = Env(env)
	argv = slices.Clone(argv)
	if p.Chromium {
		argv = withSwitch(argv, rendererFlag, "")
		if lookup(env, "WAYLAND_DISPLAY") != "" && lookup(env, "DISPLAY") == "" {
			argv = withSwitch(argv, ozoneFlag, "wayland")
		}
	}
	if p.Java && h.JavaATKWrapper != "" {
		env = setVar(env, javaOptionsVar, javaOptions(lookup(env, javaOptionsVar), h.JavaATKWrapper))
	}
	return env, argv
}

// withSwitch returns argv with the switch name (=value when value is set) added unless argv
// has it already, before a lone "--" (after which switches are not switches any more).
func withSwitch(argv []string, name, value string) []string {
	if len(argv) == 0 || slices.ContainsFunc(argv[1:], func(a string) bool { return a == name || strings.HasPrefix(a, name+"=") }) {
		return argv
	}
	at := len(argv)
	if i := slices.Index(argv[1:], "--"); i >= 0 {
		at = i + 1
	}
	if value != "" {
		name += "=" + value
	}
	return slices.Insert(argv, at, name)
}

// javaOptions merges the ATK wrapper's options into existing JAVA_TOOL_OPTIONS: the jar is added to
// the boot class path unless it is there already, and the wrapper joins any assistive technologies
// the user listed.
func javaOptions(existing, jar string) string {
	fields := strings.Fields(existing)
	if !strings.Contains(existing, jar) {
		fields = append(fields, "-Xbootclasspath/a:"+jar)
	}
	i := slices.IndexFunc(fields, func(f string) bool { return strings.HasPrefix(f, atTechProperty) })
	switch {
	case i < 0:
		fields = append(fields, atTechProperty+atkWrapper)
	case !slices.Contains(strings.Split(strings.TrimPrefix(fields[i], atTechProperty), ","), atkWrapper):
		if fields[i] == atTechProperty {
			fields[i] += atkWrapper
		} else {
			fields[i] += "," + atkWrapper
		}
	}
	return strings.Join(fields, " ")
}

// lookup returns the last value of key in env ("" when unset), as the C library would.
func lookup(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

// setVar returns env with key set to value, once.
func setVar(env []string, key, value string) []string {
	env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, key+"=") })
	return append(env, key+"="+value)
}

// For is Prepare with the program inspected at path (the resolved executable, as exec.Cmd.Path
// holds it) and the host detected now.
func For(env []string, path string, argv []string) ([]string, []string) {
	return Prepare(env, argv, Inspect(path), DetectHost())
}
