// Package container holds the container image recipe (Containerfile, entrypoint.sh). No container
// engine runs where the tests run, so these tests run the same entrypoint script on this machine
// (which has the same Debian 12 packages) and check the recipe's package list.
package container

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/testdesk"
)

var binary string

func TestMain(m *testing.M) { os.Exit(testdesk.MainWithMcec(m, &binary)) }

// The Containerfile installs exactly the Makefile's desktop packages.
func TestPackageListMatchesMakefile(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^DESKTOP_PACKAGES\s*:=\s*(.*)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("no DESKTOP_PACKAGES in the Makefile")
	}
	cf, err := os.ReadFile("Containerfile")
	if err != nil {
		t.Fatal(err)
	}
	c := regexp.MustCompile(`(?m)^ARG DESKTOP_PACKAGES="([^"]*)"$`).FindSubmatch(cf)
	if c == nil {
		t.Fatal(`no ARG DESKTOP_PACKAGES="…" line in the Containerfile`)
	}
	want, got := strings.Fields(string(m[1])), strings.Fields(string(c[1]))
	if strings.Contains(string(m[1]), "$(") || strings.HasSuffix(strings.TrimSpace(string(m[1])), `\`) {
		t.Fatalf("the Makefile's DESKTOP_PACKAGES is no longer one literal line: %q", m[1])
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		t.Errorf("Containerfile installs %v, the Makefile's DESKTOP_PACKAGES are %v", got, want)
	}
	if !strings.Contains(string(cf), "$DESKTOP_PACKAGES") {
		t.Error("the Containerfile does not install $DESKTOP_PACKAGES")
	}
}

type entrypoint struct {
	cmd    *exec.Cmd
	done   chan struct{}
	stderr *syncBuffer
	err    error
}

// syncBuffer is the entrypoint's stderr, read while it runs.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) WriteString(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.WriteString(v)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runEntrypoint starts entrypoint.sh as the container would, with the test's binary, a free
// port, no desktop of the caller's, and env added.
func runEntrypoint(t *testing.T, env ...string) *entrypoint {
	t.Helper()
	cmd := exec.Command("./entrypoint.sh")
	base := []string{"MCEC_BIN=" + binary, "HOME=" + t.TempDir(), "MCEC_LOG_LEVEL=warn"}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "PATH" || k == "TMPDIR" || k == "LANG" {
			base = append(base, kv)
		}
	}
	cmd.Env = append(base, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	e := &entrypoint{cmd: cmd, done: make(chan struct{}), stderr: &syncBuffer{}}
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			e.stderr.WriteString(sc.Text() + "\n")
		}
	}()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		e.err = cmd.Wait()
		pw.Close()
		<-scanned
		close(e.done)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-e.done:
		case <-time.After(20 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-e.done
			t.Error("the entrypoint's mcec did not stop on SIGTERM")
		}
	})
	return e
}

func TestEntrypointRefusesWithoutToken(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short")
	empty := filepath.Join(dir, "empty")
	spaced := filepath.Join(dir, "spaced")
	for p, s := range map[string]string{short: "abc\n", empty: "\n", spaced: "abcdefgh ijklmnopqrs\n"} {
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ file, says string }{
		{filepath.Join(dir, "missing"), "no token file"},
		{empty, "is empty"},
		{short, "shorter than 16"},
		{spaced, "contains blanks"},
	} {
		e := runEntrypoint(t, "MCEC_TOKEN_FILE="+tc.file, "MCEC_PORT="+strconv.Itoa(testdesk.FreePort(t)))
		select {
		case <-e.done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the entrypoint is still running", tc.file)
		}
		var exit *exec.ExitError
		if e.err == nil || !errorsAs(e.err, &exit) || exit.ExitCode() != 78 {
			t.Errorf("%s: exit %v, want status 78", tc.file, e.err)
		}
		if !strings.Contains(e.stderr.String(), tc.says) || !strings.Contains(e.stderr.String(), "refusing") {
			t.Errorf("%s: stderr %q, want it to say %q", tc.file, e.stderr.String(), tc.says)
		}
	}
}

func errorsAs(err error, target **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	if ok {
		*target = e
	}
	return ok
}

// The entrypoint serves on every interface with the token from the file; the probes answer
// without it, everything else needs it; MCEC_LAUNCH apps start; SIGTERM stops it all.
func TestEntrypointServes(t *testing.T) {
	token := "tok-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "-0123456789"
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(token+"\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The operator console, with only the operator key's hash in the pod.
	const operatorKey = "the-operator-key-0123456789abcdef"
	sum := sha256.Sum256([]byte(operatorKey))
	keyFile := filepath.Join(t.TempDir(), "console-key-sha256")
	if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(sum[:])+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	port, consolePort := testdesk.FreePort(t), testdesk.FreePort(t)
	e := runEntrypoint(t, "MCEC_TOKEN_FILE="+file, "MCEC_PORT="+strconv.Itoa(port),
		"MCEC_LAUNCH=\nxmessage -name entrypoint-probe hello\n",
		"MCEC_CONSOLE_KEY_SHA256_FILE="+keyFile, "MCEC_CONSOLE_PORT="+strconv.Itoa(consolePort))
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	get := func(path string) int {
		resp, err := http.Get(base + path)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	deadline := time.Now().Add(60 * time.Second)
	for get("/readyz") != 200 {
		select {
		case <-e.done:
			t.Fatalf("the entrypoint exited: %v\n%s", e.err, e.stderr.String())
		case <-time.After(100 * time.Millisecond): // polling a probe
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz not 200 within 60 s (healthz %d)\n%s", get("/healthz"), e.stderr.String())
		}
	}
	if c := get("/healthz"); c != 200 {
		t.Fatalf("healthz %d", c)
	}
	// Bound to 0.0.0.0: mcec's argv says so, and the token is not on it.
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", e.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	if !slices.Contains(args, "0.0.0.0") || !slices.Contains(args, "--headless") || strings.Contains(string(cmdline), token) {
		t.Errorf("mcec runs as %q", args)
	}
	call := func(auth string) (int, []byte) {
		return testdesk.PostJSON(t, base+"/v1/tools/windows", auth, `{"process":"xmessage"}`)
	}
	if code, _ := call(""); code != http.StatusUnauthorized {
		t.Errorf("façade without the token: %d, want 401", code)
	}
	if code, _ := call("wrong-token-0123456789"); code != http.StatusUnauthorized {
		t.Errorf("façade with a wrong token: %d, want 401", code)
	}
	code, body := call(token)
	if code != 200 {
		t.Fatalf("façade with the token: %d %s", code, body)
	}
	if env := contracttest.Check(t, body); !env.OK() || !strings.Contains(string(body), "xmessage") {
		t.Fatalf("windows: %s", body)
	}
	// The console serves every interface too, behind the operator key: not the token.
	if !slices.Contains(args, "--console") {
		t.Errorf("mcec runs as %q: no --console", args)
	}
	consoleBase := "http://127.0.0.1:" + strconv.Itoa(consolePort)
	login := func(key string) int {
		req, _ := http.NewRequest("POST", consoleBase+"/login", strings.NewReader(url.Values{"key": {key}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", consoleBase)
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := login(token); c != http.StatusUnauthorized {
		t.Errorf("console login with the agents' token: %d, want 401", c)
	}
	if c := login(operatorKey); c != http.StatusSeeOther {
		t.Errorf("console login with the operator key: %d, want 303", c)
	}
	// The log is the pod's, which others read: it points at the key form, never at a link that
	// logs in by itself.
	if log := e.stderr.String(); strings.Contains(log, "login?t=") || !strings.Contains(log, "log in with the operator key") {
		t.Errorf("the log holds a one-time login link or no pointer to the key form:\n%s", log)
	}
	if err := syscall.Kill(e.cmd.Process.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-e.done:
	case <-time.After(20 * time.Second):
		t.Fatal("mcec did not stop on SIGTERM")
	}
}
