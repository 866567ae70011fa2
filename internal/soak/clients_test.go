package soak_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/contract"
)

// call is one tool call of the corpus.
type call struct {
	tool string
	args string
}

const factory = `"process":"gtk3-widget-factory"`

// corpus mixes every tool, with valid and bad input. Acting calls stay harmless to the desktop
// (moves, focus, a modifier tap, typing nowhere in particular) so the run can go on for hours.
func (h *harness) corpus() []call {
	outside := filepath.Join(h.dir, "outside.png") // must never be written (path-not-allowed)
	return []call{
		// observe
		{"windows", `{}`},
		{"windows", `{` + factory + `}`},
		{"windows", `{"condition":"appears",` + factory + `,"timeout":300}`},
		{"query", `{` + factory + `,"maxDepth":2}`},
		{"query", `{` + factory + `,"maxDepth":4,"format":"outline"}`},
		{"find", `{` + factory + `,"element":{"role":"push button"}}`},
		{"find", `{` + factory + `,"element":{"name":"no such thing"}}`},
		{"wait-for", `{` + factory + `,"element":{"role":"frame"},"timeout":500}`},
		{"wait-for", `{` + factory + `,"element":{"name":"never there"},"timeout":300}`},
		{"capture", `{` + factory + `,"pathOnly":true,"maxWidth":320}`},
		{"capture", `{` + factory + `,"maxWidth":200}`},
		{"capture", `{"region":{"x":0,"y":0,"width":64,"height":48},"pathOnly":true}`},
		{"displays", `{}`},
		{"session-status", `{}`},
		{"clipboard", `{}`},
		// act
		{"focus", `{` + factory + `,"settle":0}`},
		{"window", `{` + factory + `,"action":"move","x":40,"y":40,"settle":0}`},
		{"window", `{` + factory + `,"action":"foreground","settle":0}`},
		{"clipboard", `{"action":"set","text":"soak"}`},
		{"send_command", `{"command":"mcec:ver"}`},
		{"send_command", `{"command":"pause:20"}`},
		{"send_command", `{"command":"key:shift","settle":0}`},
		{"send_command", `{"command":"mouse:mm,1,1","settle":0}`},
		{"send_command", `{"command":"windows {}"}`},
		{"click", `{"at":{"x":1270,"y":790},"settle":0}`},
		// bad input: the right error, never a crash, a hang or held input
		{"query", `{"window":"no such window"}`},
		{"query", `{"handle":0}`},
		{"query", `{"process":""}`},
		{"query", `{"window":""}`},
		{"query", `{"maxDepth":"three"}`},
		{"query", `{"nonsense":true}`},
		{"query", `[]`},
		{"query", `42`},
		{"click", `{"at":{"x":-5,"y":1000000000}}`},
		{"drag", `{"from":{"x":-1,"y":-1},"to":{"x":99999,"y":5}}`},
		{"focus", `{"at":{"x":100000,"y":100000}}`},
		{"window", `{` + factory + `,"action":"move","x":1000000000,"y":0}`},
		{"window", `{` + factory + `,"action":"teleport"}`},
		{"capture", `{"file":"` + outside + `"}`},
		{"capture", `{"region":{"x":0,"y":0,"width":100000,"height":100000}}`},
		{"record", `{"action":"stop"}`},
		{"windows", `{"condition":"bogus","process":"x"}`},
		{"windows", `{"timeout":100}`},
		{"wait-for", `{` + factory + `,"condition":"sideways"}`},
		{"invoke", `{"element":{"ref":"e999999"}}`},
		{"invoke", `{` + factory + `,"element":{"name":"no such thing"},"action":"invoke"}`},
		{"send_command", `{"command":"nosuchcommand"}`},
		{"send_command", `{"command":"mcec:exit"}`},
		{"send_command", `{"command":"mouse:vs,100000"}`},
		{"send_command", `{"command":""}`},
		{"launch", `{"path":"/nonexistent/program"}`},
		{"launch", `{}`},
		{"session-end", `{"sessionId":"s-000000000000"}`},
		{"end-session", `{"sessionId":"inst-0000000000000000","token":"x"}`},
	}
}

// rarely are costly calls (OCR, recordings) made one time in forty.
var rarely = []call{
	{"get-text", `{` + factory + `,"boxes":"none"}`},
	{"record", `{` + factory + `,"durationMs":400,"fps":5,"maxWidth":200}`},
}

func (w *worker) next(corpus []call) call {
	if w.rng.IntN(40) == 0 {
		return pick(w, rarely)
	}
	return pick(w, corpus)
}

// postFacade sends one façade call.
func postFacade(ctx context.Context, c *http.Client, base, token, tool string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/tools/"+tool, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	return resp.StatusCode, b, err
}

// callTimeout bounds one call (the corpus's longest waits are a few seconds; a frozen app costs
// one deadline).
const callTimeout = 45 * time.Second

// facadeClient: the façade, with session-start/-end pairs among the calls.
func (h *harness) facadeClient(ctx context.Context, w *worker) {
	corpus := h.corpus()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	defer client.CloseIdleConnections()
	for i := 0; i < maxCallsPerWorker && ctx.Err() == nil; i++ {
		c := w.next(corpus)
		body := c.args
		if w.rng.IntN(25) == 0 {
			body = `{"window":` // broken JSON: 400, never an envelope
		}
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		start := time.Now()
		status, b, err := postFacade(cctx, client, h.base(), h.token(), c.tool, []byte(body))
		took := time.Since(start)
		cancel()
		switch {
		case err != nil && h.over(ctx):
			return
		case err != nil:
			w.failed("facade", c.tool, err)
			pause(ctx, 200*time.Millisecond)
		case status == http.StatusOK:
			w.done("facade", c.tool, took, b)
		case status == http.StatusBadRequest && body != c.args:
			w.refused("facade", status)
		case status == http.StatusUnauthorized && h.expectErrors():
			w.failed("facade", c.tool, errors.New("401 while the server restarts"))
		default:
			w.refused("facade", status)
			w.failed("facade", c.tool, fmt.Errorf("HTTP %d: %.200s", status, b))
		}
	}
}

// bearer presents the current server's token (re-read for each request: a restarted server
// has a new one).
type bearer struct{ h *harness }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.h.token())
	return http.DefaultTransport.RoundTrip(r)
}

// mcpHTTPClient: the official Go SDK over streamable HTTP; reconnects when its session is gone.
func (h *harness) mcpHTTPClient(ctx context.Context, w *worker) {
	connect := func() (*mcp.ClientSession, error) {
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		return mcp.NewClient(&mcp.Implementation{Name: w.name, Version: "1"}, nil).Connect(cctx,
			&mcp.StreamableClientTransport{Endpoint: h.base() + "/mcp", HTTPClient: &http.Client{Transport: bearer{h}},
				DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	}
	h.mcpLoop(ctx, w, "mcp-http", connect, h.corpus())
}

// bridgeClient: MCP over stdio through `mcec mcp --server URL`, which finds the token itself.
func (h *harness) bridgeClient(ctx context.Context, w *worker) {
	connect := func() (*mcp.ClientSession, error) {
		cmd := exec.Command(h.bin, "mcp", "--server", h.base()+"/mcp")
		cmd.Env = h.env(h.run)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		cctx, cancel := context.WithTimeout(ctx, 40*time.Second)
		defer cancel()
		return mcp.NewClient(&mcp.Implementation{Name: w.name, Version: "1"}, nil).Connect(cctx, &mcp.CommandTransport{Command: cmd}, nil)
	}
	h.mcpLoop(ctx, w, "mcp-stdio-bridge", connect, h.corpus())
}

// ownStdio is the stdio server with a private desktop of its own (the faults kill it).
type ownStdio struct {
	mu  sync.Mutex
	pid int
}

var own ownStdio

// ownStdioClient: MCP over stdio to `mcec mcp --headless`, which starts a private desktop of
// its own; the faults kill it outright and its client starts another.
func (h *harness) ownStdioClient(ctx context.Context, w *worker) {
	corpus := []call{
		{"windows", `{}`}, {"displays", `{}`}, {"capture", `{"pathOnly":true,"maxWidth":200}`},
		{"query", `{"window":"nothing here"}`}, {"session-status", `{}`}, {"send_command", `{"command":"mcec:ver"}`},
		{"send_command", `{"command":"shiftdown:ctrl"}`}, {"send_command", `{"command":"shiftup:ctrl"}`},
		{"click", `{"at":{"x":5,"y":5},"settle":0}`}, {"query", `{"handle":0}`},
	}
	connect := func() (*mcp.ClientSession, error) {
		cmd := exec.Command(h.bin, "mcp", "--headless")
		env := h.env(h.run2)
		cmd.Env = env
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: w.name, Version: "1"}, nil).Connect(cctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err == nil {
			own.mu.Lock()
			own.pid = cmd.Process.Pid
			own.mu.Unlock()
		}
		return cs, err
	}
	h.mcpLoop(ctx, w, "mcp-stdio-own", connect, corpus)
}

// mcpLoop makes calls on an MCP session, reconnecting (bounded, with a pause) when it breaks.
func (h *harness) mcpLoop(ctx context.Context, w *worker, transport string, connect func() (*mcp.ClientSession, error), corpus []call) {
	var cs *mcp.ClientSession
	defer func() {
		if cs != nil {
			cs.Close()
		}
	}()
	for i := 0; i < maxCallsPerWorker && ctx.Err() == nil; i++ {
		if cs == nil {
			var err error
			if cs, err = connect(); err != nil {
				if h.over(ctx) {
					return
				}
				w.failed(transport, "connect", err)
				cs = nil
				pause(ctx, 500*time.Millisecond)
				continue
			}
		}
		c := w.next(corpus)
		var args any
		if err := json.Unmarshal([]byte(c.args), &args); err != nil {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		start := time.Now()
		res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: c.tool, Arguments: args})
		took := time.Since(start)
		cancel()
		if err != nil {
			if h.over(ctx) {
				return
			}
			// A JSON-RPC error: arguments that are not an object are refused before any tool
			// (invalid params); anything else breaks the session.
			var rpcErr interface{ Error() string }
			if errors.As(err, &rpcErr) && strings.Contains(err.Error(), "invalid params") && !strings.HasPrefix(strings.TrimSpace(c.args), "{") {
				w.refused(transport, 400)
				continue
			}
			w.failed(transport, c.tool, err)
			// The bridge must outlive a restart of the server behind it (a stdio client keeps
			// the process it started): only a bridge that died is started again.
			if transport != "mcp-stdio-bridge" || errors.Is(err, mcp.ErrConnectionClosed) {
				cs.Close()
				cs = nil
			}
			continue
		}
		if len(res.Content) == 0 {
			w.failed(transport, c.tool, errors.New("empty tool result"))
			continue
		}
		text, ok := res.Content[0].(*mcp.TextContent)
		if !ok {
			w.failed(transport, c.tool, fmt.Errorf("first block is %T", res.Content[0]))
			continue
		}
		w.done(transport, c.tool, took, []byte(text.Text))
		var env contract.Envelope
		if json.Unmarshal([]byte(text.Text), &env) == nil && res.IsError == env.OK() {
			w.failed(transport, c.tool, fmt.Errorf("isError=%v but ok=%v", res.IsError, env.OK()))
		}
	}
}

// lineCommands are the line protocol's: tools (answered with the legacy object), meta commands
// (answered with text), input (answered with nothing) and bad lines (a legacy error).
var lineCommands = []struct {
	line  string
	reply bool
}{
	{"mcec:ver", true}, {"mcec:time", true},
	{"windows", true}, {"displays", true}, {`query {"window":"no such window"}`, true},
	{`query {"process":"gtk3-widget-factory","maxDepth":1}`, true},
	{"pause:30", false}, {"key:shift", false}, {"mouse:mm,2,-2", false},
	{"shiftdown:ctrl", false}, {"shiftup:ctrl", false}, {"mouse:lbd", false}, {"mouse:lbu", false},
	{"nosuchcommand", true}, {"mouse:mtp,-5,abc", true}, {`query {"maxDepth":`, true}, {"mcec:exit-not", true},
	{strings.Repeat("x", 5000), true},
}

// lineClient: the TCP line protocol; connections are short, and often end holding a modifier
// and a button (closed abruptly), which mcec must release.
func (h *harness) lineClient(ctx context.Context, w *worker) {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(h.tcpPort))
	for i := 0; i < maxCallsPerWorker && ctx.Err() == nil; i++ {
		conn, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", addr)
		if err != nil {
			if !h.over(ctx) {
				w.failed("line-tcp", "connect", err)
				pause(ctx, 300*time.Millisecond)
			}
			continue
		}
		r := bufio.NewReader(conn)
		n := 1 + w.rng.IntN(8)
		for j := 0; j < n && ctx.Err() == nil; j++ {
			c := pick(w, lineCommands)
			start := time.Now()
			_ = conn.SetDeadline(time.Now().Add(callTimeout))
			if _, err := conn.Write([]byte(c.line + "\r\n")); err != nil {
				if !h.over(ctx) {
					w.failed("line-tcp", c.line, err)
				}
				break
			}
			if !c.reply {
				w.h.st.mu.Lock()
				w.h.st.calls["line-tcp"]++
				w.h.st.outcomes["line input (no answer)"]++
				w.h.st.mu.Unlock()
				continue
			}
			line, err := r.ReadString('\n')
			if err != nil {
				if !h.over(ctx) {
					w.failed("line-tcp", c.line, err)
				}
				break
			}
			w.lineReply(c.line, strings.TrimRight(line, "\r\n"), time.Since(start))
		}
		if w.rng.IntN(3) == 0 {
			// Hang up holding input: the server must release it.
			_, _ = conn.Write([]byte("shiftdown:ctrl\r\nmouse:lbd\r\n"))
		}
		conn.Close()
	}
}

// lineReply checks one answer of the line protocol.
func (w *worker) lineReply(cmd, line string, took time.Duration) {
	first := strings.Fields(cmd + " x")[0]
	if strings.HasPrefix(line, "{") {
		var l contract.Legacy
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			w.done("line-tcp", first, took, []byte(line)) // recorded as a violation
			return
		}
		env, err := contract.FromLegacy(l, "s-soak")
		if err == nil {
			err = contract.ValidateEnvelope(env)
		}
		if err != nil {
			w.done("line-tcp", first, took, []byte(line))
			return
		}
		b, _ := json.Marshal(env)
		w.done("line-tcp", first, took, b)
		return
	}
	s := w.h.st
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls["line-tcp"]++
	s.lat["line-tcp"] = append(s.lat["line-tcp"], took)
	if strings.HasPrefix(line, "mcec ") || (strings.HasPrefix(cmd, "mcec:time") && len(line) > 10) {
		s.outcomes["line text answer"]++
		return
	}
	s.outcomes["line: unexpected answer"]++
	if len(s.schemaBad) < 10 {
		s.schemaBad = append(s.schemaBad, fmt.Sprintf("line-tcp %q answered %.200q", cmd, line))
	}
}

// abuseClient: slow, stalled, abandoned and malformed HTTP connections, wrong tokens, abandoned
// MCP sessions (a few per server), slow readers.
func (h *harness) abuseClient(ctx context.Context, w *worker) {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(h.port))
	abandoned := map[int]int{} // per incarnation
	for i := 0; i < maxCallsPerWorker && ctx.Err() == nil; i++ {
		kind := w.rng.IntN(9)
		conn, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", addr)
		if err != nil {
			pause(ctx, 300*time.Millisecond)
			continue
		}
		_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
		host := "127.0.0.1:" + strconv.Itoa(h.port)
		auth := "Authorization: Bearer " + h.token() + "\r\n"
		switch kind {
		case 0: // half the headers, then gone
			_, _ = io.WriteString(conn, "POST /v1/tools/windows HTTP/1.1\r\nHost: "+host+"\r\nContent-")
		case 1: // a body promised, one byte sent, a stall, gone
			_, _ = io.WriteString(conn, "POST /v1/tools/windows HTTP/1.1\r\nHost: "+host+"\r\n"+auth+"Content-Length: 100\r\n\r\n{")
			pause(ctx, 2*time.Second)
		case 2: // a whole request, gone before the answer
			_, _ = io.WriteString(conn, "POST /v1/tools/capture HTTP/1.1\r\nHost: "+host+"\r\n"+auth+"Content-Length: 2\r\n\r\n{}")
		case 3: // garbage
			_, _ = conn.Write([]byte("\x00\xff\xfe GET / HTTP/9.9\r\n\r\n"))
			_, _ = io.Copy(io.Discard, conn)
		case 4: // headers too large
			_, _ = io.WriteString(conn, "POST /v1/tools/windows HTTP/1.1\r\nHost: "+host+"\r\nX-Big: "+strings.Repeat("a", 100<<10)+"\r\n\r\n")
			_, _ = io.Copy(io.Discard, conn)
		case 5: // a wrong token, a foreign Host, a cross-site Origin: refused, counted
			for _, hdr := range []string{"Authorization: Bearer wrong\r\n", auth + "Origin: http://evil.example\r\n"} {
				_, _ = io.WriteString(conn, "POST /v1/tools/windows HTTP/1.1\r\nHost: "+host+"\r\n"+hdr+"Content-Length: 2\r\n\r\n{}")
				if resp, err := http.ReadResponse(bufio.NewReader(conn), nil); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					w.refused("abuse", resp.StatusCode)
					if resp.StatusCode != 401 && resp.StatusCode != 403 {
						w.failed("abuse", "refusal", fmt.Errorf("a refused request answered %d", resp.StatusCode))
					}
				}
			}
		case 6: // an MCP session opened and abandoned (never DELETEd): a few per server
			gen := -1
			if s := h.current(); s != nil {
				gen = s.gen
			}
			if abandoned[gen] < 6 {
				abandoned[gen]++
				body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"abandoned","version":"1"}}}`
				_, _ = io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: "+host+"\r\n"+auth+"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: "+
					strconv.Itoa(len(body))+"\r\n\r\n"+body)
				if resp, err := http.ReadResponse(bufio.NewReader(conn), nil); err == nil {
					resp.Body.Close()
				}
			}
		case 7: // a slow reader of a large answer
			_, _ = io.WriteString(conn, "POST /v1/tools/capture HTTP/1.1\r\nHost: "+host+"\r\n"+auth+"Content-Length: 2\r\n\r\n{}")
			buf := make([]byte, 4096)
			for k := 0; k < 10 && ctx.Err() == nil; k++ {
				if _, err := conn.Read(buf); err != nil {
					break
				}
				pause(ctx, 200*time.Millisecond)
			}
		case 8: // slowloris: a header byte every 300 ms until the header timeout or the deadline
			line := "POST /v1/tools/windows HTTP/1.1\r\nHost: " + host + "\r\n"
			for k := 0; k < len(line) && k < 20 && ctx.Err() == nil; k++ {
				if _, err := conn.Write([]byte{line[k]}); err != nil {
					break
				}
				pause(ctx, 300*time.Millisecond)
			}
		}
		conn.Close()
		w.h.st.mu.Lock()
		w.h.st.outcomes[fmt.Sprintf("abuse %d", kind)]++
		w.h.st.mu.Unlock()
		pause(ctx, 50*time.Millisecond)
	}
}

// pause waits d or until ctx ends (client pacing, not synchronization).
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
