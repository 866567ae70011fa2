package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcec/mcec/contract/contracttest"
)

// FuzzStdioFraming feeds arbitrary bytes to the stdio transport, answering every request as a
// server would: no panic, no hang, every line written is a JSON-RPC message, and every
// non-blank input line is either delivered or answered with an error.
func FuzzStdioFraming(f *testing.F) {
	for _, seed := range []string{
		"",
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n",
		"not json\n{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"x\"}\r\n",
		`{"jsonrpc":"2.0","id":{"o":1},"method":"x"}` + "\n",
		`{"jsonrpc":"1.0","id":2}` + "\n\n\n",
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]` + "\n",
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
		"\xff\xfe\x00\n",
		strings.Repeat(`{"jsonrpc":"2.0","id":7,"method":"ping"}`+"\n", 40),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out lockedBuffer
		conn, err := (&Stdio{In: bytes.NewReader(data), Out: &out}).Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		delivered := 0
		for {
			msg, err := conn.Read(ctx)
			if err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("read ended with %v, want EOF (hang or bad framing)", err)
				}
				break
			}
			delivered++
			if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
				// Answer like the server, which frees the request's in-flight slot.
				if err := conn.Write(ctx, &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)}); err != nil {
					t.Fatal(err)
				}
			}
		}
		conn.Close()
		errs := 0
		sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				Error   json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.JSONRPC != "2.0" {
				t.Fatalf("wrote a line that is not JSON-RPC: %q (%v)", sc.Bytes(), err)
			}
			if m.Error != nil {
				errs++
			}
		}
		lines := 0
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				lines++
			}
		}
		if delivered+errs > lines || (lines > 0 && delivered+errs == 0) {
			t.Fatalf("%d non-blank lines, %d delivered, %d answered with errors", lines, delivered, errs)
		}
	})
}

// lockedBuffer is an io.Writer the transport may write from its reader goroutine.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.buf.Bytes())
}

// FuzzFacade sends arbitrary methods, paths, headers and bodies through the whole HTTP handler
// (front door, façade, MCP): only the documented statuses come back, and every 200 from the
// façade is a schema-valid envelope.
func FuzzFacade(f *testing.F) {
	for _, s := range []struct {
		method, path, body, origin string
		chunked                    bool
	}{
		{"POST", "/v1/tools/echo", `{"text":"hi"}`, "", false},
		{"POST", "/v1/tools/echo", `{"fail":true}`, "", true},
		{"POST", "/v1/tools/echo", `{"text":1}`, "http://localhost", false},
		{"POST", "/v1/tools/echo", `not json`, "", false},
		{"POST", "/v1/tools/echo", `{"sessionId":5}`, "", false},
		{"POST", "/v1/tools/nope", `{}`, "", false},
		{"GET", "/v1/tools/echo", ``, "", false},
		{"POST", "/v1/tools/", `{}`, "", false},
		{"POST", "/v1/tools/echo/x", `{}`, "null", false},
		{"POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "", false},
		{"POST", "/v1/tools/echo", strings.Repeat(" ", 100) + "{}", "http://evil.example", false},
	} {
		f.Add(s.method, s.path, []byte(s.body), s.origin, s.chunked)
	}
	release := make(chan struct{})
	close(release) // a block:true call returns at once
	d := testDispatcher(f, release)
	const port = 5151
	srv := NewMCPServer(d, ServerInfo{Name: "mcec"})
	h := NewHTTPHandler(d, func() *mcp.Server { return srv },
		FrontDoor{Port: port, Bind: netip.MustParseAddr("127.0.0.1")}, nil)
	allowed := map[int]bool{200: true, 202: true, 400: true, 403: true, 404: true, 405: true, 406: true,
		413: true, 415: true, 503: true}
	f.Fuzz(func(t *testing.T, method, path string, body []byte, origin string, chunked bool) {
		u, err := url.Parse(path)
		if err != nil || !strings.HasPrefix(path, "/") || !validMethod(method) {
			return
		}
		r := &http.Request{Method: method, URL: u, Host: "127.0.0.1:5151", Header: http.Header{},
			Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), RemoteAddr: "127.0.0.1:40000"}
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		if chunked {
			r.ContentLength = -1
			r.TransferEncoding = []string{"chunked"}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r.WithContext(ctx))
		if !allowed[w.Code] {
			t.Fatalf("%s %s: status %d: %s", method, path, w.Code, w.Body.Bytes())
		}
		if w.Code == 200 && strings.HasPrefix(u.Path, facadePathPrefix) {
			contracttest.Check(t, bytes.TrimSpace(w.Body.Bytes()))
		}
	})
}

// validMethod is what net/http accepts as a method token.
func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for _, c := range m {
		if c <= ' ' || c >= 0x7f || strings.ContainsRune(`()<>@,;:\"/[]?={}`, c) {
			return false
		}
	}
	return true
}
