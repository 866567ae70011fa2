package testdesk

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

func TestEnvironmentExported(t *testing.T) {
	if got := os.Getenv("DISPLAY"); got != Desktop().Display() {
		t.Errorf("DISPLAY = %q, want %q", got, Desktop().Display())
	}
	if got := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); got != Desktop().DBusAddress() {
		t.Errorf("DBUS_SESSION_BUS_ADDRESS = %q, want %q", got, Desktop().DBusAddress())
	}
	// Programs the tests start leave files in their temp folder (Chromium's singleton
	// sockets): it must be the desktop's, removed with it, never the machine's /tmp.
	if dir := os.TempDir(); !strings.HasPrefix(dir, Desktop().RuntimeDir()+string(os.PathSeparator)) {
		t.Errorf("os.TempDir() = %q, want a folder inside the desktop's %q", dir, Desktop().RuntimeDir())
	}
}

func TestGTKApp(t *testing.T) {
	if _, err := exec.LookPath("gtk3-widget-factory"); err != nil {
		t.Skip("gtk3-widget-factory (gtk-3-examples) not installed")
	}
	p := Start(t, "gtk3-widget-factory")
	if w := WaitWindow(t, p.PID, 15*time.Second); w == 0 {
		t.Fatal("window id 0")
	}
	WaitAccessible(t, p.PID, 15*time.Second)
}

func TestProcWaitedByTest(t *testing.T) {
	p := Start(t, "sh", "-c", "exit 4")
	err := p.Cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 4 {
		t.Fatalf("Wait = %v, want exit status 4", err)
	}
}

func TestWaitFor(t *testing.T) {
	n := 0
	WaitFor(t, time.Second, "never", func() bool { n++; return n == 3 })
	if n != 3 {
		t.Fatalf("cond called %d times", n)
	}
}
