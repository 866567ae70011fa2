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
	"unicode/utf8"

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

// maxLoggedField bounds each request field a refusal logs: a 900 KB path must not make a 900 KB
// log line.
const maxLoggedField = 200

// clip shortens s to maxLoggedField bytes (on a rune boundary), saying how long it was.
func clip(s string) string {
	if len(s) <= maxLoggedField {
		return s
	}
	cut := maxLoggedField
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s…[%d bytes]", s[:cut], len(s))
}

// methodAllowed: POST everywhere; DELETE on /mcp, which ends an MCP session (streamable HTTP).
func methodAllowed(method, path string) bool {
	return method == http.MethodPost || (method == http.MethodDelete && path == mcpPath)
}

// Wrap guards next.
func (f FrontDoor) Wrap(next http.Handler) http.Handler {
	log := f.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refuse := func(status int, reason string) {
			log.Warn("AGENT-AUDIT refused", "transport", "http", "status", status, "reason", reason, "method", clip(r.Method),
				"path", clip(r.URL.Path), "host", clip(r.Host), "origin", clip(strings.Join(r.Header.Values("Origin"), ", ")), "remote", r.RemoteAddr)
			if status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="mcec"`)
			}
			httpError(w, status, reason)
		}
		switch {
		case !documentedPath(r.URL.Path):
			refuse(http.StatusNotFound, "no such path; use POST /mcp or POST /v1/tools/{tool}")
		case !methodAllowed(r.Method, r.URL.Path):
			allow := http.MethodPost
			if r.URL.Path == mcpPath {
				allow += ", " + http.MethodDelete
			}
			w.Header().Set("Allow", allow)
			refuse(http.StatusMethodNotAllowed, "only POST is allowed (and DELETE on /mcp, to end a session)")
		case !f.hostAllowed(r.Host, localAddr(r)):
			refuse(http.StatusForbidden, "Host must name this server by an address it listens on (a loopback address or localhost when bound to loopback) and its port")
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

// localAddr is the address the request's connection arrived at, when known.
func localAddr(r *http.Request) netip.Addr {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || a == nil {
		return netip.Addr{}
	}
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

// hostAllowed accepts, with our port, an address the server is reachable at: loopback (and
// localhost) always; the bound address when it is a specific non-loopback one; when bound to
// every interface (0.0.0.0, ::), the address the connection arrived at or any address of this
// machine's interfaces. The unspecified address itself is never one: nothing is reachable at
// 0.0.0.0, so a Host naming it comes from a page or a client that should not be trusted with
// the name.
func (f FrontDoor) hostAllowed(host string, local netip.Addr) bool {
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
	switch {
	case addr.IsLoopback():
		return true
	case !f.Bind.IsValid() || f.Bind.IsLoopback() || addr.IsUnspecified() || addr.IsMulticast():
		return false
	case !f.Bind.IsUnspecified():
		return addr == f.Bind
	case addr == local:
		return true
	default:
		return isInterfaceAddr(addr)
	}
}

// isInterfaceAddr reports whether addr is assigned to one of this machine's interfaces. Asked
// afresh each time (only for a Host that is neither loopback nor the connection's own address):
// interfaces come and go.
func isInterfaceAddr(addr netip.Addr) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if p, ok := a.(*net.IPNet); ok {
			if ia, ok := netip.AddrFromSlice(p.IP); ok && ia.Unmap() == addr {
				return true
			}
		}
	}
	return false
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
	// Brackets come only as a pair around an IPv6 address; a stray one (even inside a zone, which
	// netip would accept) is not an address, and would not read back the same.
	if inner, ok := strings.CutPrefix(s, "["); ok {
		if s, ok = strings.CutSuffix(inner, "]"); !ok {
			return netip.Addr{}, fmt.Errorf("%q is not an IP address", "["+inner)
		}
	}
	if strings.ContainsAny(s, "[]") {
		return netip.Addr{}, fmt.Errorf("%q is not an IP address", s)
	}
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
