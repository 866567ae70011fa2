package transport

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// encodeLine encodes one JSON-RPC message as a stdio line, newline included. A successful
// response is spliced together around its result, which the SDK has already marshalled
// (compact): jsonrpc.EncodeMessage would scan the whole result again only to copy it unchanged,
// ≈ 300 KB for a capture with its image (internal/dev/bench/findings.md). The bytes are the same as
// EncodeMessage's (TestEncodeLineMatchesSDK); everything else goes through EncodeMessage.
func encodeLine(m jsonrpc.Message) ([]byte, error) {
	if r, ok := m.(*jsonrpc.Response); ok && r.Error == nil && len(r.Result) > 0 && r.ID.IsValid() &&
		r.Result[0] == '{' && bytes.IndexByte(r.Result, '\n') < 0 {
		var idb bytes.Buffer
		enc := json.NewEncoder(&idb)
		enc.SetEscapeHTML(false) // as the SDK encodes messages
		if err := enc.Encode(r.ID.Raw()); err == nil {
			id := bytes.TrimRight(idb.Bytes(), "\n")
			const head, mid = `{"jsonrpc":"2.0","id":`, `,"result":`
			b := make([]byte, 0, len(head)+len(id)+len(mid)+len(r.Result)+2)
			b = append(b, head...)
			b = append(b, id...)
			b = append(b, mid...)
			b = append(b, r.Result...)
			return append(b, '}', '\n'), nil
		}
	}
	b, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// preEncodeMin is the text size from which a tools/call result is marshalled by preEncode:
// below it the SDK's own encoding costs little.
const preEncodeMin = 4 << 10

// preEncoded is a tools/call result whose JSON is already built. It embeds the result so that it
// still is one for the SDK; its MarshalJSON shadows the result's own.
type preEncoded struct {
	*mcp.CallToolResult
	wire []byte
}

func (p *preEncoded) MarshalJSON() ([]byte, error) { return p.wire, nil }

// Placeholders for the big strings in a result's skeleton.
var (
	textMark       = "\x00mcec-text\x00"
	imageMark      = []byte("\x00mcec-image\x00")
	structuredMark = "\x00mcec-structured\x00"
)

// preEncode is receiving middleware for tools/call results that carry a large envelope (and a
// capture's image). The SDK marshals the result's content blocks one by one and then the
// result, and encoding/json re-scans each Marshaler's output: the envelope text, its copy as
// structuredContent and the image base64 (≈ 150 KB each for a full screen) were scanned twice
// more than needed, ≈ 6 ms of CPU per capture. preEncode has the SDK marshal the result with
// placeholders instead of the big values, so every other field stays the SDK's, and splices the
// values in; the SDK then scans the whole once. The bytes are the same (TestPreEncodeMatchesSDK).
func preEncode(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || method != "tools/call" {
			return res, err
		}
		if r, ok := res.(*mcp.CallToolResult); ok {
			if b, ok := encodeToolResult(r); ok {
				if s := stashFrom(ctx); s != nil {
					return &preEncoded{CallToolResult: r, wire: s.put(b)}, nil
				}
				return &preEncoded{CallToolResult: r, wire: b}, nil
			}
		}
		return res, nil
	}
}

// splice is one placeholder of a skeleton and the bytes that replace it.
type splice struct {
	mark []byte // as it appears in the skeleton's JSON
	with func(out []byte) []byte
}

// encodeToolResult marshals r as the SDK would when its content is a large text block,
// optionally followed by an image block, and its structuredContent, if any, is the text's JSON
// as a json.RawMessage; ok is false for any other shape.
func encodeToolResult(r *mcp.CallToolResult) ([]byte, bool) {
	if len(r.Content) == 0 || len(r.Content) > 2 {
		return nil, false
	}
	text, ok := r.Content[0].(*mcp.TextContent)
	if !ok || len(text.Text) < preEncodeMin {
		return nil, false
	}
	var image *mcp.ImageContent
	if len(r.Content) == 2 {
		if image, ok = r.Content[1].(*mcp.ImageContent); !ok {
			return nil, false
		}
	}
	var structured []byte
	if r.StructuredContent != nil {
		// Taken only when it is the text block's own compact JSON, which the SDK would write
		// HTML-escaped (CallToolResult.MarshalJSON uses json.Marshal).
		raw, ok := r.StructuredContent.(json.RawMessage)
		if !ok || string(raw) != text.Text || !compactJSON(raw) {
			return nil, false
		}
		var esc bytes.Buffer
		esc.Grow(len(raw))
		json.HTMLEscape(&esc, raw)
		structured = esc.Bytes()
	}
	// The skeleton: a copy of r (unexported fields included) with placeholder content.
	skel := *r
	t := *text
	t.Text = textMark
	skel.Content = []mcp.Content{&t}
	if image != nil {
		im := *image
		im.Data = imageMark
		skel.Content = append(skel.Content, &im)
	}
	if structured != nil {
		skel.StructuredContent = structuredMark
	}
	var sb bytes.Buffer
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false) // as the SDK's jsonrpc layer encodes results
	if err := enc.Encode(&skel); err != nil {
		return nil, false
	}
	s := bytes.TrimRight(sb.Bytes(), "\n")
	textJSON, err := json.Marshal(text.Text) // as TextContent.MarshalJSON escapes it
	if err != nil {
		return nil, false
	}
	n := len(s) + len(textJSON) + len(structured)
	splices := []splice{{mark: []byte(`"\u0000mcec-text\u0000"`), with: func(out []byte) []byte { return append(out, textJSON...) }}}
	if image != nil {
		n += base64.StdEncoding.EncodedLen(len(image.Data))
		splices = append(splices, splice{mark: []byte(`"` + base64.StdEncoding.EncodeToString(imageMark) + `"`),
			with: func(out []byte) []byte {
				out = append(out, '"')
				out = base64.StdEncoding.AppendEncode(out, image.Data)
				return append(out, '"')
			}})
	}
	if structured != nil {
		splices = append(splices, splice{mark: []byte(`"\u0000mcec-structured\u0000"`),
			with: func(out []byte) []byte { return append(out, structured...) }})
	}
	out := make([]byte, 0, n)
	from := 0
	for _, sp := range splices { // in the order the SDK writes the fields
		at := placeholderAt(s, sp.mark)
		if at < from {
			return nil, false
		}
		out = append(out, s[from:at]...)
		out = sp.with(out)
		from = at + len(sp.mark)
	}
	return append(out, s[from:]...), true
}

// compactJSON reports whether b has no whitespace outside its strings, so that encoding/json's
// compaction of a json.RawMessage leaves it as it is.
func compactJSON(b []byte) bool {
	var c bytes.Buffer
	if err := json.Compact(&c, b); err != nil {
		return false
	}
	return c.Len() == len(b)
}

// placeholderAt is the offset of the one occurrence of q in s, or -1 (none, or several).
func placeholderAt(s, q []byte) int {
	i := bytes.Index(s, q)
	if i < 0 || bytes.Contains(s[i+len(q):], q) {
		return -1
	}
	return i
}
