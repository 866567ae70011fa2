package console

import (
	"crypto/sha256"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcec/mcec/internal/estop"
)

const testKey = "correct horse battery staple, 32+ characters long"

func startWithKey(t *testing.T) (*Server, *clock) {
	t.Helper()
	clk := &clock{t: time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)}
	hash := sha256.Sum256([]byte(testKey))
	s := New(Options{Stop: estop.New(estop.Options{}), Now: clk.now, KeySHA256: hash[:]})
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, clk
}

func postKey(t *testing.T, c *http.Client, s *Server, key string, origin bool) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", "http://"+s.Addr()+"/login", strings.NewReader(url.Values{"key": {key}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin {
		req.Header.Set("Origin", "http://"+s.Addr())
	}
	return do(t, c, req)
}

func TestKeyLogin(t *testing.T) {
	s, clk := startWithKey(t)
	base := "http://" + s.Addr()
	c := browser(t)

	if code, _ := get(t, c, base+"/"); code != http.StatusSeeOther {
		t.Errorf("the page without a login: %d, want a redirect to the form", code)
	}
	if code, body := get(t, c, base+"/login"); code != http.StatusOK || !strings.Contains(body, `name="key"`) {
		t.Errorf("the login form: %d %.80s", code, body)
	}
	if code, _ := postKey(t, c, s, testKey, false); code != http.StatusForbidden {
		t.Errorf("a key posted from another page (no Origin): %d, want 403", code)
	}
	if code, _ := postKey(t, c, s, "wrong", true); code != http.StatusUnauthorized {
		t.Errorf("a wrong key: %d, want 401", code)
	}
	if code, _ := postKey(t, c, s, testKey, true); code != http.StatusSeeOther {
		t.Fatalf("the right key: %d, want 303", code)
	}
	if code, _ := get(t, c, base+"/api/state"); code != http.StatusOK {
		t.Errorf("state after the key's login: %d", code)
	}
	// The hash itself is not the key.
	hash := sha256.Sum256([]byte(testKey))
	if code, _ := postKey(t, browser(t), s, string(hash[:]), true); code != http.StatusUnauthorized {
		t.Errorf("the key's hash as a key: %d, want 401", code)
	}
	// One-time links still work beside the key.
	if code, _ := get(t, browser(t), s.LoginURL()); code != http.StatusSeeOther {
		t.Errorf("a one-time link on a console with a key: %d", code)
	}

	// Guessing is bounded: after maxFailedLogins failures within a minute even the right key waits.
	for range maxFailedLogins {
		postKey(t, browser(t), s, "guess", true)
	}
	if code, _ := postKey(t, browser(t), s, testKey, true); code != http.StatusTooManyRequests {
		t.Errorf("the right key after %d failures: %d, want 429", maxFailedLogins+1, code)
	}
	clk.add(loginWindow + time.Second)
	if code, _ := postKey(t, browser(t), s, testKey, true); code != http.StatusSeeOther {
		t.Errorf("the right key a minute later: %d, want 303", code)
	}
}

func TestConsoleBeyondLoopback(t *testing.T) {
	if err := New(Options{Stop: estop.New(estop.Options{})}).Listen("0.0.0.0:0"); err == nil {
		t.Error("a console without an operator key listened beyond loopback")
	}
	hash := sha256.Sum256([]byte(testKey))
	s := New(Options{Stop: estop.New(estop.Options{}), KeySHA256: hash[:], HostNames: []string{"mcec-0.mcec.desk.svc"}})
	s.network = true // as Listen on a pod's address sets it
	for host, want := range map[string]bool{
		"mcec-0.mcec.desk.svc:5152": true, "MCEC-0.mcec.desk.svc": true, "10.1.2.3:80": true, "[fd00::1]:5152": true,
		"localhost:5152": true, "evil.example:5152": false, "mcec-1.mcec.desk.svc:5152": false, "": false,
	} {
		if got := s.ownHost(host); got != want {
			t.Errorf("ownHost(%q) = %v, want %v", host, got, want)
		}
	}
}
