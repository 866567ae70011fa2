package evidence

import (
	"bytes"
	"strconv"
	"strings"
)

// Redacting a capture's envelope used to decode ≈ 150 KB of base64 into a generic value only to
// throw it away (internal/dev/bench/findings.md). The long base64 strings are now cut out of the
// compact JSON first, byte by byte, and replaced by short placeholders ("holes"); the generic
// pass then decodes a few hundred bytes and turns each hole into the same marker the long string
// would have become. The output is byte for byte what the generic pass alone writes
// (TestHolesMatchGenericPass).

// holePrefix starts every placeholder. Input that already contains it takes the generic path,
// so no string of the caller's can be mistaken for a hole.
const holePrefix = "\x00mcec-hole:"

// base64Table is isBase64Char as a table.
var base64Table = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isBase64Char(byte(c))
	}
	return t
}()

// hole is one long base64 string cut out of the JSON.
type hole struct {
	n       int // its length in characters
	decoded int // the byte length it decodes to (decodedLen)
}

// cutHoles returns compact JSON b with every string value of at least minBase64Run base64
// characters replaced by a placeholder, and the holes by placeholder. It returns b itself and
// nil when there is nothing to cut or b holds a placeholder already. Keys are never cut.
func cutHoles(b []byte) ([]byte, map[string]hole) {
	if bytes.Contains(b, []byte(`\u0000mcec-hole:`)) {
		return b, nil
	}
	var (
		out   []byte
		holes map[string]hole
		last  int // b[last:] is not yet copied to out
	)
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		// A string starts at i: find its end, noting whether it is all base64 alphabet.
		j, plain := i+1, true
		for j < len(b) && base64Table[b[j]] {
			j++ // the common case: a run of base64, one table look-up a byte
		}
		for ; j < len(b) && b[j] != '"'; j++ {
			plain = false
			if b[j] == '\\' {
				j++
			}
		}
		if j >= len(b) {
			return b, nil // unterminated: leave it to the generic pass
		}
		s := b[i+1 : j]
		isKey := j+1 < len(b) && b[j+1] == ':'
		if plain && !isKey && len(s) >= minBase64Run && !readsAsField(b[:i]) {
			if holes == nil {
				holes = map[string]hole{}
				out = make([]byte, 0, 1024)
			}
			name := holePrefix + strconv.Itoa(len(holes))
			holes[name] = hole{n: len(s), decoded: len(bytes.TrimRight(s, "=")) * 3 / 4} // decodedLen, without a copy
			out = append(out, b[last:i]...)
			out = append(out, `"\u0000mcec-hole:`...)
			out = strconv.AppendInt(out, int64(len(holes)-1), 10)
			out = append(out, '"')
			last = j + 1
		}
		i = j
	}
	if holes == nil {
		return b, nil
	}
	return append(out, b[last:]...), holes
}

// readsAsField reports a value of the keys redactValue reads from an object (artifact, role,
// mimeType): those strings stay as they are, so the generic pass sees them.
func readsAsField(before []byte) bool {
	for _, k := range []string{`"artifact":`, `"role":`, `"mimeType":`} {
		if bytes.HasSuffix(before, []byte(k)) {
			return true
		}
	}
	return false
}

// holeMarker is what the generic pass makes of a long base64 string under key k (empty in an
// array) of an object with the given mimeType and artifact; it mirrors redactValue's cases.
func holeMarker(h hole, k, mime, artifact string) Redacted {
	switch {
	case k == "token":
		return Redacted{Redacted: "token", Bytes: h.n}
	case k == "base64":
		return Redacted{Redacted: "base64", Bytes: h.decoded, Artifact: artifact}
	case k == "data" && strings.HasPrefix(mime, "image/"):
		return Redacted{Redacted: "image", MIMEType: mime, Bytes: h.decoded, Artifact: artifact}
	default:
		return Redacted{Redacted: "base64", Bytes: h.decoded}
	}
}

// holeAt reports whether v is a placeholder of sc's.
func (sc *scrubbed) holeAt(v any) (hole, bool) {
	if sc.holes == nil {
		return hole{}, false
	}
	s, ok := v.(string)
	if !ok {
		return hole{}, false
	}
	h, ok := sc.holes[s]
	return h, ok
}
