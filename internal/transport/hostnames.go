package transport

import (
	"net"
	"net/http"
	"strconv"
	"strings"
)

// withHostNames lets clients name this server by DNS names the operator declared (serve
// --host-name; in Kubernetes the pod's and its Services' names). The front door accepts only IP
// addresses and localhost in Host, which keeps DNS-rebinding pages out; a declared name is as
// trustworthy as the address it stands for, so a request naming one (with our port) is handed to
// the front door as if it had named the address its connection arrived at. Everything else
// passes unchanged.
func withHostNames(next http.Handler, names []string, port int) http.Handler {
	if len(names) == 0 {
		return next
	}
	set := map[string]bool{}
	for _, n := range names {
		if n = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(n)), "."); n != "" {
			set[n] = true
		}
	}
	p := strconv.Itoa(port)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, hp, err := net.SplitHostPort(r.Host)
		if err == nil && hp == p && set[strings.TrimSuffix(strings.ToLower(h), ".")] {
			if local := localAddr(r); local.IsValid() {
				r.Host = net.JoinHostPort(local.String(), p)
			}
		}
		next.ServeHTTP(w, r)
	})
}
