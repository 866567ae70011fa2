package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
)

// Reference renders docs/tools.md from the catalog, so the reference cannot drift from the code:
// a test compares the committed file with this output.
func Reference(c *catalog.Catalog) string {
	var b strings.Builder
	b.WriteString("# Tools\n\n<!-- Generated from the tool catalog by `go test ./internal/tools -run TestReference -update`. Do not edit. -->\n\n")
	b.WriteString("Every tool takes an optional `sessionId` and answers with the envelope of [contract.md](contract.md). ")
	b.WriteString("Window targets (`window`, `handle`, `process`, `pid`, `className`, `foreground`) must match exactly one window: ")
	b.WriteString("none fails `no-target`/`window-not-found` (`stale-element`/`window-closed` for a handle that no longer exists), ")
	b.WriteString("several fail `ambiguous-selector`/`selector-matched-N` with the candidates in the detail. ")
	b.WriteString("Any tool the operator has not enabled fails `internal`/`agent-commands-disabled` (the agent surface is off) ")
	b.WriteString("or `internal`/`command-disabled` (this tool is switched off or gated) without running ([safety.md](safety.md)).\n\n")
	for _, t := range c.Tools() {
		fmt.Fprintf(&b, "- [`%s`](#%s) — %s\n", t.Name, t.Name, t.Title)
	}
	for _, t := range c.Tools() {
		fmt.Fprintf(&b, "\n## `%s`\n\n%s\n\n", t.Name, t.Description)
		fmt.Fprintf(&b, "Annotations: %s.\n\n", annotationText(t.Annotations))
		b.WriteString("| argument | type | description |\n|---|---|---|\n")
		for _, p := range orderedProperties(t.InputSchema) {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", p.name, p.typ, p.desc)
		}
		if len(t.ResultSchema) > 0 {
			b.WriteString("\n| result field | type |\n|---|---|\n")
			for _, p := range orderedProperties(t.ResultSchema) {
				fmt.Fprintf(&b, "| `%s` | %s |\n", p.name, p.typ)
			}
		}
		if len(t.Errors) > 0 {
			var codes []string
			for _, code := range t.Errors {
				cat, _ := contract.CategoryOf(code)
				codes = append(codes, fmt.Sprintf("`%s` (%s)", code, cat))
			}
			fmt.Fprintf(&b, "\nErrors: %s.\n", strings.Join(codes, ", "))
		}
		if len(t.Warnings) > 0 {
			var codes []string
			for _, code := range t.Warnings {
				codes = append(codes, "`"+string(code)+"`")
			}
			fmt.Fprintf(&b, "\nWarnings: %s.\n", strings.Join(codes, ", "))
		}
	}
	return b.String()
}

func annotationText(a catalog.Annotations) string {
	var parts []string
	if a.ReadOnly {
		parts = append(parts, "read-only")
	} else {
		parts = append(parts, "changes state")
	}
	if a.Destructive {
		parts = append(parts, "destructive")
	}
	if a.Idempotent {
		parts = append(parts, "idempotent")
	}
	if a.OpenWorld {
		parts = append(parts, "reaches the desktop's applications")
	}
	return strings.Join(parts, ", ")
}

type property struct{ name, typ, desc string }

// orderedProperties lists a schema's top-level properties in document order.
func orderedProperties(schema json.RawMessage) []property {
	var s struct {
		Properties json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if _, err := dec.Token(); err != nil { // {
		return nil
	}
	var out []property
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return out
		}
		var p struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
			Items       *struct {
				Type any `json:"type"`
			} `json:"items"`
		}
		_ = json.Unmarshal(raw, &p) // a boolean schema (true: any value) leaves p empty: "any"
		out = append(out, property{name: tok.(string), typ: typeText(p.Type, p.Items), desc: p.Description})
	}
	return out
}

func typeText(t any, items *struct {
	Type any `json:"type"`
}) string {
	var names []string
	switch v := t.(type) {
	case string:
		names = []string{v}
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok && s != "null" {
				names = append(names, s)
			}
		}
	}
	out := strings.Join(names, " or ")
	if out == "array" && items != nil {
		if s := typeText(items.Type, nil); s != "" {
			out = "array of " + s
		}
	}
	if out == "" {
		return "any"
	}
	return out
}
