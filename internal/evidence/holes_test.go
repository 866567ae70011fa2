package evidence

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcec/mcec/contract"
)

// genericRedact is redactJSON without cutting holes: the reference the fast path must match.
func genericRedact(b []byte) (json.RawMessage, scrubbed) {
	var sc scrubbed
	var compact bytes.Buffer
	if json.Compact(&compact, b) != nil {
		return nil, sc
	}
	if !mayNeedRedaction(compact.Bytes()) {
		return compact.Bytes(), sc
	}
	v, err := DecodeExact(compact.Bytes())
	if err != nil {
		return nil, sc
	}
	v = redactValue(v, &sc)
	if !sc.changed {
		return compact.Bytes(), sc
	}
	out, _ := json.Marshal(v)
	return out, sc
}

func checkHolesMatch(t *testing.T, in []byte) {
	t.Helper()
	want, wsc := genericRedact(in)
	if want == nil {
		return // not JSON: both paths answer "unparsable"
	}
	var sc scrubbed
	got := redactJSON(in, &sc)
	if !bytes.Equal(got, want) {
		t.Fatalf("redactJSON(%.200q)\n got %.400s\nwant %.400s", in, got, want)
	}
	if strings.Join(sc.artifacts, "\n") != strings.Join(wsc.artifacts, "\n") || sc.password != wsc.password || sc.changed != wsc.changed {
		t.Fatalf("scrubbed differs: got %+v, want %+v", sc, wsc)
	}
	if bytes.Contains(got, []byte("mcec-hole")) && !bytes.Contains(in, []byte("mcec-hole")) {
		t.Fatalf("a placeholder survived: %.400s", got)
	}
}

func b64(n int) string {
	return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xfb, 7, 'x'}, n))
}

func holeSeeds() []string {
	long, other := b64(600), b64(400)
	return []string{
		`{"sessionId":"s","ok":true,"result":{"width":3,"base64":"` + long + `","artifact":"/a/capture-1.png"}}`,
		`{"ok":false,"error":{"partialResult":{"base64":"` + long + `","artifact":"/x.png"}}}`,
		`{"content":[{"type":"image","mimeType":"image/png","data":"` + long + `"}]}`,
		`{"data":"` + long + `"}`,
		`{"token":"` + long + `","list":["` + other + `","short",1,{"k":"` + other + `"}]}`,
		`["` + long + `"]`,
		`"` + long + `"`,
		`{"` + long + `":1,"v":"` + long + `"}`,
		`{"artifact":"` + long + `","role":"password text","text":"` + other + `"}`,
		`{"mimeType":"` + long + `","data":"` + other + `"}`,
		`{"a":"` + long[:minBase64Run-1] + `","b":"` + long[:minBase64Run] + `"}`,
		`{"a":"x\"` + long + `","b":"` + long + `\"y"}`,
		`{"a":"\u0000mcec-hole:0","b":"` + long + `"}`,
		`{ "spaced" : "` + long + `" ,  "n": 1 }`,
		`{"plain":"no base64 here"}`,
	}
}

func TestHolesMatchGenericPass(t *testing.T) {
	for _, s := range holeSeeds() {
		checkHolesMatch(t, []byte(s))
	}
}

func FuzzHolesMatchGenericPass(f *testing.F) {
	for _, s := range holeSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkHolesMatch(t, in)
	})
}

// captureEnvelope is a full-screen capture's envelope: ≈ 150 KB of base64.
func captureEnvelope() contract.Envelope {
	png := bytes.Repeat([]byte{0x89, 'P', 'N', 'G', 1, 2, 3, 4, 5, 6, 7}, 113_000/11)
	return contract.Success("default", map[string]any{
		"width": 1280, "height": 800, "encoding": "png", "bytes": len(png),
		"base64": base64.StdEncoding.EncodeToString(png), "artifact": "/tmp/s/capture-0001.png",
		"blankCheck": map[string]any{"blank": false, "dominantFraction": 0.4},
	})
}

// BenchmarkRedactCaptureEnvelope is the recorder's redaction of one capture's envelope.
func BenchmarkRedactCaptureEnvelope(b *testing.B) {
	env, err := captureEnvelope().MarshalJSON()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(env)))
	for b.Loop() {
		var sc scrubbed
		if out := redactCompact(env, &sc); len(out) > 1000 {
			b.Fatalf("not redacted: %d bytes", len(out))
		}
	}
}

// BenchmarkRedactCaptureEnvelopeGeneric is the same without holes: what the recorder did before.
func BenchmarkRedactCaptureEnvelopeGeneric(b *testing.B) {
	env, err := captureEnvelope().MarshalJSON()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(env)))
	for b.Loop() {
		if out, _ := genericRedact(env); len(out) > 1000 {
			b.Fatalf("not redacted: %d bytes", len(out))
		}
	}
}
