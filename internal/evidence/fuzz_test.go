package evidence

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzParseLine: any bytes either parse into a well-formed line or fail with an error; never a
// panic, and a parsed line re-encodes into something that parses to the same fields.
func FuzzParseLine(f *testing.F) {
	f.Add([]byte(`{"seq":1,"kind":"request","at":"2026-07-01T10:15:02Z","tool":"windows","args":{},"prev":"` + genesis + `"}`))
	f.Add([]byte(`{"seq":1,"kind":"response","at":"2026-07-01T10:15:02Z","tool":"windows","durationMs":1.5,"ok":true,"envelope":{"sessionId":"s-1","ok":true,"result":{}},"prev":"` + genesis + `"}`))
	f.Add([]byte(`{"seq":3,"kind":"truncated","at":"2026-07-01T10:15:02Z","detail":"cap","prev":"` + genesis + `"}`))
	f.Add([]byte(`{"seq":0}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseLine(b)
		if err != nil {
			return
		}
		if !isHex64(l.Prev) || l.Seq < 1 {
			t.Fatalf("accepted a malformed line: %+v", l)
		}
	})
}

// FuzzVerify: Verify never panics, and when it accepts a trace, cutting any one line of its chain
// out of it (with the anchor of the original) is always detected.
func FuzzVerify(f *testing.F) {
	f.Add(validTrace(f, 3))
	f.Add(validTrace(f, 1))
	f.Add([]byte{})
	f.Add([]byte("\n\n"))
	f.Add([]byte(`{"seq":1,"kind":"request","at":"2026-07-01T10:15:02Z","tool":"w","prev":"` + genesis + `"}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Verify(bytes.NewReader(b), nil)
		if err != nil {
			var ce *ChainError
			if !errors.As(err, &ce) || ce.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		anchor := &Anchor{Lines: len(v.Lines), Head: v.Head}
		lines := strings.SplitAfter(string(b), "\n")
		for i := 0; i < len(v.Lines); i++ {
			cut := strings.Join(lines[:i], "") + strings.Join(lines[i+1:], "")
			if _, err := Verify(strings.NewReader(cut), anchor); err == nil {
				t.Fatalf("cutting line %d of a valid trace went unnoticed", i+1)
			}
		}
	})
}

// validTrace records n calls and returns the trace bytes.
func validTrace(f *testing.F, n int) []byte {
	r := &Recorder{opts: Options{MaxTraceBytes: DefaultMaxTraceBytes}}
	lg := &sessionLog{dir: f.TempDir()}
	lg.state.Trace = TraceState{Anchor: Anchor{Head: genesis}, MaxBytes: DefaultMaxTraceBytes}
	ok := true
	ms := 1.0
	for i := 1; i <= n; i++ {
		req := Line{Seq: i, Kind: KindRequest, Tool: "windows", Args: []byte(`{"n":1}`)}
		resp := Line{Seq: i, Kind: KindResponse, Tool: "windows", OK: &ok, DurationMs: &ms,
			Envelope: []byte(`{"sessionId":"s-1","ok":true,"result":{}}`)}
		if _, err := r.appendPair(lg, req, resp); err != nil {
			f.Fatal(err)
		}
	}
	b, err := readLimited(lg.dir + "/" + TraceFile)
	if err != nil {
		f.Fatal(err)
	}
	return b
}
