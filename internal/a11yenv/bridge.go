package a11yenv

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// Bridge is what a running process's loaded libraries say about its accessibility tree.
type Bridge struct {
	// Toolkit is a guess for people, e.g. "GTK 3", "Qt 5", "Java (ATK wrapper)", "Tk"; "" when
	// nothing is recognised.
	Toolkit string
	// Publishes: the process carries an AT-SPI bridge, so a tree is there or on its way.
	Publishes bool
	// Hint says, when Publishes is false, why there will be no tree and what would give one.
	Hint string
}

// libraries that carry an AT-SPI bridge, most specific first (a Qt app may load GTK 3 for its
// theme, Firefox and Chromium load GTK 3 and atk-bridge, Java's wrapper loads atk-bridge).
var bridges = []struct{ lib, toolkit string }{
	{"/libatk-wrapper.so", "Java (ATK wrapper)"},
	{"/libxul.so", "Gecko"},
	{"/libQt6Gui.so", "Qt 6"},
	{"/libQt5Gui.so", "Qt 5"},
	{"/libgtk-4.so", "GTK 4"},
	{"/libgtk-3.so", "GTK 3"},
	{"/libgtk-x11-2.0.so", "GTK 2"},  // with the bridge: the modules GTK_MODULES names (Env)
	{"/libatk-bridge-2.0.so", "ATK"}, // toolkits of their own over ATK
}

// ClassifyMaps classifies a process from its /proc/PID/maps text and its executable's path.
func ClassifyMaps(maps []byte, exe string) Bridge {
	if chromiumName(filepath.Base(exe)) {
		return Bridge{Toolkit: "Chromium", Publishes: true}
	}
	atk := bytes.Contains(maps, []byte("/libatk-bridge-2.0.so"))
	for _, b := range bridges {
		if !bytes.Contains(maps, []byte(b.lib)) {
			continue
		}
		// GTK 3 loads its bridge itself; without it (a build without ATK) there is none. GTK 2
		// loads it only as a module: without it, hint below.
		if (b.toolkit == "GTK 3" || b.toolkit == "GTK 2") && !atk {
			continue
		}
		return Bridge{Toolkit: b.toolkit, Publishes: true}
	}
	switch {
	case bytes.Contains(maps, []byte("/libawt_xawt.so")):
		return Bridge{Toolkit: "Java", Hint: "Java without the ATK wrapper publishes no tree: install libatk-wrapper-java " +
			"and start the program through mcec's launch (it adds the wrapper to JAVA_TOOL_OPTIONS)"}
	case bytes.Contains(maps, []byte("/libgtk-x11-2.0.so")):
		return Bridge{Toolkit: "GTK 2", Hint: "GTK 2 publishes a tree only with the gail and atk-bridge modules " +
			"(GTK_MODULES=gail:atk-bridge, packages libgail-common and libatk-adaptor): start the program through mcec's launch, " +
			"which sets it"}
	case bytes.Contains(maps, []byte("/libelementary.so")):
		// EFL's bridge is its own (eldbus), not a library of its own to look for; the bus decides.
		return Bridge{Toolkit: "EFL", Publishes: true}
	case bytes.Contains(maps, []byte("/libtk8.")):
		return Bridge{Toolkit: "Tk", Hint: "Tk has no accessibility bridge"}
	}
	return Bridge{Hint: "the process loads no accessibility bridge (ATK/AT-SPI, Qt, GTK 4, Gecko or Chromium)"}
}

// ProcessBridge classifies running process pid. It fails when /proc does not show the process's
// maps (gone, or another user's).
func ProcessBridge(pid int) (Bridge, error) {
	maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return Bridge{}, err
	}
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if exe != "" && !chromiumName(filepath.Base(exe)) && electronApp(exe) {
		return Bridge{Toolkit: "Electron", Publishes: true}, nil
	}
	return ClassifyMaps(maps, exe), nil
}

// Browser reports whether running process pid is a web browser engine's (Gecko, Chromium or
// Electron, WebKitGTK): its window is named after the page it shows once the page is there. A
// program that only links WebKitGTK (zenity does, for --text-info --html) is one only once it
// runs a web content process: zenity --entry passed for a browser, and its launch waited out the
// whole wait for a page it never shows.
func Browser(pid int) bool {
	maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return false
	}
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if chromiumName(filepath.Base(exe)) || bytes.Contains(maps, []byte("/libxul.so")) {
		return true
	}
	return LinksWebKit(pid) && webProcessChild(pid)
}

// LinksWebKit reports whether running process pid has WebKitGTK loaded.
func LinksWebKit(pid int) bool {
	maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	return err == nil && (bytes.Contains(maps, []byte("/libwebkit2gtk-")) || bytes.Contains(maps, []byte("/libwebkitgtk-")))
}

// webProcessChild reports whether pid has a child that is WebKit's web content process.
func webProcessChild(pid int) bool {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	want := fmt.Sprintf("PPid:\t%d\n", pid)
	for _, e := range ents {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		comm, err := os.ReadFile("/proc/" + e.Name() + "/comm")
		if err != nil || !bytes.HasPrefix(comm, []byte("WebKitWebProces")) { // comm is cut at 15 bytes
			continue
		}
		if status, err := os.ReadFile("/proc/" + e.Name() + "/status"); err == nil && bytes.Contains(status, []byte(want)) {
			return true
		}
	}
	return false
}
