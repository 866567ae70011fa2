package a11yenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func envMap(t *testing.T, env []string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if _, dup := m[k]; dup {
			t.Errorf("%s is set twice in %q", k, env)
		}
		m[k] = v
	}
	return m
}

func TestEnv(t *testing.T) {
	base := []string{"PATH=/usr/bin", "NO_AT_BRIDGE=1", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=0", "GTK_A11Y=none", "KEEP=x=y"}
	orig := slices.Clone(base)
	got := Env(base)
	if !slices.Equal(base, orig) {
		t.Errorf("Env modified its input: %q", base)
	}
	m := envMap(t, got)
	want := map[string]string{"PATH": "/usr/bin", "KEEP": "x=y", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1",
		"QT_ACCESSIBILITY": "1", "GNOME_ACCESSIBILITY": "1", "ACCESSIBILITY_ENABLED": "1", "ELM_ATSPI_MODE": "1",
		"GTK_MODULES": "gail:atk-bridge"}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %q, want %q", k, m[k], v)
		}
	}
	for _, k := range []string{"NO_AT_BRIDGE", "GTK_A11Y"} {
		if v, ok := m[k]; ok {
			t.Errorf("%s=%q should be removed", k, v)
		}
	}
	if again := Env(got); !slices.Equal(again, got) {
		t.Errorf("Env is not idempotent:\n%q\n%q", got, again)
	}
	// The user's own GTK modules stay, in order; ours join once.
	if m := envMap(t, Env([]string{"GTK_MODULES=canberra-gtk-module:atk-bridge"})); m["GTK_MODULES"] != "canberra-gtk-module:atk-bridge:gail" {
		t.Errorf("GTK_MODULES = %q", m["GTK_MODULES"])
	}
	// GTK_A11Y set to a backend other than none is the user's choice.
	if m := envMap(t, Env([]string{"GTK_A11Y=atspi"})); m["GTK_A11Y"] != "atspi" {
		t.Errorf("GTK_A11Y=atspi dropped")
	}
}

func TestPrepareChromium(t *testing.T) {
	chromium := Program{Chromium: true}
	tests := []struct {
		name string
		p    Program
		argv []string
		want []string
	}{
		{"appended", chromium, []string{"chromium", "https://example.org"}, []string{"chromium", "https://example.org", rendererFlag}},
		{"alone", chromium, []string{"chromium"}, []string{"chromium", rendererFlag}},
		{"present", chromium, []string{"chromium", rendererFlag, "x"}, []string{"chromium", rendererFlag, "x"}},
		{"present with a value", chromium, []string{"chromium", rendererFlag + "=complete"}, []string{"chromium", rendererFlag + "=complete"}},
		{"before a lone --", chromium, []string{"electron", "app", "--", "--not-a-switch"}, []string{"electron", "app", rendererFlag, "--", "--not-a-switch"}},
		{"not chromium", Program{}, []string{"xterm", "-e", "top"}, []string{"xterm", "-e", "top"}},
		{"argv[0] is not an argument", chromium, []string{rendererFlag}, []string{rendererFlag, rendererFlag}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.argv)
			_, got := Prepare(nil, in, tt.p, Host{})
			if !slices.Equal(got, tt.want) {
				t.Errorf("argv %q, want %q", got, tt.want)
			}
			if !slices.Equal(in, tt.argv) {
				t.Errorf("Prepare modified its argv: %q", in)
			}
		})
	}
}

// TestPrepareChromiumWayland: on a Wayland desktop without X, Chromium is told to use Wayland.
func TestPrepareChromiumWayland(t *testing.T) {
	chromium := Program{Chromium: true}
	wl := []string{"WAYLAND_DISPLAY=wayland-1"}
	for _, tt := range []struct {
		name string
		env  []string
		argv []string
		want []string
	}{
		{"wayland", wl, []string{"chromium"}, []string{"chromium", rendererFlag, ozoneFlag + "=wayland"}},
		{"xwayland too", append(wl, "DISPLAY=:0"), []string{"chromium"}, []string{"chromium", rendererFlag}},
		{"x11", []string{"DISPLAY=:0"}, []string{"chromium"}, []string{"chromium", rendererFlag}},
		{"asked for x11", wl, []string{"chromium", ozoneFlag + "=x11"}, []string{"chromium", ozoneFlag + "=x11", rendererFlag}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, got := Prepare(tt.env, tt.argv, chromium, Host{}); !slices.Equal(got, tt.want) {
				t.Errorf("argv %q, want %q", got, tt.want)
			}
		})
	}
	if _, got := Prepare(wl, []string{"xterm"}, Program{}, Host{}); !slices.Equal(got, []string{"xterm"}) {
		t.Errorf("not chromium: argv %q", got)
	}
}

func TestPrepareJava(t *testing.T) {
	const jar = "/usr/share/java/java-atk-wrapper.jar"
	wrapper := Host{JavaATKWrapper: jar}
	ours := "-Xbootclasspath/a:" + jar + " " + atTechProperty + atkWrapper
	tests := []struct {
		name     string
		p        Program
		h        Host
		existing string // "" = unset
		want     string // "" = unset
	}{
		{"set", Program{Java: true}, wrapper, "", ours},
		{"merged with the user's", Program{Java: true}, wrapper, "-Xmx512m", "-Xmx512m " + ours},
		{"joins the user's assistive technologies", Program{Java: true}, wrapper, atTechProperty + "com.example.Reader",
			atTechProperty + "com.example.Reader," + atkWrapper + " -Xbootclasspath/a:" + jar},
		{"an empty assistive technologies list", Program{Java: true}, wrapper, atTechProperty, atTechProperty + atkWrapper + " -Xbootclasspath/a:" + jar},
		{"already there", Program{Java: true}, wrapper, ours, ours},
		{"no wrapper installed", Program{Java: true}, Host{}, "", ""},
		{"no wrapper installed keeps the user's", Program{Java: true}, Host{}, "-Xmx1g", "-Xmx1g"},
		{"not java", Program{}, wrapper, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := []string{"HOME=/root"}
			if tt.existing != "" {
				env = append(env, javaOptionsVar+"="+tt.existing)
			}
			got, argv := Prepare(env, []string{"java", "-jar", "app.jar"}, tt.p, tt.h)
			m := envMap(t, got)
			if v, ok := m[javaOptionsVar]; v != tt.want || ok != (tt.want != "") {
				t.Errorf("%s = %q (set %v), want %q", javaOptionsVar, v, ok, tt.want)
			}
			if !slices.Equal(argv, []string{"java", "-jar", "app.jar"}) {
				t.Errorf("argv changed: %q", argv)
			}
			if m["QT_LINUX_ACCESSIBILITY_ALWAYS_ON"] != "1" {
				t.Error("Prepare skipped Env's switches")
			}
		})
	}
}

func write(t *testing.T, path, content string, mode os.FileMode) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	return path
}

func symlink(t *testing.T, target, link string) string {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	return link
}

func TestInspect(t *testing.T) {
	dir := t.TempDir()
	bin := write(t, filepath.Join(dir, "opt/browser/chrome"), "\x7fELF", 0o755)
	electron := write(t, filepath.Join(dir, "opt/Editor/editor"), "\x7fELF", 0o755)
	write(t, filepath.Join(dir, "opt/Editor/resources/app.asar"), "", 0o644)
	jvm := write(t, filepath.Join(dir, "jvm/bin/java"), "\x7fELF", 0o755)
	tests := []struct {
		path string
		want Program
	}{
		{write(t, filepath.Join(dir, "chromium"), "#!/bin/sh\nexec /usr/lib/chromium/chromium \"$@\"\n", 0o755), Program{Chromium: true}},
		{write(t, filepath.Join(dir, "google-chrome-stable"), "\x7fELF", 0o755), Program{Chromium: true}},
		{write(t, filepath.Join(dir, "electron25"), "\x7fELF", 0o755), Program{Chromium: true}},
		{symlink(t, bin, filepath.Join(dir, "my-browser")), Program{Chromium: true}},
		{electron, Program{Chromium: true}},
		{symlink(t, electron, filepath.Join(dir, "editor-link")), Program{Chromium: true}},
		{symlink(t, jvm, filepath.Join(dir, "jre-link")), Program{Java: true}},
		{write(t, filepath.Join(dir, "ide.sh"), "#!/bin/sh\nJAVA=${JAVA_HOME:-/usr}/bin/java\nexec \"$JAVA\" -cp lib/* Main\n", 0o755), Program{Java: true}},
		{write(t, filepath.Join(dir, "tool"), "#!/bin/bash\nexec java -jar /opt/tool/tool.jar \"$@\"\n", 0o755), Program{Java: true}},
		{write(t, filepath.Join(dir, "Hello.java"), "#!/usr/bin/java --source 17\nclass Hello {}\n", 0o755), Program{Java: true}},
		{write(t, filepath.Join(dir, "javascript-thing"), "#!/bin/sh\necho javascript and javadoc\n", 0o755), Program{}},
		{write(t, filepath.Join(dir, "binary-mentioning-java"), "\x7fELF exec java -jar x", 0o755), Program{}},
		{filepath.Join(dir, "missing"), Program{}},
	}
	for _, tt := range tests {
		if got := Inspect(tt.path); got != tt.want {
			t.Errorf("Inspect(%s) = %+v, want %+v", strings.TrimPrefix(tt.path, dir), got, tt.want)
		}
	}
	// The machine's own programs, where installed.
	for name, want := range map[string]Program{"chromium": {Chromium: true}, "java": {Java: true}, "xterm": {}} {
		if path, err := exec.LookPath(name); err == nil {
			if got := Inspect(path); got != want {
				t.Errorf("Inspect(%s) = %+v, want %+v", path, got, want)
			}
		}
	}
}

func TestFindJavaWrapper(t *testing.T) {
	dir := t.TempDir()
	jar := write(t, filepath.Join(dir, "share/java/java-atk-wrapper.jar"), "PK", 0o644)
	globs := []string{filepath.Join(dir, "lib/*/jni/libatk-wrapper.so*")}
	if got := findJavaWrapper(jar, globs); got != "" {
		t.Errorf("a jar without its JNI library counted: %q", got)
	}
	write(t, filepath.Join(dir, "lib/x86_64-linux-gnu/jni/libatk-wrapper.so"), "", 0o644)
	if got := findJavaWrapper(jar, globs); got != jar {
		t.Errorf("findJavaWrapper = %q, want %q", got, jar)
	}
	if got := findJavaWrapper(filepath.Join(dir, "nope.jar"), globs); got != "" {
		t.Errorf("a missing jar counted: %q", got)
	}
}

func TestClassifyMaps(t *testing.T) {
	const atk = "7f0-7f1 r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/libatk-bridge-2.0.so.0.0.0\n"
	lib := func(name string) string { return "7f0-7f1 r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/" + name + "\n" }
	tests := []struct {
		name, maps, exe string
		toolkit         string
		publishes       bool
	}{
		{"gtk3", lib("libgtk-3.so.0.2406.32") + atk, "/usr/bin/gtk3-widget-factory", "GTK 3", true},
		{"gtk3 without its bridge", lib("libgtk-3.so.0.2406.32"), "/usr/bin/x", "", false},
		{"gtk4", lib("libgtk-4.so.1.800.3"), "/usr/bin/gtk4-demo", "GTK 4", true},
		{"qt5 with a gtk theme", lib("libQt5Gui.so.5.15.8") + lib("libgtk-3.so.0") + atk, "/usr/bin/featherpad", "Qt 5", true},
		{"qt6", lib("libQt6Gui.so.6.4.2"), "/usr/bin/python3.11", "Qt 6", true},
		{"firefox", lib("libgtk-3.so.0") + atk + "7f0-7f1 r-xp 0 08:01 1 /usr/lib/firefox-esr/libxul.so\n", "/usr/lib/firefox-esr/firefox-esr", "Gecko", true},
		{"chromium", lib("libgtk-3.so.0") + atk, "/usr/lib/chromium/chromium", "Chromium", true},
		{"chromium by name alone", "", "/opt/google/chrome/chrome", "Chromium", true},
		{"java with the wrapper", lib("jni/libatk-wrapper.so.6.0.0") + atk + "7f0-7f1 r-xp 0 08:01 1 /usr/lib/jvm/java-17-openjdk-amd64/lib/libawt_xawt.so\n", "/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "Java (ATK wrapper)", true},
		{"java without it", "7f0-7f1 r-xp 0 08:01 1 /usr/lib/jvm/java-17-openjdk-amd64/lib/libawt_xawt.so\n", "/usr/lib/jvm/java-17-openjdk-amd64/bin/java", "Java", false},
		{"libreoffice", lib("libgtk-3.so.0") + atk + "7f0-7f1 r-xp 0 08:01 1 /usr/lib/libreoffice/program/libvclplug_gtk3lo.so\n", "/usr/lib/libreoffice/program/soffice.bin", "GTK 3", true},
		{"gtk2 with its modules", lib("libgtk-x11-2.0.so.0.2400.33") + atk + lib("gtk-2.0/modules/libgail.so"), "/usr/bin/gtk-demo", "GTK 2", true},
		{"gtk2 without them", lib("libgtk-x11-2.0.so.0.2400.33"), "/usr/bin/gimp-2.10", "GTK 2", false},
		{"efl", lib("libelementary.so.1.26.3") + lib("libeldbus.so.1"), "/usr/bin/terminology", "EFL", true},
		{"tk", lib("libtk8.6.so"), "/usr/bin/wish8.6", "Tk", false},
		{"xterm", lib("libXaw.so.7.0.0") + lib("libX11.so.6"), "/usr/bin/xterm", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := ClassifyMaps([]byte(tt.maps), tt.exe)
			if b.Toolkit != tt.toolkit || b.Publishes != tt.publishes {
				t.Errorf("%+v, want toolkit %q publishes %v", b, tt.toolkit, tt.publishes)
			}
			if !b.Publishes && b.Hint == "" {
				t.Error("no hint for a process without a tree")
			}
		})
	}
}

func TestProcessBridge(t *testing.T) {
	// The test binary loads no toolkit.
	b, err := ProcessBridge(os.Getpid())
	if err != nil || b.Publishes {
		t.Errorf("ProcessBridge(self) = %+v, %v", b, err)
	}
	if _, err := ProcessBridge(1 << 30); err == nil {
		t.Error("a process that does not exist classified")
	}
}
