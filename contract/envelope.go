// Package contract is mcec's agent tool result contract: one envelope for every tool, one closed
// error taxonomy, and the JSON Schema that both obey.
//
// A result is a success or a failure, never both. The Go types make an invalid envelope impossible
// to build: Envelope has no exported fields; Success and Failure are its only constructors; a
// decoded envelope is checked for the same invariants. Go clients import this package to decode
// mcec's answers:
//
//	var env contract.Envelope
//	if err := json.Unmarshal(body, &env); err != nil { ... }
//	if !env.OK() {
//		switch env.Err().Category {
//		case contract.Timeout: ...
//		}
//	}
package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// Warning is a non-fatal condition: the call was adjusted, degraded or assumed something.
type Warning struct {
	Code   Code   `json:"code"`
	Detail string `json:"detail"`
}

// Warn builds a warning.
func Warn(code Code, format string, args ...any) Warning {
	return Warning{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// Error is a tool failure. It is also a Go error so that handlers can return it through ordinary
// error paths; errors.As finds it in a wrapped chain.
type Error struct {
	Code     Code     `json:"code"`
	Category Category `json:"category"`
	// Detail is for people; agents branch on Category, then Code.
	Detail string `json:"detail"`
	// LastObservation is the session's last good state before the failure (a JSON object; a
	// capture appears only as a capture summary, never as base64).
	LastObservation any `json:"lastObservation,omitempty"`
	// PartialResult is the failing call's own payload when the tool kept one (a JSON object).
	PartialResult any `json:"partialResult,omitempty"`
}

// Error implements error.
func (e *Error) Error() string {
	return e.Category.String() + "/" + string(e.Code) + ": " + e.Detail
}

// NewError builds an error with an explicit category; use it for codes this package does not know.
func NewError(category Category, code Code, detail string) *Error {
	if !category.Valid() {
		category = Internal
	}
	return &Error{Code: code, Category: category, Detail: detail}
}

// Errorf builds an error whose category is derived from a known code. An unknown code is filed
// under internal: a programmer error that tests catch, never a crash in a call path.
func Errorf(code Code, format string, args ...any) *Error {
	category, ok := CategoryOf(code)
	if !ok {
		category = Internal
	}
	return &Error{Code: code, Category: category, Detail: fmt.Sprintf(format, args...)}
}

// Envelope is the one result shape of every tool. Build it with Success or Failure.
type Envelope struct {
	sessionID string
	result    any // non-nil exactly when err is nil
	err       *Error
	warnings  []Warning
	// enc is the envelope's JSON, made by the first MarshalJSON and shared by its copies: the
	// evidence recorder and the transport both need it, and a query's is ≈ 50 KB to encode.
	enc *encoding
}

// encoding is an envelope's JSON, made once.
type encoding struct {
	once sync.Once
	b    []byte
	err  error
}

// emptyResult stands in for a nil success payload so a success always carries a result object.
var emptyResult = struct{}{}

// Success is an ok envelope carrying result (a JSON object; nil becomes {}).
func Success(sessionID string, result any, warnings ...Warning) Envelope {
	if result == nil {
		result = emptyResult
	}
	return Envelope{sessionID: sessionID, result: result, warnings: warnings, enc: new(encoding)}
}

// Failure is a failed envelope. A nil err is a programmer error and becomes internal
// unhandled-exception rather than an invalid envelope.
func Failure(sessionID string, err *Error, warnings ...Warning) Envelope {
	if err == nil {
		err = Errorf(CodeUnhandledException, "failure without an error")
	}
	return Envelope{sessionID: sessionID, err: err, warnings: warnings, enc: new(encoding)}
}

// SessionID is the session the call belonged to.
func (e Envelope) SessionID() string { return e.sessionID }

// OK reports success.
func (e Envelope) OK() bool { return e.err == nil }

// Result is the success payload (nil on failure). On a decoded envelope it is a json.RawMessage.
func (e Envelope) Result() any { return e.result }

// Err is the failure (nil on success).
func (e Envelope) Err() *Error { return e.err }

// Warnings are the non-fatal conditions; they may accompany a failure too.
func (e Envelope) Warnings() []Warning { return e.warnings }

// WithSession returns a copy bound to another session id.
func (e Envelope) WithSession(id string) Envelope {
	e.sessionID = id
	e.enc = new(encoding)
	return e
}

// DecodeResult unmarshals the success payload into v.
func (e Envelope) DecodeResult(v any) error {
	if e.err != nil {
		return errors.New("contract: envelope is a failure")
	}
	raw, ok := e.result.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(e.result); err != nil {
			return err
		}
	}
	return json.Unmarshal(raw, v)
}

// wire is the JSON form. Field order follows the contract's example.
type wire struct {
	SessionID string    `json:"sessionId"`
	OK        bool      `json:"ok"`
	Result    any       `json:"result,omitempty"`
	Warnings  []Warning `json:"warnings,omitempty"`
	Error     *Error    `json:"error,omitempty"`
}

// MarshalJSON writes compact camelCase JSON with nulls omitted at the envelope level. An
// envelope built by Success or Failure is encoded once: its result must not change after the
// first MarshalJSON, and the bytes returned are shared (read them, never write into them).
func (e Envelope) MarshalJSON() ([]byte, error) {
	if e.sessionID == "" {
		return nil, errors.New("contract: envelope without sessionId")
	}
	if e.enc == nil {
		return e.marshal()
	}
	e.enc.once.Do(func() {
		b, err := e.marshal()
		// Full capacity: a caller's append copies instead of writing into the shared bytes.
		e.enc.b, e.enc.err = b[:len(b):len(b)], err
	})
	return e.enc.b, e.enc.err
}

func (e Envelope) marshal() ([]byte, error) {
	return json.Marshal(wire{SessionID: e.sessionID, OK: e.err == nil, Result: e.result, Warnings: e.warnings, Error: e.err})
}

// UnmarshalJSON decodes an envelope and enforces the contract's invariants.
func (e *Envelope) UnmarshalJSON(b []byte) error {
	var w struct {
		SessionID string          `json:"sessionId"`
		OK        *bool           `json:"ok"`
		Result    json.RawMessage `json:"result"`
		Warnings  []Warning       `json:"warnings"`
		Error     *Error          `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return fmt.Errorf("contract: %w", err)
	}
	hasResult := len(w.Result) > 0 && !bytes.Equal(w.Result, []byte("null"))
	switch {
	case w.SessionID == "":
		return errors.New("contract: envelope without sessionId")
	case w.OK == nil:
		return errors.New("contract: envelope without ok")
	case *w.OK && (w.Error != nil || !hasResult):
		return errors.New("contract: ok envelope must carry result and no error")
	case !*w.OK && (w.Error == nil || hasResult):
		return errors.New("contract: failed envelope must carry error and no result")
	}
	*e = Envelope{sessionID: w.SessionID, warnings: w.Warnings, err: w.Error}
	if *w.OK {
		e.result = w.Result
	}
	return nil
}
