package cli

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mcec/mcec/contract/contracttest"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/control"
	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/session"
	"github.com/mcec/mcec/internal/transport"
)

// hermeticRuntime points the token files and control sockets at a fresh directory.
func hermeticRuntime(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv(envToken, "")
}

func TestTokenFor(t *testing.T) {
	hermeticRuntime(t)
	pub, err := control.PublishToken(5999, "filetok")
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Remove()
	for _, tc := range []struct{ server, explicit, want string }{
		{"http://127.0.0.1:5999", "", "filetok"},
		{"http://127.0.0.1:5999/mcp", "", "filetok"},
		{"http://localhost:5999/mcp", "", "filetok"},
		{"http://[::1]:5999/mcp", "", "filetok"},
		{"http://127.0.0.1:5999", "mine", "mine"},
		{"http://127.0.0.1:5998", "", ""},
		// A token of this machine never goes elsewhere.
		{"http://10.1.2.3:5999/mcp", "", ""},
		{"http://example.com:5999/mcp", "", ""},
		{"not a url", "", ""},
	} {
		if got := tokenFor(tc.server, tc.explicit); got != tc.want {
			t.Errorf("tokenFor(%q, %q) = %q, want %q", tc.server, tc.explicit, got, tc.want)
		}
	}
}

// The made-up token: shown once on stderr (the only place it is written besides its file),
// published for this user's clients, removed at exit; none with --no-token; the operator's is
// neither shown nor written.
func TestServerToken(t *testing.T) {
	hermeticRuntime(t)
	log := slog.New(slog.DiscardHandler)
	var stderr bytes.Buffer
	tok, unpublish := (&serveOptions{}).serverToken(6001, log, &stderr)
	if len(tok) < 26 {
		t.Fatalf("made-up token %q is too short", tok)
	}
	if n := strings.Count(stderr.String(), tok); n != 1 {
		t.Errorf("the token appears %d times on stderr, want once: %s", n, stderr.String())
	}
	if !strings.Contains(stderr.String(), "Authorization: Bearer "+tok) {
		t.Errorf("stderr does not show the header to present: %s", stderr.String())
	}
	if got := control.ReadToken(6001); got != tok {
		t.Errorf("token file holds %q, want the made-up token", got)
	}
	tok2, unpublish2 := (&serveOptions{}).serverToken(6002, log, &bytes.Buffer{})
	if tok2 == tok {
		t.Error("two servers made up the same token")
	}
	unpublish()
	unpublish2()
	if got := control.ReadToken(6001); got != "" {
		t.Errorf("token file still read after exit: %q", got)
	}

	stderr.Reset()
	tok, unpublish = (&serveOptions{noToken: true}).serverToken(6003, log, &stderr)
	unpublish()
	if tok != "" || control.ReadToken(6003) != "" {
		t.Errorf("--no-token: token %q", tok)
	}
	stderr.Reset()
	tok, unpublish = (&serveOptions{token: "operators"}).serverToken(6004, log, &stderr)
	unpublish()
	if tok != "operators" || strings.Contains(stderr.String(), "operators") || control.ReadToken(6004) != "" {
		t.Errorf("operator's token: got %q, stderr %q", tok, stderr.String())
	}
}

// --no-token is for loopback only, and never with --token; both refused before any desktop.
func TestNoTokenUsage(t *testing.T) {
	hermeticRuntime(t)
	for _, args := range [][]string{
		{"serve", "--no-token", "--bind", "0.0.0.0"},
		{"serve", "--no-token", "--bind", "192.168.1.1"},
		{"serve", "--no-token", "--token", "x"},
	} {
		var stderr bytes.Buffer
		if code := Main(args, strings.NewReader(""), &bytes.Buffer{}, &stderr); code != exitUsage {
			t.Errorf("%v: exit %d, want %d; %s", args, code, exitUsage, stderr.String())
		}
	}
}

// MCEC_TOKEN reaches serve but no program it starts.
func TestTakeEnvToken(t *testing.T) {
	t.Setenv(envToken, "envtok")
	if got := takeEnvToken(); got != "envtok" {
		t.Fatalf("takeEnvToken = %q", got)
	}
	if _, ok := os.LookupEnv(envToken); ok {
		t.Error("MCEC_TOKEN is still in the environment children inherit")
	}
}

// mcec call against a token-guarded server on loopback finds the token in the file the server
// published; without the file the server refuses it 401.
func TestCallReadsTokenFile(t *testing.T) {
	hermeticRuntime(t)
	c := catalog.New()
	c.Add(catalog.Define(catalog.Spec[struct{}, map[string]any]{Name: "windows", Description: "lists",
		Annotations: catalog.Annotations{ReadOnly: true},
		Run: func(ctx context.Context, call *catalog.Call, in *struct{}, resp *catalog.Response) (*map[string]any, error) {
			return &map[string]any{"windows": []any{}}, nil
		}}))
	d := dispatch.New(c, session.NewStore(session.Options{Root: t.TempDir()}), nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	door := transport.FrontDoor{Port: port, Bind: netip.MustParseAddr("127.0.0.1"), Token: "guarded"}
	srv := &http.Server{Handler: transport.NewHTTPHandler(d, nil, door, nil)}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	url := "http://127.0.0.1:" + strconv.Itoa(port)

	call := func() (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := Main([]string{"call", "--server", url, "windows"}, strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	if code, _, stderr := call(); code != exitFailure || !strings.Contains(stderr, "401") {
		t.Errorf("without a token file: exit %d, %s; want 1 and 401", code, stderr)
	}
	pub, err := control.PublishToken(port, "guarded")
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Remove()
	code, stdout, stderr := call()
	if code != exitOK {
		t.Fatalf("with the token file: exit %d, %s", code, stderr)
	}
	contracttest.Check(t, bytes.TrimSpace([]byte(stdout)))
	// An explicit wrong token is not replaced by the file's.
	t.Setenv(envToken, "wrong")
	if code, _, stderr := call(); code != exitFailure || !strings.Contains(stderr, "401") {
		t.Errorf("MCEC_TOKEN=wrong: exit %d, %s; want 1 and 401", code, stderr)
	}
}
