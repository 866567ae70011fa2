package catalog

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// unknownArgument names the first property of args (nested objects included) that the schema
// does not declare, with the names the object does take — an agent that guessed "value" for
// invoke's "text" learns the right name in the same answer. "" when every property is known.
func unknownArgument(root *jsonschema.Schema, args map[string]any) string {
	return unknownIn(root, root, args, "")
}

func unknownIn(root, s *jsonschema.Schema, obj map[string]any, path string) string {
	s = deref(root, s)
	if s == nil || s.Properties == nil {
		return ""
	}
	for _, key := range slices.Sorted(maps.Keys(obj)) {
		prop, ok := s.Properties[key]
		if !ok {
			where := "the tool"
			if path != "" {
				where = path
			}
			return fmt.Sprintf("unknown argument %q: %s takes %s", path+dot(path)+key, where, strings.Join(takes(s), ", "))
		}
		if inner, ok := obj[key].(map[string]any); ok {
			if d := unknownIn(root, prop, inner, path+dot(path)+key); d != "" {
				return d
			}
		}
	}
	return ""
}

func dot(path string) string {
	if path == "" {
		return ""
	}
	return "."
}

// takes lists the properties of s in the schema's own order, else sorted.
func takes(s *jsonschema.Schema) []string {
	if len(s.PropertyOrder) == len(s.Properties) {
		return s.PropertyOrder
	}
	return slices.Sorted(maps.Keys(s.Properties))
}

// deref follows a local "#/$defs/Name" reference (recursive types) and looks through a
// nullable pointer's anyOf/oneOf to the object schema.
func deref(root, s *jsonschema.Schema) *jsonschema.Schema {
	for range 4 {
		switch {
		case s == nil:
			return nil
		case s.Ref != "":
			name, ok := strings.CutPrefix(s.Ref, "#/$defs/")
			if !ok {
				return nil
			}
			s = root.Defs[name]
		case s.Properties == nil && len(s.AnyOf)+len(s.OneOf) > 0:
			for _, alt := range append(slices.Clone(s.AnyOf), s.OneOf...) {
				if d := deref(root, alt); d != nil && d.Properties != nil {
					return d
				}
			}
			return nil
		default:
			return s
		}
	}
	return nil
}
