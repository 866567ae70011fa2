package cli

import (
	"crypto/rand"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/mcec/mcec/internal/control"
	"github.com/mcec/mcec/internal/transport"
)

// envToken carries a bearer token to mcec's clients and to `mcec serve` (never a flag of a
// child process: argv is visible to every user in ps).
const envToken = "MCEC_TOKEN"

// newToken is a fresh bearer token: 128 random bits as 26 base32 characters.
func newToken() string { return rand.Text() }

// tokenFor is the token a client presents to server: explicit (a flag or MCEC_TOKEN) when given,
// else the one a running `mcec serve` of this user published for the URL's port, when the URL
// names a loopback address (a token of this machine is never sent elsewhere).
func tokenFor(server, explicit string) string {
	if explicit != "" {
		return explicit
	}
	u, err := url.Parse(server)
	if err != nil || u.Host == "" {
		return ""
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		switch u.Scheme {
		case "http":
			port = 80
		case "https":
			port = 443
		default:
			return ""
		}
	}
	if h := u.Hostname(); !strings.EqualFold(h, "localhost") {
		addr, err := transport.ParseAddr(h)
		if err != nil || !addr.IsLoopback() {
			return ""
		}
	}
	return control.ReadToken(port)
}

// takeEnvToken reads MCEC_TOKEN and removes it from mcec's environment, so that no program the
// server starts (the desktop, launched apps) inherits it.
func takeEnvToken() string {
	v := os.Getenv(envToken)
	_ = os.Unsetenv(envToken)
	return v
}
