package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

func TestWireStash(t *testing.T) {
	var s wireStash
	wire := []byte(`{"content":[]}`)
	ph := s.put(wire)
	if !json.Valid(ph) {
		t.Fatalf("placeholder %q is not JSON", ph)
	}
	if got, ok := s.take(ph); !ok || !bytes.Equal(got, wire) {
		t.Fatalf("take(%q) = %q, %v", ph, got, ok)
	}
	if _, ok := s.take(ph); ok {
		t.Fatal("a placeholder was taken twice")
	}
	for _, bad := range []string{``, `{}`, `{"content":[]}`, stashPrefix + `x}`, stashPrefix + `1`, stashPrefix + `99}`} {
		if _, ok := s.take([]byte(bad)); ok {
			t.Errorf("take(%q) found a result", bad)
		}
	}
	var none *wireStash
	if _, ok := none.take(ph); ok {
		t.Error("a nil stash found a result")
	}
	// Results never taken (their response was never written) do not pile up.
	for i := range 3 * maxStashed {
		s.put([]byte(fmt.Sprint(i)))
	}
	if n := len(s.m); n > maxStashed {
		t.Errorf("%d results parked, want at most %d", n, maxStashed)
	}
}

// A large result served through Stdio.Serve goes through the stash and reads exactly as one
// served by the SDK's own path (srv.Run).
func TestStdioServeSplicesLargeResults(t *testing.T) {
	big := strings.Repeat("<é\"\\x>", preEncodeMin)
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":` +
		string(must(json.Marshal(big))) + `,"image":true}}}`
	serve := func(stash bool) (toolResult, *wireStash) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		srv := NewMCPServer(testDispatcher(t, nil), ServerInfo{Name: "mcec", Version: "test", Instructions: "guide text", Transport: "stdio"})
		st := &Stdio{In: inR, Out: outW}
		done := make(chan struct{})
		go func() {
			defer close(done)
			if stash {
				_ = st.Serve(ctx, srv)
			} else {
				_ = srv.Run(ctx, st)
			}
			outW.Close()
		}()
		lines := make(chan string, 8)
		go func() {
			sc := bufio.NewScanner(outR)
			sc.Buffer(make([]byte, 1<<20), 16<<20)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		p := &stdioPeer{t: t, in: inW, lines: lines}
		p.initialize()
		p.send(call)
		r := p.recv()
		if r.Error != nil {
			t.Fatalf("tools/call: %+v", r.Error)
		}
		tr, _ := decodeToolResult(t, r.Result)
		inW.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("server did not stop")
		}
		return tr, st.stash
	}
	plain, _ := serve(false)
	spliced, stash := serve(true)
	if stash == nil || stash.next != 1 || len(stash.m) != 0 {
		t.Fatalf("the large result did not go through the stash: %+v", stash)
	}
	if len(spliced.Content) != 2 || spliced.Content[1].Data != base64.StdEncoding.EncodeToString([]byte("\x89PNG")) {
		t.Fatalf("spliced result: %+v", spliced.Content)
	}
	if !strings.Contains(spliced.Content[0].Text, string(must(json.Marshal(big)))) {
		t.Fatal("the envelope lost the text")
	}
	// The envelopes differ only in timing fields; the shape must be the same.
	if len(plain.Content) != len(spliced.Content) || plain.IsError != spliced.IsError ||
		plain.Content[1] != spliced.Content[1] || len(plain.Content[0].Text) < len(big) {
		t.Fatalf("results differ:\n plain %.200v\nspliced %.200v", plain, spliced)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
