package tools

import (
	"bytes"
	"encoding/json"
)

// observed is a session's last good observation: the tool's result (or a summary of it) with a
// "kind" field naming what it is. It is kept unserialized and only marshalled when a later failure
// reports it, so successful calls pay nothing for it.
type observed struct {
	kind string
	data any
}

func observation(kind string, data any) observed { return observed{kind: kind, data: data} }

// MarshalJSON writes data's object with "kind" first.
func (o observed) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(o.data)
	if err != nil {
		return nil, err
	}
	kind, _ := json.Marshal(o.kind)
	b = bytes.TrimSpace(b)
	if len(b) < 2 || b[0] != '{' {
		return json.Marshal(map[string]any{"kind": o.kind, "value": json.RawMessage(b)})
	}
	out := make([]byte, 0, len(b)+len(kind)+10)
	out = append(out, `{"kind":`...)
	out = append(out, kind...)
	if len(bytes.TrimSpace(b[1:len(b)-1])) > 0 {
		out = append(out, ',')
	}
	return append(out, b[1:]...), nil
}
