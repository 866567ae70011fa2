package transport

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcec/mcec/internal/catalog"
)

// FrontDoor is who may knock on the HTTP listener. Every request passes these checks before its
// body is read: a DNS-rebinding page, a cross-site form or a stranger on the network is refused
// with a status and an AGENT-AUDIT log line, and never reaches a tool.
type FrontDoor struct {
	// Port is the port the listener is bound to; Host headers must name it.
	Port int
	// Bind is the canonical address the listener is bound to. When it is not a loopback address,
	// Host may also name it (clients on the network reach mcec by it), and a token is mandatory.
	Bind netip.Addr
	// Token, when set, must be presented as "Authorization: Bearer <token>".
	Token string
	Log   *slog.Logger
}

// documentedPath reports the documented paths: MCP's, and the façade's with a well-formed tool
// name (MCP's rule, which the catalog enforces; so "." or ".." never reach the mux's path
// cleaning and its redirects).
func documentedPath(p string) bool {
	name, ok := strings.CutPrefix(p, facadePathPrefix)
	return p == mcpPath || (ok && catalog.ValidName(name))
}

// Wrap guards next.
func (f FrontDoor) Wrap(next http.Handler) http.Handler {
	log := f.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refuse := func(status int, reason string) {
			log.Warn("AGENT-AUDIT refused", "transport", "http", "status", status, "reason", reason, "method", r.Method,
				"path", r.URL.Path, "host", r.Host, "origin", r.Header.Get("Origin"), "remote", r.RemoteAddr)
			if status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="mcec"`)
			}
			httpError(w, status, reason)
		}
		switch {
		case !documentedPath(r.URL.Path):
			refuse(http.StatusNotFound, "no such path; use POST /mcp or POST /v1/tools/{tool}")
		case r.Method != http.MethodPost:
			w.Header().Set("Allow", http.MethodPost)
			refuse(http.StatusMethodNotAllowed, "only POST is allowed")
		case !f.hostAllowed(r.Host):
			refuse(http.StatusForbidden, "Host must name this server by a loopback address and its port")
		case !originAllowed(r.Header.Values("Origin")):
			refuse(http.StatusForbidden, "cross-origin requests are refused")
		case f.Token != "" && !tokenMatches(r.Header.Get("Authorization"), f.Token):
			refuse(http.StatusUnauthorized, "a valid bearer token is required")
		case r.ContentLength > MaxBodyBytes:
			refuse(http.StatusRequestEntityTooLarge, "body exceeds 1 MiB")
		default:
			// Chunked bodies have no length up front: the bounded reader fails them past 1 MiB.
			r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
			next.ServeHTTP(w, r)
		}
	})
}

// hostAllowed accepts a loopback authority (or the non-loopback bind address) with our port.
func (f FrontDoor) hostAllowed(host string) bool {
	h, port, err := net.SplitHostPort(host)
	if err != nil || port != strconv.Itoa(f.Port) {
		return false
	}
	if strings.EqualFold(h, "localhost") {
		return true
	}
	addr, err := ParseAddr(h)
	if err != nil {
		return false
	}
	return addr.IsLoopback() || (f.Bind.IsValid() && !f.Bind.IsLoopback() && addr == f.Bind)
}

// originAllowed accepts no Origin (non-browser clients) or a loopback http(s) origin. "null"
// (sandboxed frames, file: pages) is refused.
func originAllowed(origins []string) bool {
	for _, o := range origins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return false
		}
		h := u.Hostname()
		if strings.EqualFold(h, "localhost") {
			continue
		}
		addr, err := ParseAddr(h)
		if err != nil || !addr.IsLoopback() {
			return false
		}
	}
	return true
}

func tokenMatches(header, token string) bool {
	got, ok := strings.CutPrefix(header, "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) == 1
}

// ParseAddr parses an IP address in any spelling a resolver or inet_aton accepts, so that every
// way of writing loopback is recognized (and every way of writing a public address is not
// mistaken for loopback): "127.0.0.1", "127.1", "0x7f.0.0.1", "017700000001", "2130706433",
// "::1", "[::1]", "::ffff:127.0.0.1". The result is canonical (IPv4-mapped addresses unmapped).
func ParseAddr(s string) (netip.Addr, error) {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), nil
	}
	parts := strings.Split(s, ".")
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, fmt.Errorf("%q is not an IP address", s)
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, err := parseInetNumber(p)
		if err != nil {
			return netip.Addr{}, fmt.Errorf("%q is not an IP address", s)
		}
		nums[i] = n
	}
	// inet_aton: the last part fills the remaining bytes.
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, fmt.Errorf("%q is not an IP address", s)
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, fmt.Errorf("%q is not an IP address", s)
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), nil
}

// parseInetNumber reads one inet_aton component: decimal, 0-prefixed octal or 0x hex.
func parseInetNumber(p string) (uint64, error) {
	if p == "" {
		return 0, errors.New("empty")
	}
	base := 10
	switch {
	case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
		base, p = 16, p[2:]
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	if p == "" {
		return 0, nil // "0x" alone is zero for inet_aton
	}
	return strconv.ParseUint(p, base, 32)
}
