package contract_test

import (
	"encoding/json"
	"testing"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/contract/contracttest"
)

func TestEnvelopeShapes(t *testing.T) {
	tests := []struct {
		name string
		env  contract.Envelope
		want string
	}{
		{"success", contract.Success("s-1", map[string]int{"count": 2}),
			`{"sessionId":"s-1","ok":true,"result":{"count":2}}`},
		{"success nil result", contract.Success("s-1", nil),
			`{"sessionId":"s-1","ok":true,"result":{}}`},
		{"success with warning", contract.Success("s-1", map[string]int{}, contract.Warn(contract.WarnRegionClamped, "clipped")),
			`{"sessionId":"s-1","ok":true,"result":{},"warnings":[{"code":"region-clamped","detail":"clipped"}]}`},
		{"failure", contract.Failure("s-1", contract.Errorf(contract.CodeWindowNotFound, "no window %q", "x")),
			`{"sessionId":"s-1","ok":false,"error":{"code":"window-not-found","category":"no-target","detail":"no window \"x\""}}`},
		{"selector matched", contract.Failure("s-1", contract.Errorf(contract.SelectorMatched(3), "3 windows")),
			`{"sessionId":"s-1","ok":false,"error":{"code":"selector-matched-3","category":"ambiguous-selector","detail":"3 windows"}}`},
		{"failure with warning and observation", contract.Failure("s-1",
			&contract.Error{Code: contract.CodeFrameAllBlack, Category: contract.CaptureBlank, Detail: "black",
				LastObservation: map[string]any{"kind": "capture-summary", "width": 1, "height": 1, "encoding": "png", "bytes": 10, "artifact": "/a.png"},
				PartialResult:   map[string]any{"base64": "AAAA"}},
			contract.Warn(contract.WarnMinimizedWindow, "restored")),
			`{"sessionId":"s-1","ok":false,"warnings":[{"code":"minimized-window","detail":"restored"}],"error":{"code":"frame-all-black","category":"capture-blank","detail":"black","lastObservation":{"artifact":"/a.png","bytes":10,"encoding":"png","height":1,"kind":"capture-summary","width":1},"partialResult":{"base64":"AAAA"}}}`},
		{"nil error is internal", contract.Failure("s-1", nil),
			`{"sessionId":"s-1","ok":false,"error":{"code":"unhandled-exception","category":"internal","detail":"failure without an error"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(contracttest.CheckEnvelope(t, tt.env))
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			env := contracttest.Check(t, []byte(got))
			if env.OK() != tt.env.OK() || env.SessionID() != "s-1" {
				t.Errorf("round trip changed the envelope: %s", got)
			}
		})
	}
}

func TestSchemaRejects(t *testing.T) {
	// decoderRejects marks the invariants the Go decoder enforces too; the others are schema-only
	// (the decoder accepts open shapes inside error, which the schema narrows).
	tests := []struct {
		name           string
		doc            string
		decoderRejects bool
	}{
		{"ok with error", `{"sessionId":"s","ok":true,"result":{},"error":{"code":"x","category":"internal","detail":""}}`, true},
		{"ok without result", `{"sessionId":"s","ok":true}`, true},
		{"failure without error", `{"sessionId":"s","ok":false}`, true},
		{"failure with result", `{"sessionId":"s","ok":false,"result":{},"error":{"code":"x","category":"internal","detail":""}}`, true},
		{"unknown category", `{"sessionId":"s","ok":false,"error":{"code":"x","category":"input","detail":""}}`, true},
		{"extra envelope property", `{"sessionId":"s","ok":true,"result":{},"data":1}`, true},
		{"extra error property", `{"sessionId":"s","ok":false,"error":{"code":"x","category":"internal","detail":"","stack":""}}`, true},
		{"extra warning property", `{"sessionId":"s","ok":true,"result":{},"warnings":[{"code":"x","detail":"","level":1}]}`, true},
		{"missing sessionId", `{"ok":true,"result":{}}`, true},
		{"code not kebab", `{"sessionId":"s","ok":false,"error":{"code":"Bad_Code","category":"internal","detail":""}}`, false},
		{"base64 in lastObservation", `{"sessionId":"s","ok":false,"error":{"code":"x","category":"internal","detail":"","lastObservation":{"base64":"AAAA"}}}`, false},
		{"capture summary without artifact", `{"sessionId":"s","ok":false,"error":{"code":"x","category":"internal","detail":"","lastObservation":{"kind":"capture-summary","width":1,"height":1,"encoding":"png","bytes":1}}}`, false},
		{"result not an object", `{"sessionId":"s","ok":true,"result":[1]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := contract.Validate([]byte(tt.doc)); err == nil {
				t.Errorf("schema accepted %s", tt.doc)
			}
			var env contract.Envelope
			if err := json.Unmarshal([]byte(tt.doc), &env); err == nil && tt.decoderRejects {
				t.Errorf("decoder accepted %s", tt.doc)
			}
		})
	}
}

func TestCategoriesAreExactlyTheContractsTen(t *testing.T) {
	want := []string{"timeout", "ambiguous-selector", "stale-element", "no-target", "invalid-argument",
		"capture-blank", "focus", "elevation", "foreground", "internal"}
	got := contract.Categories()
	if len(got) != len(want) {
		t.Fatalf("got %d categories, want %d", len(got), len(want))
	}
	var schema struct {
		Defs struct {
			Category struct {
				Enum []string `json:"enum"`
			} `json:"category"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(contract.SchemaJSON, &schema); err != nil {
		t.Fatal(err)
	}
	for i, c := range got {
		if c.String() != want[i] || schema.Defs.Category.Enum[i] != want[i] {
			t.Errorf("category %d: Go %q, schema %q, contract %q", i, c, schema.Defs.Category.Enum[i], want[i])
		}
	}
	if _, err := json.Marshal(contract.Category{}); err == nil {
		t.Error("the zero Category marshalled")
	}
	var c contract.Category
	if err := json.Unmarshal([]byte(`"input"`), &c); err == nil {
		t.Error("an unknown category decoded")
	}
}

func TestEveryKnownCodeHasACategoryAndIsKebab(t *testing.T) {
	for _, code := range append(contract.ErrorCodes(), contract.WarningCodes()...) {
		env := contract.Failure("s", contract.NewError(contract.Internal, code, "d"))
		contracttest.CheckEnvelope(t, env)
	}
	for _, code := range contract.ErrorCodes() {
		if _, ok := contract.CategoryOf(code); !ok {
			t.Errorf("%s has no category", code)
		}
	}
	if c, ok := contract.CategoryOf("selector-matched-12"); !ok || c != contract.AmbiguousSelector {
		t.Errorf("selector-matched-12 → %v %v", c, ok)
	}
	if _, ok := contract.CategoryOf("selector-matched-x"); ok {
		t.Error("selector-matched-x has a category")
	}
}

func TestDecodeResult(t *testing.T) {
	b := contracttest.CheckEnvelope(t, contract.Success("s", map[string]int{"n": 7}))
	env := contracttest.Check(t, b)
	var r struct{ N int }
	if err := env.DecodeResult(&r); err != nil || r.N != 7 {
		t.Fatalf("DecodeResult: %v %+v", err, r)
	}
}

func BenchmarkEnvelopeMarshal(b *testing.B) {
	env := contract.Success("s-1", map[string]any{"windows": make([]map[string]any, 20), "count": 20},
		contract.Warn(contract.WarnTreeTruncated, "clipped at 1000 nodes"))
	for b.Loop() {
		if _, err := json.Marshal(env); err != nil {
			b.Fatal(err)
		}
	}
}
