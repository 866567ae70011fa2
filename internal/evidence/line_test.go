package evidence

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
)

// The response line spliced around the envelope is byte for byte json.Marshal's: the hash chain
// and every reader see the same trace as before.
func TestAppendResponseMatchesMarshal(t *testing.T) {
	ok, ms := true, 1.5
	envs := []contract.Envelope{
		contract.Success("s-1", map[string]any{"name": `<b> & "q" ` + "\u2028 é \x01", "n": 1.25, "list": []any{"envelope", nil}}),
		contract.Success("s-1", map[string]any{"envelope": map[string]any{"envelope": nil}}),
		contract.Failure("s-1", contract.Errorf(contract.CodeWindowClosed, "gone <now>")),
	}
	for i, env := range envs {
		b, err := env.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var sc scrubbed
		red := redactCompact(b, &sc)
		for _, e := range []json.RawMessage{b, red, nil} {
			l := Line{Seq: 3, Kind: KindResponse, At: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), Tool: "query",
				DurationMs: &ms, OK: &ok, Envelope: e, Image: &Redacted{Redacted: "image", Bytes: 4}, Prev: "ab"}
			want, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendResponse([]byte("request\n"), l)
			if err != nil {
				t.Fatal(err)
			}
			if want = append([]byte("request\n"), want...); !bytes.Equal(got, want) {
				t.Errorf("envelope %d:\n got %s\nwant %s", i, got, want)
			}
		}
	}
}
