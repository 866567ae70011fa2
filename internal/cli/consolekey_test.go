package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConsoleAccess(t *testing.T) {
	dir := t.TempDir()
	sum := sha256.Sum256([]byte("the operator's key"))
	good := filepath.Join(dir, "hash")
	if err := os.WriteFile(good, []byte("sha256:"+hex.EncodeToString(sum[:])+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "key")
	if err := os.WriteFile(plain, []byte("the operator's key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		o       serveOptions
		addr    string
		wantErr string
	}{
		{"loopback", serveOptions{consoleBind: "localhost", consolePort: 5152}, "127.0.0.1:5152", ""},
		{"every interface without a key", serveOptions{consoleBind: "0.0.0.0", consolePort: 5152}, "", "without --console-key-sha256-file"},
		{"every interface with a key", serveOptions{consoleBind: "0.0.0.0", consolePort: 5152, consoleKeyFile: good,
			consolePeers: []string{"mcec-1=https://desk-1.example/"}}, "0.0.0.0:5152", ""},
		{"the key itself in the file", serveOptions{consoleBind: "127.0.0.1", consoleKeyFile: plain}, "", "no hex SHA-256"},
		{"a missing file", serveOptions{consoleBind: "127.0.0.1", consoleKeyFile: filepath.Join(dir, "none")}, "", "no such file"},
		{"a peer without a URL", serveOptions{consoleBind: "127.0.0.1", consolePeers: []string{"mcec-1"}}, "", "--console-peer"},
		{"a peer with another scheme", serveOptions{consoleBind: "127.0.0.1", consolePeers: []string{"x=javascript:alert(1)"}}, "", "--console-peer"},
		{"a port out of range", serveOptions{consoleBind: "127.0.0.1", consolePort: 70000}, "", "--console-port"},
		{"not an address", serveOptions{consoleBind: "example.com"}, "", "--console-bind"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := &globalOptions{}
			err := c.o.consoleAccess(g)
			if c.wantErr != "" {
				var usage usageError
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !errors.As(err, &usage) {
					t.Fatalf("err = %v, want a usage error with %q", err, c.wantErr)
				}
				return
			}
			if err != nil || g.console != c.addr {
				t.Fatalf("console %q, err %v; want %q", g.console, err, c.addr)
			}
			if c.o.consoleKeyFile != "" && string(g.consoleKey) != string(sum[:]) {
				t.Errorf("key hash %x, want %x", g.consoleKey, sum)
			}
			if len(c.o.consolePeers) != len(g.consolePeers) {
				t.Errorf("peers %v", g.consolePeers)
			}
		})
	}
}
