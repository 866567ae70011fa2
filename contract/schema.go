package contract

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaJSON is agent-tool-result.schema.json (JSON Schema draft 2020-12), embedded in the binary.
//
//go:embed agent-tool-result.schema.json
var SchemaJSON []byte

// SchemaID is the schema's $id.
const SchemaID = "https://github.com/mcec/mcec/contract/agent-tool-result.schema.json"

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(SchemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(SchemaID, doc); err != nil {
		return nil, err
	}
	return c.Compile(SchemaID)
})

// Validate checks one serialized envelope against the schema.
func Validate(envelopeJSON []byte) error {
	sch, err := compiled()
	if err != nil {
		return fmt.Errorf("contract: compile schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(envelopeJSON))
	if err != nil {
		return fmt.Errorf("contract: envelope is not JSON: %w", err)
	}
	return sch.Validate(inst)
}

// ValidateEnvelope marshals env and validates it.
func ValidateEnvelope(env Envelope) error {
	b, err := json.Marshal(env)
	if err != nil {
		return err
	}
	return Validate(b)
}
