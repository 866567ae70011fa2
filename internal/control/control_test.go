package control

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func startServer(t *testing.T) *Server {
	t.Helper()
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	s, err := Listen("", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestCallRoundTrip(t *testing.T) {
	s := startServer(t)
	s.Handle("echo", func(_ context.Context, args json.RawMessage) (any, error) {
		var in struct{ Word string }
		if err := json.Unmarshal(args, &in); err != nil {
			return nil, err
		}
		if in.Word == "" {
			return nil, errors.New("no word")
		}
		return map[string]string{"word": strings.ToUpper(in.Word)}, nil
	})
	ctx := context.Background()
	var out struct{ Word string }
	if err := Call(ctx, s.Path(), "echo", map[string]string{"word": "hi"}, &out); err != nil || out.Word != "HI" {
		t.Fatalf("echo: %v %+v", err, out)
	}
	for _, tc := range []struct {
		op   string
		args any
		want string
	}{
		{"echo", map[string]string{}, "no word"},
		{"nope", nil, `unknown operation "nope"`},
	} {
		if err := Call(ctx, s.Path(), tc.op, tc.args, nil); err == nil || err.Error() != tc.want {
			t.Errorf("%s: err = %v, want %q", tc.op, err, tc.want)
		}
	}
}

func TestSocketIsPrivate(t *testing.T) {
	s := startServer(t)
	fi, err := os.Stat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want 0600", fi.Mode().Perm())
	}
	di, _ := os.Stat(filepath.Dir(s.Path()))
	if di.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v, want 0700", di.Mode().Perm())
	}
	open := t.TempDir()
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(filepath.Join(open, "c.sock"), nil); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Fatalf("world-writable dir accepted: %v", err)
	}
}

func TestHangupCancelsHandler(t *testing.T) {
	s := startServer(t)
	cancelled := make(chan struct{})
	s.Handle("block", func(ctx context.Context, _ json.RawMessage) (any, error) {
		<-ctx.Done()
		close(cancelled)
		return nil, ctx.Err()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := Call(ctx, s.Path(), "block", nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler was not cancelled when the client hung up")
	}
}

func TestCloseEndsBlockedHandlersAndRemovesSocket(t *testing.T) {
	s := startServer(t)
	started := make(chan struct{})
	s.Handle("block", func(ctx context.Context, _ json.RawMessage) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, errors.New("server closing")
	})
	errc := make(chan error, 1)
	go func() { errc <- Call(context.Background(), s.Path(), "block", nil, nil) }()
	<-started
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err == nil {
		t.Fatal("a blocked call succeeded after Close")
	}
	if _, err := os.Stat(s.Path()); !os.IsNotExist(err) {
		t.Fatalf("socket left behind: %v", err)
	}
}

func TestFind(t *testing.T) {
	t.Setenv(EnvSocket, "")
	// Find also looks in <tmp>/mcec-<uid>, where a real mcec of the same user may have its
	// socket: a temp directory of this test's own (short: socket paths are at most 108 bytes).
	tmp, err := os.MkdirTemp("/tmp", "mcf")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	t.Setenv("TMPDIR", tmp)
	s := startServer(t)
	if got, err := Find(""); err != nil || got != s.Path() {
		t.Fatalf("Find = %q, %v; want %q", got, err, s.Path())
	}
	if got, _ := Find("/x.sock"); got != "/x.sock" {
		t.Fatalf("explicit path not honoured: %q", got)
	}
	second, err := Listen("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if _, err := Find(""); err == nil || !strings.Contains(err.Error(), "2 mcec servers") {
		t.Fatalf("two servers: err = %v", err)
	}
	if _, err := Listen(second.Path(), nil); err == nil {
		t.Fatal("a second server took over a live socket")
	}
	s.Close()
	second.Close()
	if _, err := Find(""); err == nil || !strings.Contains(err.Error(), "no running mcec server") {
		t.Fatalf("no server: err = %v", err)
	}
}

// A runtime directory that cannot hold the socket falls back to the temporary directory, and
// Find still finds it.
func TestListenFallsBackFromAnUnusableRuntimeDir(t *testing.T) {
	blocked := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", blocked)
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv(EnvSocket, "")
	s, err := Listen("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.Path(), os.TempDir()) {
		t.Errorf("socket at %s, want under %s", s.Path(), os.TempDir())
	}
	if got, err := Find(""); err != nil || got != s.Path() {
		t.Errorf("Find = %q, %v", got, err)
	}
}

func TestStats(t *testing.T) {
	s := startServer(t)
	var st Stats
	if err := Call(context.Background(), s.Path(), OpStats, nil, &st); err != nil {
		t.Fatal(err)
	}
	if st.Goroutines < 2 || st.HeapAlloc == 0 || st.HeapSys < st.HeapAlloc {
		t.Errorf("implausible stats: %+v", st)
	}
}

// A server killed outright leaves its socket; the next server's Listen removes it (connections
// to it are refused) and leaves a live one alone.
func TestListenSweepsStaleSockets(t *testing.T) {
	live := startServer(t)
	dir := filepath.Dir(live.Path())
	stale := filepath.Join(dir, "control-999999-1.sock")
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	// Closing a Go unix listener removes its file; keep the file as a killed process would.
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Lstat(stale); err != nil {
		t.Fatal(err)
	}
	next, err := Listen("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if _, err := os.Lstat(stale); !os.IsNotExist(err) {
		t.Errorf("stale socket not swept: %v", err)
	}
	if _, err := os.Lstat(live.Path()); err != nil {
		t.Errorf("a live server's socket was swept: %v", err)
	}
}

func TestStatsGC(t *testing.T) {
	s := startServer(t)
	var st Stats
	if err := Call(context.Background(), s.Path(), OpStats, StatsArgs{GC: true}, &st); err != nil {
		t.Fatal(err)
	}
	if st.NumGC == 0 {
		t.Errorf("stats with gc: no collection counted: %+v", st)
	}
}
