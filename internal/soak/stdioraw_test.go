package soak_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// rawLines are what the raw stdio client writes: JSON-RPC with protocol-level faults (not JSON,
// no method, an unknown method, a 2 MiB line) among valid tool calls. want is the JSON-RPC error
// code expected, 0 for a tool result.
var rawLines = []struct {
	line string
	want int
}{
	{`{{{ not json`, -32700},
	{`{"jsonrpc":"2.0","id":ID}`, -32600},
	{`{"jsonrpc":"2.0","id":ID,"method":"no/such/method"}`, -32601},
	{`{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"windows","arguments":{}}}`, 0},
	{`{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"query","arguments":{"handle":0}}}`, 0},
	{`{"jsonrpc":"2.0","id":ID,"method":"tools/call","params":{"name":"displays"}}`, 0},
	{`"` + strings.Repeat("x", 2<<20) + `"`, -32600},
}

// stdioRawClient speaks newline-delimited JSON-RPC by hand to the bridge `mcec mcp --server`,
// mixing protocol garbage with tool calls: every line gets its one answer and the process
// lives on.
func (h *harness) stdioRawClient(ctx context.Context, w *worker) {
	for i := 0; i < maxCallsPerWorker && !h.over(ctx); {
		n, err := h.stdioRawSession(ctx, w)
		i += n + 1
		if err != nil && !h.over(ctx) {
			w.failed("stdio-raw", "session", err)
			pause(ctx, 500*time.Millisecond)
		}
	}
}

func (h *harness) stdioRawSession(ctx context.Context, w *worker) (int, error) {
	cmd := exec.Command(h.bin, "mcp", "--server", h.base()+"/mcp")
	cmd.Env = h.env(h.run)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	outR, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() {
		in.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	out := outR.(*os.File)
	r := bufio.NewReaderSize(out, 1<<16)
	id := 0
	// exchange writes line and reads the answer with id (other lines, notifications, skipped).
	exchange := func(line string) (map[string]json.RawMessage, error) {
		id++
		line = strings.ReplaceAll(line, "ID", fmt.Sprint(id))
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			return nil, err
		}
		_ = out.SetReadDeadline(time.Now().Add(callTimeout))
		for {
			b, err := r.ReadBytes('\n')
			if err != nil {
				return nil, err
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(b, &m); err != nil {
				return nil, fmt.Errorf("not JSON on stdout: %.200q", b)
			}
			if _, ok := m["id"]; ok {
				return m, nil
			}
		}
	}
	start := time.Now()
	if _, err := exchange(`{"jsonrpc":"2.0","id":ID,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`); err != nil {
		return 0, fmt.Errorf("initialize (%v): %w", time.Since(start).Round(time.Millisecond), err)
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		return 0, err
	}
	n := 1 + w.rng.IntN(30)
	for k := 0; k < n && !h.over(ctx); k++ {
		c := pick(w, rawLines)
		start := time.Now()
		m, err := exchange(c.line)
		if err != nil {
			return k, err
		}
		var rpcErr struct {
			Code int `json:"code"`
		}
		switch {
		case c.want != 0:
			if json.Unmarshal(m["error"], &rpcErr) != nil || rpcErr.Code != c.want {
				w.failed("stdio-raw", "protocol", fmt.Errorf("%.60q answered %s, want error %d", c.line, m["error"], c.want))
				continue
			}
			w.refused("stdio-raw", -rpcErr.Code)
		case len(m["error"]) > 0:
			// A tool call refused as a whole: the server behind the bridge is restarting.
			w.failed("stdio-raw", "tools/call", fmt.Errorf("JSON-RPC error %s", m["error"]))
		default:
			var res struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			if json.Unmarshal(m["result"], &res) != nil || len(res.Content) == 0 {
				w.failed("stdio-raw", "tools/call", fmt.Errorf("no content: %.200s", m["result"]))
				continue
			}
			w.done("stdio-raw", "tools/call", time.Since(start), []byte(res.Content[0].Text))
		}
	}
	return n, nil
}
