package safety

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// maxAuditArgs bounds the arguments written into one audit line.
const maxAuditArgs = 2048

// secretKey matches argument names whose values are secrets wherever they appear.
var secretKey = regexp.MustCompile(`(?i)(password|passwd|secret|token)`)

// textTools are the tools whose "text" argument is typed or pasted into the desktop. At the
// dispatcher nothing says whether invoke's setvalue targets a password field, so that text is
// always redacted, as is clipboard set's.
var textTools = map[string]bool{"invoke": true, "clipboard": true}

// redacted marks a removed value; it keeps the length, which says what happened without
// saying what was typed.
func redacted(s string) string { return fmt.Sprintf("[redacted %d chars]", utf8.RuneCountInString(s)) }

// Redact renders a tool call's arguments for the audit log: compact JSON with typed text,
// clipboard text, raw chars: payloads and secret-named values replaced, clipped to 2 KiB.
func Redact(tool string, args json.RawMessage) string {
	if len(bytes.TrimSpace(args)) == 0 {
		return "{}"
	}
	var fields map[string]any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber() // window handles and pids stay exact
	if err := dec.Decode(&fields); err != nil || fields == nil {
		return fmt.Sprintf("[unparsable %d bytes]", len(args))
	}
	for k, v := range fields {
		s, isString := v.(string)
		switch {
		case textTools[tool] && k == "text" && isString:
			fields[k] = redacted(s)
		case tool == "send_command" && k == "command" && isString:
			fields[k] = RedactLine(s)
		default:
			fields[k] = redactValue(k, v)
		}
	}
	b, err := json.Marshal(fields)
	if err != nil {
		return "[unencodable]"
	}
	return clipString(string(b), maxAuditArgs)
}

// redactValue replaces secret-named values at any depth.
func redactValue(key string, v any) any {
	if secretKey.MatchString(key) {
		if s, ok := v.(string); ok {
			return redacted(s)
		}
		return "[redacted]"
	}
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = redactValue(k, x)
		}
	case []any:
		for i, x := range t {
			t[i] = redactValue("", x)
		}
	}
	return v
}

// RedactLine renders a raw command line for the audit log: a chars: payload is replaced by its
// length, an agent tool's JSON arguments are redacted like a tool call's.
func RedactLine(line string) string {
	trimmed := strings.TrimSpace(line)
	if len(trimmed) >= len("chars:") && strings.EqualFold(trimmed[:len("chars:")], "chars:") {
		return trimmed[:len("chars:")] + redacted(trimmed[len("chars:"):])
	}
	if name, args, ok := strings.Cut(trimmed, " "); ok && strings.HasPrefix(strings.TrimSpace(args), "{") {
		return name + " " + Redact(name, json.RawMessage(args))
	}
	return clipString(trimmed, maxAuditArgs)
}

func clipString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
