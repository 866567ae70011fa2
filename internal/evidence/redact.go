package evidence

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
)

// minBase64Run is the length from which a string made only of base64 characters is treated as
// image (or other binary) bytes even under an unexpected key: no person writes 1 KiB without a
// space or punctuation.
const minBase64Run = 1024

// passwordRole is the AT-SPI role whose text is never recorded.
const passwordRole = "password text"

// scrubbed is what redaction found while rewriting a JSON value.
type scrubbed struct {
	artifacts []string        // "artifact" paths, in order of appearance
	password  bool            // a password field appeared (its text must not be recorded)
	changed   bool            // something was redacted
	holes     map[string]hole // long base64 strings cut out before decoding (holes.go)
}

// DecodeExact decodes JSON keeping numbers exact (window handles, pids); replay reads traces
// with it too.
func DecodeExact(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// redactJSON returns b, compacted onto one line, with image bytes replaced by Redacted markers,
// and what it saw. JSON that needs no change keeps its bytes (and key order). Undecodable input
// is returned as a JSON string so a trace line stays valid JSON.
func redactJSON(b []byte, sc *scrubbed) json.RawMessage {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if sc == nil {
		sc = &scrubbed{}
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, b); err != nil {
		q, _ := json.Marshal("unparsable: " + truncateString(string(b), 200))
		return q
	}
	return redactCompact(compact.Bytes(), sc)
}

// redactCompact is redactJSON for JSON known to be compact and valid (json.Marshal's output):
// the envelope of a capture is ≈ 150 KB, and compacting it again costs a full scan.
func redactCompact(compact []byte, sc *scrubbed) json.RawMessage {
	if !mayNeedRedaction(compact) {
		return compact
	}
	cut, holes := cutHoles(compact)
	sc.holes = holes
	v, err := DecodeExact(cut)
	if err != nil {
		q, _ := json.Marshal("unparsable: " + truncateString(string(compact), 200))
		return q
	}
	v = redactValue(v, sc)
	if !sc.changed {
		return compact
	}
	out, err := json.Marshal(v)
	if err != nil {
		q, _ := json.Marshal("unencodable: " + err.Error())
		return q
	}
	return out
}

// mayNeedRedaction is a cheap first look: only JSON with these keys, a password role or a long
// base64 run needs decoding.
func mayNeedRedaction(b []byte) bool {
	for _, k := range []string{`"artifact"`, `"base64"`, `"mimeType"`, `"token"`, passwordRole} {
		if bytes.Contains(b, []byte(k)) {
			return true
		}
	}
	run := 0
	for _, c := range b {
		if isBase64Char(c) {
			if run++; run >= minBase64Run {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// redactValue rewrites v in place where it can and returns it.
func redactValue(v any, sc *scrubbed) any {
	switch t := v.(type) {
	case map[string]any:
		artifact, _ := t["artifact"].(string)
		if artifact != "" {
			sc.artifacts = append(sc.artifacts, artifact)
		}
		if role, _ := t["role"].(string); strings.EqualFold(role, passwordRole) {
			sc.password = true
		}
		mime, _ := t["mimeType"].(string)
		for k, val := range t {
			if h, ok := sc.holeAt(val); ok {
				t[k] = holeMarker(h, k, mime, artifact)
				sc.changed = true
				continue
			}
			s, isString := val.(string)
			switch {
			case isString && k == "token":
				// An instance's bearer token (provision-session, end-session): a credential.
				t[k] = Redacted{Redacted: "token", Bytes: len(s)}
				sc.changed = true
			case isString && k == "base64":
				t[k] = Redacted{Redacted: "base64", Bytes: decodedLen(s), Artifact: artifact}
				sc.changed = true
			case isString && k == "data" && strings.HasPrefix(mime, "image/"):
				t[k] = Redacted{Redacted: "image", MIMEType: mime, Bytes: decodedLen(s), Artifact: artifact}
				sc.changed = true
			case isString && looksBase64(s):
				t[k] = Redacted{Redacted: "base64", Bytes: decodedLen(s)}
				sc.changed = true
			default:
				t[k] = redactValue(val, sc)
			}
		}
		return t
	case []any:
		for i, val := range t {
			if h, ok := sc.holeAt(val); ok {
				t[i] = holeMarker(h, "", "", "")
				sc.changed = true
				continue
			}
			if s, ok := val.(string); ok && looksBase64(s) {
				t[i] = Redacted{Redacted: "base64", Bytes: decodedLen(s)}
				sc.changed = true
				continue
			}
			t[i] = redactValue(val, sc)
		}
		return t
	default:
		return v
	}
}

// looksBase64 reports a long run of base64 alphabet only.
func looksBase64(s string) bool {
	if len(s) < minBase64Run {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isBase64Char(s[i]) {
			return false
		}
	}
	return true
}

func isBase64Char(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '-' || c == '_'
}

// decodedLen is the byte length base64 text s decodes to.
func decodedLen(s string) int {
	n := len(strings.TrimRight(s, "="))
	return n * 3 / 4
}

// withholdText replaces the "text" argument (at any depth) of a call that touched a password
// field: what an agent types into one must never reach the evidence.
func withholdText(args json.RawMessage) json.RawMessage {
	v, err := DecodeExact(args)
	if err != nil {
		return args
	}
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, val := range t {
				if _, ok := val.(string); ok && k == "text" {
					t[k] = withheld
					continue
				}
				walk(val)
			}
		case []any:
			for _, val := range t {
				walk(val)
			}
		}
	}
	walk(v)
	out, err := json.Marshal(v)
	if err != nil {
		return args
	}
	return out
}

// withheld stands in for text typed into a password field.
const withheld = "[withheld: password field]"

// typedTextNote is the reason given for text withheld by the operator's option.
const typedTextNote = "typed text"

// noteOf finds the tool's Withhold note on a result or an error's partial result; only values
// still in their Go form carry one (a decoded envelope does not).
func noteOf(env contract.Envelope) (catalog.Withhold, bool) {
	v := env.Result()
	if e := env.Err(); e != nil {
		v = e.PartialResult
	}
	if w, ok := v.(catalog.Withholder); ok {
		if n := w.Withheld(); len(n.Fields) > 0 {
			return n, true
		}
	}
	return catalog.Withhold{}, false
}

// withholdFields replaces the named string fields of a JSON object (dotted paths through
// nested objects) by the marker.
func withholdFields(obj map[string]any, fields []string, marker string) bool {
	changed := false
	for _, f := range fields {
		m, path := obj, strings.Split(f, ".")
		for _, k := range path[:len(path)-1] {
			if m, _ = m[k].(map[string]any); m == nil {
				break
			}
		}
		if _, ok := m[path[len(path)-1]].(string); ok {
			m[path[len(path)-1]] = marker
			changed = true
		}
	}
	return changed
}

// applyWithhold withholds the noted fields in the arguments and in the envelope's result (or
// error's partial result). Both are compact JSON; what does not decode is returned unchanged.
func applyWithhold(args, env json.RawMessage, n catalog.Withhold, marker string) (json.RawMessage, json.RawMessage) {
	if v, err := DecodeExact(args); err == nil {
		if m, ok := v.(map[string]any); ok && withholdFields(m, n.Fields, marker) {
			if b, err := json.Marshal(m); err == nil {
				args = b
			}
		}
	}
	if v, err := DecodeExact(env); err == nil {
		m, _ := v.(map[string]any)
		obj, _ := m["result"].(map[string]any)
		if e, ok := m["error"].(map[string]any); ok {
			obj, _ = e["partialResult"].(map[string]any)
		}
		if obj != nil && withholdFields(obj, n.Fields, marker) {
			if b, err := json.Marshal(m); err == nil {
				env = b
			}
		}
	}
	return args, env
}

func truncateString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
