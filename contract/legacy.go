package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Legacy is the thin result object of the reference's CommandResult, {success, command, error,
// data}, which the line-protocol server still answers agent commands with, extended with the
// envelope's errorCode, errorCategory and warnings. ToLegacy and FromLegacy are the one mapping
// between it and the envelope (docs/contract.md, "Migrating from the legacy result object").
type Legacy struct {
	Success bool   `json:"success"`
	Command string `json:"command"`
	// Error is the failure's detail; null on success.
	Error *string `json:"error"`
	// Data is the result on success, the failure's partialResult (or null) on failure.
	Data          any       `json:"data"`
	ErrorCode     Code      `json:"errorCode,omitempty"`
	ErrorCategory string    `json:"errorCategory,omitempty"`
	Warnings      []Warning `json:"warnings,omitempty"`
}

// ToLegacy maps an envelope onto the legacy object for command cmd. What the legacy shape has no
// room for is dropped: sessionId and error.lastObservation.
func ToLegacy(cmd string, env Envelope) Legacy {
	l := Legacy{Success: env.OK(), Command: cmd, Warnings: env.Warnings()}
	if env.OK() {
		l.Data = env.Result()
		return l
	}
	e := env.Err()
	detail := e.Detail
	l.Error = &detail
	l.ErrorCode = e.Code
	l.ErrorCategory = e.Category.String()
	l.Data = e.PartialResult
	return l
}

// FromLegacy maps a legacy object back onto an envelope in session sessionID. A success whose
// data is not an object (the reference sometimes answered a bare string or number) becomes
// result {"value": data}; null data becomes {}. A failure without errorCode (the reference never
// sent one) becomes internal / unhandled-exception with its error text; a code without a
// category takes the code's category. An unknown category is an error: the set is closed.
func FromLegacy(l Legacy, sessionID string) (Envelope, error) {
	if sessionID == "" {
		return Envelope{}, errors.New("contract: FromLegacy needs a session id")
	}
	if l.Success {
		if l.Error != nil || l.ErrorCode != "" || l.ErrorCategory != "" {
			return Envelope{}, errors.New("contract: legacy success carries an error")
		}
		result, err := legacyObject(l.Data)
		if err != nil {
			return Envelope{}, err
		}
		if result == nil {
			result = emptyResult
		} else if _, ok := result.(map[string]any); !ok {
			result = map[string]any{"value": result}
		}
		return Success(sessionID, result, l.Warnings...), nil
	}
	code := l.ErrorCode
	if code == "" {
		code = CodeUnhandledException
	}
	var category Category
	if l.ErrorCategory != "" {
		c, ok := ParseCategory(l.ErrorCategory)
		if !ok {
			return Envelope{}, fmt.Errorf("contract: unknown legacy errorCategory %q", l.ErrorCategory)
		}
		category = c
	} else if c, ok := CategoryOf(code); ok {
		category = c
	} else {
		category = Internal
	}
	detail := "command failed"
	if l.Error != nil && *l.Error != "" {
		detail = *l.Error
	}
	e := &Error{Code: code, Category: category, Detail: detail}
	partial, err := legacyObject(l.Data)
	if err != nil {
		return Envelope{}, err
	}
	if m, ok := partial.(map[string]any); ok {
		e.PartialResult = m
	} else if partial != nil {
		e.PartialResult = map[string]any{"value": partial}
	}
	return Failure(sessionID, e, l.Warnings...), nil
}

// legacyObject normalizes data to plain JSON values (json.RawMessage and structs included), so
// FromLegacy can tell objects from scalars.
func legacyObject(data any) (any, error) {
	if data == nil {
		return nil, nil
	}
	raw, ok := data.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(data); err != nil {
			return nil, fmt.Errorf("contract: legacy data: %w", err)
		}
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("contract: legacy data: %w", err)
	}
	return v, nil
}
