// Package contracttest holds the test helper every test that sees an envelope uses: it validates
// the raw JSON against the embedded schema and decodes it with the contract's invariants.
package contracttest

import (
	"encoding/json"
	"testing"

	"github.com/mcec/mcec/contract"
)

// Check validates envelopeJSON against agent-tool-result.schema.json and decodes it. It fails the
// test on any violation.
func Check(t testing.TB, envelopeJSON []byte) contract.Envelope {
	t.Helper()
	if err := contract.Validate(envelopeJSON); err != nil {
		t.Fatalf("envelope does not match the schema: %v\n%s", err, envelopeJSON)
	}
	var env contract.Envelope
	if err := json.Unmarshal(envelopeJSON, &env); err != nil {
		t.Fatalf("envelope does not decode: %v\n%s", err, envelopeJSON)
	}
	return env
}

// CheckEnvelope marshals env, validates it and returns the JSON.
func CheckEnvelope(t testing.TB, env contract.Envelope) []byte {
	t.Helper()
	b, err := json.Marshal(env)
	if err != nil {
		t.Fatalf("marshal envelope: %v", err)
	}
	Check(t, b)
	return b
}

// Fail asserts that env is a failure with the given category and code, and returns its error.
func Fail(t testing.TB, env contract.Envelope, category contract.Category, code contract.Code) *contract.Error {
	t.Helper()
	if env.OK() {
		t.Fatalf("want failure %s/%s, got success: %v", category, code, env.Result())
	}
	e := env.Err()
	if e.Category != category || e.Code != code {
		t.Fatalf("want %s/%s, got %s/%s: %s", category, code, e.Category, e.Code, e.Detail)
	}
	return e
}

// HasWarning reports whether env carries a warning with that code.
func HasWarning(env contract.Envelope, code contract.Code) bool {
	for _, w := range env.Warnings() {
		if w.Code == code {
			return true
		}
	}
	return false
}
