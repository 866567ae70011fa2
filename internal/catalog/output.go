package catalog

import (
	"encoding/json"
	"fmt"

	"github.com/mcec/mcec/contract"
)

// outputSchema is a tool's MCP outputSchema: the contract's envelope with result typed by the
// tool's result schema (resultSchema, JSON). It is the envelope a client validates
// structuredContent with, kept small because every tools/list carries one per tool:
//   - the envelope's own shape (sessionId, ok, result on success, error on failure, warnings),
//     the category's closed set and the code's pattern, as the contract's schema says;
//   - the result's properties, types and required fields, without their descriptions (they
//     are in the tool's description, docs/tools.md and the agent guide);
//   - an error's lastObservation and partialResult as plain objects: their inner rules
//     (never base64) are the server's to keep, checked by the contract's full schema in tests.
//
// Only draft-07 keywords are used and no $schema is named, so that the validators clients ship
// (the TypeScript SDK's Ajv in its draft-07 default, the Go SDK's) all take it.
func outputSchema(resultSchema json.RawMessage) (json.RawMessage, error) {
	var result any
	if err := json.Unmarshal(resultSchema, &result); err != nil {
		return nil, err
	}
	stripAnnotations(result)
	cats := make([]string, 0, len(contract.Categories()))
	for _, c := range contract.Categories() {
		cats = append(cats, c.String())
	}
	code := map[string]any{"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$"}
	closed := false
	env := map[string]any{
		"type":                 "object",
		"additionalProperties": closed,
		"required":             []string{"sessionId", "ok"},
		"properties": map[string]any{
			"sessionId": map[string]any{"type": "string", "minLength": 1},
			"ok":        map[string]any{"type": "boolean"},
			"result":    result,
			"warnings": map[string]any{"type": "array", "items": map[string]any{
				"type": "object", "additionalProperties": closed, "required": []string{"code", "detail"},
				"properties": map[string]any{"code": code, "detail": map[string]any{"type": "string"}},
			}},
			"error": map[string]any{
				"type": "object", "additionalProperties": closed, "required": []string{"code", "category", "detail"},
				"properties": map[string]any{
					"code":            code,
					"category":        map[string]any{"enum": cats},
					"detail":          map[string]any{"type": "string"},
					"lastObservation": map[string]any{"type": "object"},
					"partialResult":   map[string]any{"type": "object"},
				},
			},
		},
		"if":   map[string]any{"properties": map[string]any{"ok": map[string]any{"const": true}}},
		"then": map[string]any{"required": []string{"result"}, "not": map[string]any{"required": []string{"error"}}},
		"else": map[string]any{"required": []string{"error"}, "not": map[string]any{"required": []string{"result"}}},
	}
	b, err := json.Marshal(env)
	if err != nil {
		return nil, fmt.Errorf("catalog: marshal output schema: %w", err)
	}
	return b, nil
}

// stripAnnotations removes the annotations (description, title) from a JSON Schema decoded
// into generic values, sub-schemas included; property names are never touched.
func stripAnnotations(s any) {
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	delete(m, "description")
	delete(m, "title")
	for k, v := range m {
		switch k {
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
			if subs, ok := v.(map[string]any); ok {
				for _, sub := range subs {
					stripAnnotations(sub)
				}
			}
		case "items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
			"unevaluatedProperties", "unevaluatedItems", "additionalItems":
			stripAnnotations(v)
		case "anyOf", "allOf", "oneOf", "prefixItems":
			if list, ok := v.([]any); ok {
				for _, sub := range list {
					stripAnnotations(sub)
				}
			}
		}
	}
}
