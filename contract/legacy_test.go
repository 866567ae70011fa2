package contract_test

import (
	"encoding/json"
	"testing"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
)

func TestLegacyRoundTrip(t *testing.T) {
	partial := map[string]any{"width": 10.0}
	tests := []struct {
		name string
		env  contract.Envelope
		want string // the legacy JSON
	}{
		{"success", contract.Success("s-1", map[string]any{"count": 2.0}, contract.Warn(contract.WarnTreeTruncated, "cut")),
			`{"success":true,"command":"query","error":null,"data":{"count":2},"warnings":[{"code":"tree-truncated","detail":"cut"}]}`},
		{"empty success", contract.Success("s-1", nil), `{"success":true,"command":"query","error":null,"data":{}}`},
		{"failure", contract.Failure("s-1", contract.Errorf(contract.CodeWindowNotFound, "no window")),
			`{"success":false,"command":"query","error":"no window","data":null,"errorCode":"window-not-found","errorCategory":"no-target"}`},
		{"failure with partial result", contract.Failure("s-1", &contract.Error{Code: contract.CodeFrameAllBlack,
			Category: contract.CaptureBlank, Detail: "black", PartialResult: partial}),
			`{"success":false,"command":"query","error":"black","data":{"width":10},"errorCode":"frame-all-black","errorCategory":"capture-blank"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := contract.ToLegacy("query", tt.env)
			b, err := json.Marshal(l)
			if err != nil || string(b) != tt.want {
				t.Fatalf("ToLegacy = %s (%v)\nwant       %s", b, err, tt.want)
			}
			// And back, through the wire form.
			var decoded contract.Legacy
			if err := json.Unmarshal(b, &decoded); err != nil {
				t.Fatal(err)
			}
			back, err := contract.FromLegacy(decoded, "s-1")
			if err != nil {
				t.Fatal(err)
			}
			got := contracttest.CheckEnvelope(t, back)
			orig := contracttest.CheckEnvelope(t, tt.env)
			if string(got) != string(orig) {
				t.Errorf("round trip\n got %s\nwant %s", got, orig)
			}
		})
	}
}

func TestFromLegacyReference(t *testing.T) {
	msg := "Unknown command"
	tests := []struct {
		name string
		l    contract.Legacy
		want string
	}{
		{"reference failure without code", contract.Legacy{Command: "x", Error: &msg},
			`{"sessionId":"s-1","ok":false,"error":{"code":"unhandled-exception","category":"internal","detail":"Unknown command"}}`},
		{"code without category", contract.Legacy{Command: "x", Error: &msg, ErrorCode: contract.CodeUnknownCommand},
			`{"sessionId":"s-1","ok":false,"error":{"code":"unknown-command","category":"invalid-argument","detail":"Unknown command"}}`},
		{"scalar data", contract.Legacy{Success: true, Command: "mcec:ver", Data: "3.0"},
			`{"sessionId":"s-1","ok":true,"result":{"value":"3.0"}}`},
		{"raw data", contract.Legacy{Success: true, Command: "q", Data: json.RawMessage(`{"a":1}`)},
			`{"sessionId":"s-1","ok":true,"result":{"a":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := contract.FromLegacy(tt.l, "s-1")
			if err != nil {
				t.Fatal(err)
			}
			if got := contracttest.CheckEnvelope(t, env); string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	for _, bad := range []contract.Legacy{
		{Command: "x", Error: &msg, ErrorCategory: "nonsense"},
		{Success: true, Error: &msg},
	} {
		if _, err := contract.FromLegacy(bad, "s-1"); err == nil {
			t.Errorf("FromLegacy(%+v) accepted", bad)
		}
	}
	if _, err := contract.FromLegacy(contract.Legacy{Success: true}, ""); err == nil {
		t.Error("FromLegacy without a session id accepted")
	}
}
