package cli

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcec/mcec/internal/console"
)

// consoleAccess turns serve's console flags into the global options: where the console listens
// and, beyond loopback, the operator key's hash, the names it is reached by and its peers.
func (o *serveOptions) consoleAccess(g *globalOptions) error {
	if o.consolePort < 0 || o.consolePort > 65535 {
		return usageError{fmt.Errorf("--console-port %d: want 0-65535", o.consolePort)}
	}
	addr, err := parseBind("--console-bind", o.consoleBind)
	if err != nil {
		return err
	}
	if o.consoleKeyFile != "" {
		if g.consoleKey, err = readKeyHash(o.consoleKeyFile); err != nil {
			return usageError{fmt.Errorf("--console-key-sha256-file: %w", err)}
		}
	}
	if !addr.IsLoopback() && g.consoleKey == nil {
		return usageError{fmt.Errorf("--console-bind %s is not a loopback address: refusing to serve the console beyond this machine without --console-key-sha256-file", addr)}
	}
	for _, p := range o.consolePeers {
		name, u, ok := strings.Cut(p, "=")
		pu, err := url.Parse(u)
		if !ok || name == "" || err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return usageError{fmt.Errorf("--console-peer %q: want NAME=http(s)://HOST[:PORT]/", p)}
		}
		g.consolePeers = append(g.consolePeers, console.Peer{Name: name, URL: u})
	}
	g.consoleHosts = o.hostNames
	g.console = net.JoinHostPort(addr.String(), strconv.Itoa(o.consolePort))
	return nil
}

// readKeyHash reads a hex SHA-256 (64 hex digits, an optional "sha256:" before, blanks around).
func readKeyHash(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s := strings.TrimPrefix(strings.TrimSpace(string(b)), "sha256:")
	h, err := hex.DecodeString(s)
	if err != nil || len(h) != sha256.Size {
		return nil, errors.New(path + " holds no hex SHA-256 (64 hex digits): put the hash of the operator key there, never the key (mcec console-key)")
	}
	return h, nil
}

func newConsoleKeyCmd(st *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "console-key",
		Short: "Make an operator key for a console served beyond loopback, and its SHA-256",
		Long: `Print a new random operator key and its SHA-256. The key is the operator's: keep it in a password
manager and type it into the console's login form. The hash is what the server is given
(mcec serve --console-key-sha256-file, or the Helm chart's console Secret): a program that reads
it learns nothing that logs in.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			b := make([]byte, 32)
			_, _ = rand.Read(b) // never fails (crypto/rand)
			key := base64.RawURLEncoding.EncodeToString(b)
			sum := sha256.Sum256([]byte(key))
			fmt.Fprintf(st.out, "key:    %s\nsha256: %s\n", key, hex.EncodeToString(sum[:]))
			return nil
		},
	}
}

func envInt(key string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(key)); err == nil {
		return v
	}
	return def
}
