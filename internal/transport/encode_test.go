package transport

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// captureResultJSON is a tools/call result as the SDK marshals it for a capture: the envelope
// text and the image block, ≈ 300 KB.
func captureResultJSON(tb testing.TB) json.RawMessage {
	tb.Helper()
	png := bytes.Repeat([]byte{0x89, 'P', 'N', 'G', 1, 2, 3, 4, 5, 6, 7}, 113_000/11)
	env := `{"sessionId":"default","ok":true,"result":{"width":1280,"base64":"` + base64.StdEncoding.EncodeToString(png) + `","note":"<a & b>"}}`
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: env}, &mcp.ImageContent{Data: png, MIMEType: "image/png"}}}
	b, err := json.Marshal(res)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestEncodeLineMatchesSDK(t *testing.T) {
	id := func(v any) jsonrpc.ID {
		i, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		return i
	}
	req, err := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	msgs := []jsonrpc.Message{
		&jsonrpc.Response{ID: id(float64(1)), Result: captureResultJSON(t)},
		&jsonrpc.Response{ID: id("a\"<b>"), Result: json.RawMessage(`{"content":[{"type":"text","text":"\u003c\u0026"}]}`)},
		&jsonrpc.Response{ID: id(float64(3)), Result: json.RawMessage(`{}`)},
		&jsonrpc.Response{ID: id(float64(4)), Error: &jsonrpc.Error{Code: -32602, Message: "unknown tool"}},
		&jsonrpc.Response{ID: id(float64(5)), Error: errors.New("plain")},
		&jsonrpc.Response{ID: id(float64(6)), Result: json.RawMessage("{\n  \"indented\": true\n}")},
		req,
	}
	for i, m := range msgs {
		want, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeLine(m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasSuffix(got, []byte("\n")) || bytes.Count(got, []byte("\n")) != 1 {
			t.Fatalf("message %d: not one line: %.200q", i, got)
		}
		if g := strings.TrimSuffix(string(got), "\n"); g != string(want) {
			t.Errorf("message %d:\n got %.300s\nwant %.300s", i, g, want)
		}
	}
}

// BenchmarkEncodeCaptureResponse is the stdio transport's encoding of a capture's response.
func BenchmarkEncodeCaptureResponse(b *testing.B) {
	id, _ := jsonrpc.MakeID(float64(42))
	m := &jsonrpc.Response{ID: id, Result: captureResultJSON(b)}
	b.SetBytes(int64(len(m.Result)))
	for b.Loop() {
		if _, err := encodeLine(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCaptureResultSDK is what the SDK does with a capture's tools/call result before the
// transport sees it (it marshals the CallToolResult callTool returns).
func BenchmarkCaptureResultSDK(b *testing.B) {
	png := bytes.Repeat([]byte{0x89, 'P', 'N', 'G', 1, 2, 3, 4, 5, 6, 7}, 113_000/11)
	env := `{"sessionId":"default","ok":true,"result":{"width":1280,"base64":"` + base64.StdEncoding.EncodeToString(png) + `"}}`
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: env}, &mcp.ImageContent{Data: png, MIMEType: "image/png"}}}
	for b.Loop() {
		if _, err := json.Marshal(res); err != nil {
			b.Fatal(err)
		}
	}
}

// sdkMarshal is how the SDK's jsonrpc layer marshals a result.
func sdkMarshal(tb testing.TB, v any) []byte {
	tb.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		tb.Fatal(err)
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

func TestPreEncodeMatchesSDK(t *testing.T) {
	big := strings.Repeat("x", preEncodeMin)
	png := bytes.Repeat([]byte{0x89, 'P', 'N', 'G', 0, 0xff}, 3000)
	withType := func() *mcp.CallToolResult {
		var r mcp.CallToolResult
		if err := json.Unmarshal([]byte(`{"content":[],"resultType":"complete"}`), &r); err != nil {
			t.Fatal(err)
		}
		return &r
	}
	cases := []struct {
		name   string
		res    *mcp.CallToolResult
		encode bool // preEncode takes it
	}{
		{"capture", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"ok":true,"r":"<&>\u2028` + big + `"}`}, &mcp.ImageContent{Data: png, MIMEType: "image/png"}}}, true},
		{"text only, error", &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: big + "\xff\x00\"\\"}}}, true},
		{"empty image", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: big}, &mcp.ImageContent{MIMEType: "image/png"}}}, true},
		{"meta and annotations", &mcp.CallToolResult{Meta: mcp.Meta{"k": "v"}, Content: []mcp.Content{
			&mcp.TextContent{Text: big, Annotations: &mcp.Annotations{Priority: 0.5}}, &mcp.ImageContent{Data: png, MIMEType: "image/png", Meta: mcp.Meta{"m": 1}}}}, true},
		{"result type", func() *mcp.CallToolResult {
			r := withType()
			r.Content = []mcp.Content{&mcp.TextContent{Text: big}, &mcp.ImageContent{Data: png, MIMEType: "image/png"}}
			return r
		}(), true},
		{"structured, with image", func() *mcp.CallToolResult {
			env := `{"ok":true,"r":"<&>\u2028` + big + `"}`
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: env}, &mcp.ImageContent{Data: png, MIMEType: "image/png"}},
				StructuredContent: json.RawMessage(env)}
		}(), true},
		{"structured, error", func() *mcp.CallToolResult {
			env := `{"ok":false,"e":"` + big + `"}`
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: env}}, StructuredContent: json.RawMessage(env)}
		}(), true},
		{"structured, not the text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"a":"` + big + `"}`}},
			StructuredContent: json.RawMessage(`{"b":1}`)}, false},
		{"structured, not compact", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"a": "` + big + `"}`}},
			StructuredContent: json.RawMessage(`{"a": "` + big + `"}`)}, false},
		{"structured, a map", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: big}}, StructuredContent: map[string]any{"a": 1}}, false},
		{"placeholder in text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: big + textMark}}}, true},
		{"placeholder in meta", &mcp.CallToolResult{Meta: mcp.Meta{"x": textMark}, Content: []mcp.Content{&mcp.TextContent{Text: big}}}, false},
		{"small", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}}, false},
		{"image first", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: png, MIMEType: "image/png"}, &mcp.TextContent{Text: big}}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := sdkMarshal(t, c.res)
			b, ok := encodeToolResult(c.res)
			if ok != c.encode {
				t.Fatalf("encodeToolResult ok = %v, want %v", ok, c.encode)
			}
			if !ok {
				return
			}
			if !bytes.Equal(b, want) {
				i := 0
				for i < len(b) && i < len(want) && b[i] == want[i] {
					i++
				}
				t.Fatalf("pre-encoded result differs at %d:\n got %.300s\nwant %.300s", i, b[max(0, i-50):], want[max(0, i-50):])
			}
			if got := sdkMarshal(t, &preEncoded{CallToolResult: c.res, wire: b}); !bytes.Equal(got, want) {
				t.Fatalf("as the SDK marshals it:\n got %.300s\nwant %.300s", got, want)
			}
		})
	}
}

// BenchmarkCaptureResultPreEncoded is BenchmarkCaptureResultSDK with preEncode.
func BenchmarkCaptureResultPreEncoded(b *testing.B) {
	png := bytes.Repeat([]byte{0x89, 'P', 'N', 'G', 1, 2, 3, 4, 5, 6, 7}, 113_000/11)
	env := `{"sessionId":"default","ok":true,"result":{"width":1280,"base64":"` + base64.StdEncoding.EncodeToString(png) + `"}}`
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: env}, &mcp.ImageContent{Data: png, MIMEType: "image/png"}}}
	for b.Loop() {
		w, ok := encodeToolResult(res)
		if !ok {
			b.Fatal("not pre-encoded")
		}
		if _, err := json.Marshal(&preEncoded{CallToolResult: res, wire: w}); err != nil {
			b.Fatal(err)
		}
	}
}
