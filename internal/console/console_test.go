package console

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/estop"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func start(t *testing.T) (*Server, *estop.Latch, *clock) {
	t.Helper()
	clk := &clock{t: time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)}
	latch := estop.New(estop.Options{})
	s := New(Options{Stop: latch, Now: clk.now})
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, latch, clk
}

// browser is an HTTP client with a cookie jar that does not follow redirects.
func browser(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func get(t *testing.T, c *http.Client, u string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return do(t, c, req)
}

func post(t *testing.T, c *http.Client, s *Server, path, origin string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", "http://"+s.Addr()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	return do(t, c, req)
}

func do(t *testing.T, c *http.Client, req *http.Request) (int, string) {
	t.Helper()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func login(t *testing.T, s *Server) *http.Client {
	t.Helper()
	c := browser(t)
	if code, body := get(t, c, s.LoginURL()); code != http.StatusSeeOther {
		t.Fatalf("login: %d %s", code, body)
	}
	return c
}

func TestLogin(t *testing.T) {
	s, _, clk := start(t)
	base := "http://" + s.Addr()

	t.Run("nothing without logging in", func(t *testing.T) {
		for _, p := range []string{"/", "/api/state", "/api/events"} {
			if code, _ := get(t, browser(t), base+p); code != http.StatusUnauthorized {
				t.Errorf("GET %s without a session: %d, want 401", p, code)
			}
		}
	})
	t.Run("a link works once", func(t *testing.T) {
		link := s.LoginURL()
		c := browser(t)
		if code, _ := get(t, c, link); code != http.StatusSeeOther {
			t.Fatalf("first use: %d", code)
		}
		if code, body := get(t, c, base+"/"); code != http.StatusOK || !strings.Contains(body, "mcec console") {
			t.Errorf("page after login: %d", code)
		}
		if code, _ := get(t, browser(t), link); code != http.StatusUnauthorized {
			t.Errorf("second use of a link: %d, want 401", code)
		}
	})
	t.Run("a link expires", func(t *testing.T) {
		link := s.LoginURL()
		clk.add(linkLife + time.Second)
		if code, _ := get(t, browser(t), link); code != http.StatusUnauthorized {
			t.Errorf("expired link: %d, want 401", code)
		}
	})
	t.Run("a made-up link or cookie is refused", func(t *testing.T) {
		if code, _ := get(t, browser(t), base+"/login?t="+secret()); code != http.StatusUnauthorized {
			t.Errorf("made-up link: %d", code)
		}
		if code, _ := get(t, browser(t), base+"/api/state", "Cookie", s.cookieName()+"="+secret()); code != http.StatusUnauthorized {
			t.Errorf("made-up cookie: %d", code)
		}
	})
	t.Run("a session expires", func(t *testing.T) {
		c := login(t, s)
		clk.add(sessionLife + time.Second)
		if code, _ := get(t, c, base+"/api/state"); code != http.StatusUnauthorized {
			t.Errorf("expired session: %d, want 401", code)
		}
	})
	t.Run("the agents' bearer token is refused", func(t *testing.T) {
		c := login(t, s)
		if code, body := get(t, c, base+"/api/state", "Authorization", "Bearer agent-token"); code != http.StatusUnauthorized ||
			!strings.Contains(body, "bearer token") {
			t.Errorf("a request with a bearer token: %d %s", code, body)
		}
	})
	t.Run("another host name is refused", func(t *testing.T) {
		c := login(t, s)
		u, _ := url.Parse(base + "/api/state")
		req, _ := http.NewRequest("GET", u.String(), nil)
		req.Host = "evil.example:" + u.Port()
		for _, ck := range c.Jar.Cookies(u) {
			req.AddCookie(ck)
		}
		if code, _ := do(t, c, req); code != http.StatusMisdirectedRequest {
			t.Errorf("a rebound host name: %d, want 421", code)
		}
	})
}

func TestStopAndRearm(t *testing.T) {
	s, latch, _ := start(t)
	c := login(t, s)
	origin := "http://" + s.Addr()

	if code, _ := post(t, c, s, "/api/stop", "http://evil.example"); code != http.StatusForbidden || latch.Stopped() {
		t.Fatalf("Stop from another site's page: %d, stopped %v", code, latch.Stopped())
	}
	if code, _ := post(t, c, s, "/api/stop", ""); code != http.StatusForbidden || latch.Stopped() {
		t.Fatalf("Stop without Origin: %d, stopped %v", code, latch.Stopped())
	}
	code, body := post(t, c, s, "/api/stop", origin)
	var st State
	if code != http.StatusOK || json.Unmarshal([]byte(body), &st) != nil || st.EmergencyStop.State != estop.Stopped || st.EmergencyStop.How != estop.ByConsole {
		t.Fatalf("Stop: %d %s", code, body)
	}
	// The same latch as the hotkey's: calls are refused with the stop's code.
	var e *contract.Error
	if !errors.As(latch.Check("click"), &e) || e.Code != contract.CodeEmergencyStopped {
		t.Fatalf("a tool call after Stop: %v", latch.Check("click"))
	}
	code, body = post(t, c, s, "/api/rearm", origin)
	if code != http.StatusOK || json.Unmarshal([]byte(body), &st) != nil || !st.Rearmed || st.EmergencyStop.State == estop.Stopped {
		t.Fatalf("Re-arm: %d %s", code, body)
	}
	if err := latch.Check("click"); err != nil {
		t.Fatalf("a tool call after Re-arm: %v", err)
	}
}

func TestNarration(t *testing.T) {
	s, _, _ := start(t)
	c := login(t, s)
	obs := s.Observer()
	finished := func(tool, args string, env contract.Envelope) {
		obs.CallFinished(context.Background(), dispatch.Finished{Tool: tool, Args: json.RawMessage(args),
			Outcome: dispatch.Outcome{Envelope: env}, Start: time.Now(), Duration: 42 * time.Millisecond})
	}
	finished("windows", `{}`, contract.Success("s-1", map[string]any{"count": 0}))

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+s.Addr()+"/api/events", nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	next := func() Narration {
		t.Helper()
		for lines.Scan() {
			if data, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
				var n Narration
				if err := json.Unmarshal([]byte(data), &n); err != nil {
					t.Fatal(err)
				}
				return n
			}
		}
		t.Fatalf("the event stream ended: %v", lines.Err())
		return Narration{}
	}
	if n := next(); n.Tool != "windows" || !n.OK || n.Ms != 42 {
		t.Errorf("backlog: %+v", n)
	}
	// A live call, whose typed text never reaches the console.
	finished("invoke", `{"element":{"name":"Password","role":"password text"},"action":"setvalue","text":"hunter2","process":"firefox"}`,
		contract.Failure("s-1", contract.Errorf(contract.CodeEmergencyStopped, "stopped")))
	n := next()
	if n.Tool != "invoke" || n.OK || n.Code != string(contract.CodeEmergencyStopped) || n.Action != "setvalue" ||
		n.Target != `password text "Password" in firefox` {
		t.Errorf("live: %+v", n)
	}
	if b, _ := json.Marshal(n); strings.Contains(string(b), "hunter2") {
		t.Errorf("the narration carries the typed text: %s", b)
	}

	// Where an action landed, for the live view's overlay: a click's point, an element's box.
	finished("click", `{"at":{"x":5,"y":6},"pid":7}`, contract.Success("s-1", map[string]any{"clicked": true, "at": []int{105, 206}}))
	if n := next(); n.Point == nil || *n.Point != [2]int{105, 206} || n.Box != nil {
		t.Errorf("click: point %v box %v", n.Point, n.Box)
	}
	finished("invoke", `{"element":{"name":"OK"}}`, contract.Success("s-1", map[string]any{"invoked": true,
		"element": map[string]any{"name": "OK", "x": 10, "y": 20, "width": 80, "height": 24}}))
	if n := next(); n.Box == nil || *n.Box != [4]int{10, 20, 80, 24} || n.Point != nil {
		t.Errorf("invoke: point %v box %v", n.Point, n.Box)
	}
	finished("query", `{}`, contract.Success("s-1", map[string]any{"element": map[string]any{"x": 1, "y": 1, "width": 1, "height": 1}}))
	if n := next(); n.Box != nil {
		t.Errorf("an observation drew a box: %v", n.Box)
	}
}
