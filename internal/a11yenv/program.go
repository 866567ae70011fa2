package a11yenv

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Inspect tells from the file system what kind of program path is: Chromium-like by its name or
// its symlink target's name, or by an Electron app.asar beside it; Java by name, or a script
// that starts a JVM. Errors count as "no": a program Inspect cannot read gets Env's switches only.
func Inspect(path string) Program {
	resolved := path
	if r, err := filepath.EvalSymlinks(path); err == nil {
		resolved = r
	}
	names := []string{filepath.Base(path), filepath.Base(resolved)}
	var p Program
	for _, n := range names {
		p.Chromium = p.Chromium || chromiumName(n)
		p.Java = p.Java || n == "java"
	}
	p.Chromium = p.Chromium || electronApp(resolved)
	if !p.Java {
		p.Java = javaScript(resolved)
	}
	return p
}

// chromiumName reports whether an executable's base name is one of Chromium's, Chrome's or
// Electron's.
func chromiumName(n string) bool {
	switch {
	case n == "chromium", n == "chromium-browser", n == "chrome",
		strings.HasPrefix(n, "google-chrome"), strings.HasPrefix(n, "electron"):
		return true
	}
	return false
}

// electronApp reports whether exe is an Electron app under a name of its own: it ships its code
// as resources/app.asar next to the binary.
func electronApp(exe string) bool {
	_, err := os.Stat(filepath.Join(filepath.Dir(exe), "resources", "app.asar"))
	return err == nil
}

// scriptHead is how much of a script javaScript reads: launch scripts name their JVM near the top.
const scriptHead = 8 << 10

// javaInScript matches a script line that runs a JVM: `java …`, `exec "$JAVA_HOME/bin/java"`,
// `$JAVACMD`, or a `-jar` invocation.
var javaInScript = regexp.MustCompile(`(?m)(^|[\s/"'=])java(["']?\s|["']?$)|\$\{?JAVA(CMD|_HOME|_EXE)?\b|\s-jar\s`)

// javaScript reports whether path is a script (#!) that starts a JVM.
func javaScript(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, scriptHead)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	return bytes.HasPrefix(head, []byte("#!")) && javaInScript.Match(head)
}

// Where Debian's libatk-wrapper-java installs the wrapper: the jar, and its JNI library.
const debianWrapperJar = "/usr/share/java/java-atk-wrapper.jar"

var debianWrapperJNI = []string{"/usr/lib/*/jni/libatk-wrapper.so*", "/usr/lib/jni/libatk-wrapper.so*"}

// DetectHost reads what is installed: the Java ATK wrapper is usable only when both its jar and
// its JNI library are there (the jar cannot load without the library).
func DetectHost() Host {
	return Host{JavaATKWrapper: findJavaWrapper(debianWrapperJar, debianWrapperJNI)}
}

func findJavaWrapper(jar string, jniGlobs []string) string {
	if fi, err := os.Stat(jar); err != nil || fi.IsDir() {
		return ""
	}
	for _, g := range jniGlobs {
		if m, _ := filepath.Glob(g); len(m) > 0 {
			return jar
		}
	}
	return ""
}
