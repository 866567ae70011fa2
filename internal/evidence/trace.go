package evidence

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// TraceFile is the name of a session's call trace.
const TraceFile = "tool-calls.jsonl"

// Line kinds.
const (
	KindRequest   = "request"
	KindResponse  = "response"
	KindTruncated = "truncated" // the last line of a trace that reached its cap
	// KindOperator is something the operator did that bears on the calls around it (took
	// control, handed back, stopped, re-armed): Event says what, How through what. Its seq is
	// the number the next call will take.
	KindOperator = "operator"
)

// Operator events (Line.Event of a KindOperator line).
const (
	EventTakeControl = "take-control"
	EventHandBack    = "hand-back"
	EventStop        = "emergency-stop"
	EventRearm       = "rearm"
)

// genesis is the prev hash of a trace's first line.
var genesis = strings.Repeat("0", 64)

// maxLineBytes bounds one line when reading a trace: a line never exceeds the trace cap, and a
// reader must not be made to buffer a hostile file whole.
const maxLineBytes = 64 << 20

// Line is one line of tool-calls.jsonl. A request line carries the arguments; the response line
// that follows it (same seq) carries the envelope. Prev is the SHA-256 (hex) of the previous
// line's bytes, without its newline; the first line's prev is 64 zeros.
type Line struct {
	Seq  int       `json:"seq"`
	Kind string    `json:"kind"`
	At   time.Time `json:"at"`
	Tool string    `json:"tool,omitempty"`
	// Args are the request's arguments (sessionId included), image bytes redacted.
	Args json.RawMessage `json:"args,omitempty"`
	// DurationMs, OK, Envelope and Image describe the response.
	DurationMs *float64        `json:"durationMs,omitempty"`
	OK         *bool           `json:"ok,omitempty"`
	Envelope   json.RawMessage `json:"envelope,omitempty"`
	Image      *Redacted       `json:"image,omitempty"`
	// Frames are the pictures of the screen kept before and after the call (keep_frames).
	Frames []FrameRef `json:"frames,omitempty"`
	// Event and How describe an operator line.
	Event string `json:"event,omitempty"`
	How   string `json:"how,omitempty"`
	// Detail explains a truncated line.
	Detail string `json:"detail,omitempty"`
	Prev   string `json:"prev"`
}

// Redacted replaces image bytes (a "base64" field, an MCP image block) in traces and evidence.
type Redacted struct {
	Redacted string `json:"redacted"` // what was removed: "base64", "image"
	MIMEType string `json:"mimeType,omitempty"`
	Bytes    int    `json:"bytes"` // size of the decoded bytes
	// Artifact is where the same bytes are on disk, when the tool wrote them there.
	Artifact string `json:"artifact,omitempty"`
}

// FrameRef names a frame kept with a call: its file in the session directory and the file's
// SHA-256 (so the chain vouches for the picture too), and where on the screen it lies (X, Y of
// its top-left pixel; Scale, its size relative to the screen).
type FrameRef struct {
	When   string  `json:"when"`
	File   string  `json:"file"`
	SHA256 string  `json:"sha256"`
	X      int     `json:"x"`
	Y      int     `json:"y"`
	Scale  float64 `json:"scale"`
}

// FrameName is the file of the frame kept when ("before", "after") with call seq.
func FrameName(seq int, when string) string { return fmt.Sprintf("frame-%06d-%s.jpg", seq, when) }

// lineHash is the chain hash of one encoded line (without its newline).
func lineHash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ParseLine decodes one trace line (without its newline) and checks its shape: a JSON object
// with a known kind, a positive seq, a 64-hex-digit prev, and the fields its kind needs.
func ParseLine(b []byte) (Line, error) {
	var l Line
	if len(bytes.TrimSpace(b)) == 0 {
		return l, errors.New("empty line")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return Line{}, fmt.Errorf("not a trace line: %v", err)
	}
	if dec.More() {
		return Line{}, errors.New("not a trace line: data after the JSON object")
	}
	if !isHex64(l.Prev) {
		return Line{}, errors.New("prev is not a SHA-256 hex digest")
	}
	if l.Seq < 1 {
		return Line{}, fmt.Errorf("seq %d is not positive", l.Seq)
	}
	switch l.Kind {
	case KindRequest:
		if l.Tool == "" {
			return Line{}, errors.New("request without tool")
		}
	case KindResponse:
		if l.Tool == "" || len(l.Envelope) == 0 || l.OK == nil {
			return Line{}, errors.New("response without tool, ok or envelope")
		}
	case KindOperator:
		if l.Event == "" {
			return Line{}, errors.New("operator line without event")
		}
	case KindTruncated:
	default:
		return Line{}, fmt.Errorf("unknown kind %q", l.Kind)
	}
	return l, nil
}

func isHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// Anchor is what session.json records about the trace's end, so that lines cut from the end
// (which leave the chain itself intact) are detected too.
type Anchor struct {
	Lines int    `json:"lines"`
	Head  string `json:"head,omitempty"` // hash of the last line; "" when there is none
}

// ChainError names the first line of a trace that fails verification (1-based).
type ChainError struct {
	Line   int
	Reason string
}

func (e *ChainError) Error() string {
	return fmt.Sprintf("%s line %d: %s", TraceFile, e.Line, e.Reason)
}

// Verified is a verified trace.
type Verified struct {
	Lines []Line
	// Head is the hash of the last line (genesis for an empty trace).
	Head      string
	Truncated bool
	// Beyond counts lines after the anchor: written after session.json was last saved (a crash
	// between the two writes). They chain correctly, so they are reported, not rejected.
	Beyond int
	// TornBytes counts the bytes of a call pair cut short at the end of the trace, after the
	// anchor: the recorder was killed during the pair's one write (Linux stops a large write to
	// a file at a page boundary when SIGKILL arrives). They are not part of the chain, so they
	// are reported, not rejected; a torn line inside the anchored lines is an error.
	TornBytes int
}

// Verify reads a whole trace and checks it: every line parses, each line's prev is the hash of
// the line before, requests and responses come in pairs with consecutive seqs, a truncated line
// can only be last, and (with an anchor) the trace has not lost lines at its end. A pair torn by
// a crash after the anchor is left out of the chain and counted in TornBytes. The first failure
// is returned as a *ChainError.
func Verify(r io.Reader, anchor *Anchor) (*Verified, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	v := &Verified{Head: genesis}
	wantSeq, n := 1, 0
	var hashes []string
	lastLen := 0 // of the last line kept, so that a torn pair's complete request can be given back
	for {
		raw, err := readLine(br)
		if err == io.EOF {
			break
		}
		n++
		var torn *tornError
		if errors.As(err, &torn) && (anchor == nil || n > anchor.Lines) {
			v.TornBytes = torn.n
			n--
			break
		}
		if err != nil {
			return nil, &ChainError{Line: n, Reason: err.Error()}
		}
		if v.Truncated {
			return nil, &ChainError{Line: n, Reason: "line after the truncation marker"}
		}
		l, err := ParseLine(raw)
		if err != nil {
			return nil, &ChainError{Line: n, Reason: err.Error()}
		}
		if l.Prev != v.Head {
			what := "the previous line"
			if n == 1 {
				what = "the start of the trace (the first line was cut?)"
			}
			return nil, &ChainError{Line: n, Reason: fmt.Sprintf("prev hash does not match %s: a line before it was changed or cut", what)}
		}
		if l.Kind != KindResponse && len(v.Lines) > 0 && v.Lines[len(v.Lines)-1].Kind == KindRequest {
			return nil, &ChainError{Line: n, Reason: fmt.Sprintf("request %d has no response", v.Lines[len(v.Lines)-1].Seq)}
		}
		switch l.Kind {
		case KindRequest:
			if l.Seq != wantSeq {
				return nil, &ChainError{Line: n, Reason: fmt.Sprintf("request seq %d, want %d", l.Seq, wantSeq)}
			}
		case KindResponse:
			if len(v.Lines) == 0 || v.Lines[len(v.Lines)-1].Kind != KindRequest || v.Lines[len(v.Lines)-1].Seq != l.Seq {
				return nil, &ChainError{Line: n, Reason: fmt.Sprintf("response %d does not follow its request", l.Seq)}
			}
			if v.Lines[len(v.Lines)-1].Tool != l.Tool {
				return nil, &ChainError{Line: n, Reason: fmt.Sprintf("response tool %q differs from its request's %q", l.Tool, v.Lines[len(v.Lines)-1].Tool)}
			}
			wantSeq++
		case KindOperator:
			if l.Seq != wantSeq {
				return nil, &ChainError{Line: n, Reason: fmt.Sprintf("operator line seq %d, want %d (the next call's)", l.Seq, wantSeq)}
			}
		case KindTruncated:
			v.Truncated = true
		}
		v.Head = lineHash(raw)
		hashes = append(hashes, v.Head)
		v.Lines = append(v.Lines, l)
		lastLen = len(raw) + 1
	}
	// A pair is written with one write, so a torn response leaves its request complete: that
	// request belongs to the torn pair, unless the anchor vouches for it.
	if last := len(v.Lines) - 1; v.TornBytes > 0 && last >= 0 && v.Lines[last].Kind == KindRequest &&
		(anchor == nil || n > anchor.Lines) {
		v.TornBytes += lastLen
		v.Lines, hashes, n = v.Lines[:last], hashes[:last], n-1
		v.Head = genesis
		if last > 0 {
			v.Head = hashes[last-1]
		}
	}
	if len(v.Lines) > 0 && v.Lines[len(v.Lines)-1].Kind == KindRequest {
		return nil, &ChainError{Line: n, Reason: fmt.Sprintf("request %d has no response", v.Lines[len(v.Lines)-1].Seq)}
	}
	if anchor != nil {
		switch {
		case n < anchor.Lines:
			return nil, &ChainError{Line: n + 1, Reason: fmt.Sprintf("the trace ends after %d lines but session.json records %d: lines were cut from the end", n, anchor.Lines)}
		case anchor.Lines > 0 && hashes[anchor.Lines-1] != anchor.Head:
			return nil, &ChainError{Line: anchor.Lines, Reason: "hash differs from the head session.json records: the trace was changed"}
		}
		v.Beyond = n - anchor.Lines
	}
	return v, nil
}

// tornError is a final line without its newline.
type tornError struct{ n int }

func (e *tornError) Error() string {
	return "incomplete last line (no newline): the trace was cut or torn"
}

// readLine reads one newline-terminated line without the newline. A final line without a
// newline is a torn write and an error; io.EOF means no more lines.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxLineBytes {
			return nil, fmt.Errorf("longer than %d bytes", maxLineBytes)
		}
		switch {
		case err == nil:
			return buf[:len(buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(buf) == 0:
			return nil, io.EOF
		case err == io.EOF:
			return nil, &tornError{n: len(buf)}
		default:
			return nil, err
		}
	}
}
