// Package catalog holds mcec's tool descriptors: one per tool, with its name, description, input
// and result schemas (derived from the tool's Go argument and result types by Define), MCP
// annotations and handler. Transports and the dispatcher read the catalog; tools fill it. The
// catalog imports no tool.
package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/session"
)

// Annotations are the MCP tool annotations; they must match what the tool does.
type Annotations struct {
	ReadOnly    bool // the tool does not change the desktop
	Destructive bool // the tool may change or destroy state irreversibly
	Idempotent  bool // repeating the call with the same arguments has no further effect
	OpenWorld   bool // the tool reaches beyond mcec (the desktop's applications)
}

// Call is one invocation as a handler sees it.
type Call struct {
	// Session is the session the call runs in. It is nil for tools that manage sessions
	// themselves (Tool.ManagesSessions), which read RequestedSessionID instead.
	Session *session.Session
	// RequestedSessionID is the sessionId argument as given ("" when absent).
	RequestedSessionID string
}

// Image is a PNG a tool returns for transports that can carry images (MCP image blocks).
type Image struct {
	Data     []byte
	MIMEType string
}

// Link is an artifact a tool answered with by reference: MCP sends it as a resource_link block
// the client reads with resources/read.
type Link struct {
	URI      string
	Name     string
	MIMEType string
	Size     int64
}

// Response is a handler's outcome. On success Result is the tool's result object. Warnings ride
// on failures too: a handler may return a non-nil Response together with an error. A tool built
// with Define fills one given to it (warnings, image, observation, session) and returns its
// typed result, which Define puts in Result.
type Response struct {
	Result   any
	Warnings []contract.Warning
	// Image is sent as an extra MCP image block next to the envelope.
	Image *Image
	// Link is sent as an extra MCP resource_link block next to the envelope.
	Link *Link
	// Observation, when set, becomes the session's last good observation (never base64).
	Observation any
	// Session rebinds the envelope to another session (session-start answers in the new one).
	Session *session.Session
}

// Handler runs a tool with raw arguments (sessionId already removed). It returns a
// *contract.Error (possibly wrapped) for tool failures; any other error is internal.
type Handler func(ctx context.Context, call *Call, args json.RawMessage) (*Response, error)

// Tool is one descriptor.
type Tool struct {
	Name        string
	Title       string
	Description string
	// InputSchema is the JSON Schema of the arguments object, sessionId included.
	InputSchema json.RawMessage
	Annotations Annotations
	Handler     Handler
	// ManagesSessions tools (session-start/-status/-end) resolve sessionId themselves, so that
	// ending an ended session can be idempotent instead of failing unknown-session up front.
	ManagesSessions bool
	// ResultSchema is the JSON Schema of the result object, derived from Define's Out.
	ResultSchema json.RawMessage
	// OutputSchema is the MCP outputSchema: the envelope with its result typed (output.go).
	OutputSchema json.RawMessage
	// Errors and Warnings are the codes this tool can produce beyond the common ones (for docs
	// and the guidance coverage test).
	Errors   []contract.Code
	Warnings []contract.Code

	// decode checks and decodes arguments without running the tool (set by Define).
	decode func(args json.RawMessage) error
	// output is the output schema, resolved on first use by CheckOutput.
	output     *jsonschema.Resolved
	outputOnce sync.Once
	outputErr  error
}

// CheckOutput validates an envelope (its JSON, as the transports send it) against the tool's
// outputSchema, the result's schema included. Tests run it on every envelope they get
// (internal/daemon/daemontest, the tools' harness, the MCP clients' checks), so a result type,
// the schema tools/list advertises and what the tool really answers cannot part. It returns nil
// for tools not built with Define.
func (t *Tool) CheckOutput(envelope []byte) error {
	if len(t.OutputSchema) == 0 {
		return nil
	}
	t.outputOnce.Do(func() {
		var s jsonschema.Schema
		if t.outputErr = json.Unmarshal(t.OutputSchema, &s); t.outputErr == nil {
			t.output, t.outputErr = s.Resolve(nil)
		}
	})
	if t.outputErr != nil {
		return fmt.Errorf("catalog: resolve output schema of %s: %w", t.Name, t.outputErr)
	}
	var v any
	if err := json.Unmarshal(envelope, &v); err != nil {
		return err
	}
	if err := t.output.Validate(v); err != nil {
		return fmt.Errorf("%s envelope does not match its output schema: %w", t.Name, err)
	}
	return nil
}

// DecodeForTest runs only the argument check and decoding a Define'd tool's handler starts
// with, so fuzz tests can exercise every tool's parsing without a desktop. It returns nil for
// tools not built with Define.
func DecodeForTest(t *Tool, args json.RawMessage) error {
	if t.decode == nil {
		return nil
	}
	return t.decode(args)
}

// Catalog is an ordered set of tools. Build it once at start-up; it is read-only afterwards.
type Catalog struct {
	tools []*Tool
	index map[string]*Tool
}

var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// ValidName reports whether name follows MCP's tool name rule (what Add enforces).
func ValidName(name string) bool { return toolName.MatchString(name) }

// New returns an empty catalog.
func New() *Catalog { return &Catalog{index: map[string]*Tool{}} }

// Add registers a tool. A bad descriptor is a programmer error found at start-up, so Add panics.
func (c *Catalog) Add(t *Tool) {
	switch {
	case !ValidName(t.Name):
		panic(fmt.Sprintf("catalog: invalid tool name %q", t.Name))
	case c.index[t.Name] != nil:
		panic(fmt.Sprintf("catalog: duplicate tool %q", t.Name))
	case t.Handler == nil || len(t.InputSchema) == 0 || t.Description == "":
		panic(fmt.Sprintf("catalog: tool %q lacks handler, schema or description", t.Name))
	}
	c.tools = append(c.tools, t)
	c.index[t.Name] = t
}

// Lookup finds a tool by name.
func (c *Catalog) Lookup(name string) (*Tool, bool) {
	t, ok := c.index[name]
	return t, ok
}

// Tools returns the tools in registration order.
func (c *Catalog) Tools() []*Tool { return slices.Clone(c.tools) }

// Names returns the tools' names in registration order.
func (c *Catalog) Names() []string {
	names := make([]string, len(c.tools))
	for i, t := range c.tools {
		names[i] = t.Name
	}
	return names
}

// Spec describes a typed tool for Define: arguments In, result Out.
type Spec[In, Out any] struct {
	Name            string
	Title           string
	Description     string
	Annotations     Annotations
	ManagesSessions bool
	// ResultTypeSchemas stands in for types the result schema cannot be derived from (recursive
	// ones).
	ResultTypeSchemas map[reflect.Type]*jsonschema.Schema
	Errors            []contract.Code
	Warnings          []contract.Code
	// Run runs the tool. On success it returns the result; on failure an error (a
	// *contract.Error, possibly wrapped). Either way resp carries what rides beside the result:
	// warnings (on failures too), an image, an observation, a session to rebind to.
	Run func(ctx context.Context, call *Call, in *In, resp *Response) (*Out, error)
}

// Define builds a descriptor for a tool whose arguments decode into In and whose result is an
// Out. The input schema is derived from In's JSON and jsonschema struct tags (plus sessionId),
// the result schema from Out's, so schemas and code cannot drift. Arguments are checked against
// the schema, then decoded strictly: a wrong type or an unknown property fails invalid-argument
// bad-arguments with a detail naming the field.
func Define[In, Out any](spec Spec[In, Out]) *Tool {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("catalog: schema for %s: %v", spec.Name, err))
	}
	if schema.Properties == nil {
		schema.Properties = map[string]*jsonschema.Schema{}
	}
	applyNonEmpty(reflect.TypeFor[In](), schema)
	schema.Properties["sessionId"] = &jsonschema.Schema{Type: "string",
		Description: "Session id; omit for the shared default session."}
	if len(schema.PropertyOrder) > 0 {
		schema.PropertyOrder = append(schema.PropertyOrder, "sessionId")
	}
	schema.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("catalog: resolve schema for %s: %v", spec.Name, err))
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("catalog: marshal schema for %s: %v", spec.Name, err))
	}
	// A json.RawMessage in a result is any JSON (a nested tool's result), not the byte array
	// its Go type says.
	typeSchemas := map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[json.RawMessage](): {}}
	maps.Copy(typeSchemas, spec.ResultTypeSchemas)
	rs, err := jsonschema.ForType(reflect.TypeFor[Out](),
		&jsonschema.ForOptions{IgnoreInvalidTypes: true, TypeSchemas: typeSchemas})
	if err != nil {
		panic(fmt.Sprintf("catalog: result schema for %s: %v", spec.Name, err))
	}
	resultSchema, err := json.Marshal(rs)
	if err != nil {
		panic(fmt.Sprintf("catalog: marshal result schema for %s: %v", spec.Name, err))
	}
	output, err := outputSchema(resultSchema)
	if err != nil {
		panic(fmt.Sprintf("catalog: output schema for %s: %v", spec.Name, err))
	}
	return &Tool{
		Name: spec.Name, Title: spec.Title, Description: spec.Description,
		Annotations: spec.Annotations, InputSchema: raw, ManagesSessions: spec.ManagesSessions,
		ResultSchema: resultSchema, OutputSchema: output, Errors: spec.Errors, Warnings: spec.Warnings,
		decode: func(args json.RawMessage) error { return decodeArgs(resolved, args, new(In)) },
		Handler: func(ctx context.Context, call *Call, args json.RawMessage) (*Response, error) {
			in := new(In)
			if err := decodeArgs(resolved, args, in); err != nil {
				return nil, err
			}
			resp := &Response{}
			out, err := spec.Run(ctx, call, in, resp)
			if err != nil {
				return resp, err
			}
			if out != nil {
				resp.Result = *out
			}
			return resp, nil
		},
	}
}

// decodeArgs validates args (a JSON object without sessionId) against the tool's schema and
// decodes them strictly into dst.
func decodeArgs(resolved *jsonschema.Resolved, args json.RawMessage, dst any) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	var generic map[string]any
	if err := json.Unmarshal(args, &generic); err != nil {
		return contract.Errorf(contract.CodeBadArguments, "arguments must be a JSON object: %v", err)
	}
	if err := resolved.Validate(generic); err != nil {
		if detail := unknownArgument(resolved.Schema(), generic); detail != "" {
			return contract.Errorf(contract.CodeBadArguments, "%s", detail)
		}
		return contract.Errorf(contract.CodeBadArguments, "%s", schemaErrorDetail(err))
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return contract.Errorf(contract.CodeBadArguments, "argument %q must be %s, got JSON %s", typeErr.Field, typeErr.Type, typeErr.Value)
		}
		return contract.Errorf(contract.CodeBadArguments, "%v", err)
	}
	return nil
}

// schemaErrorDetail turns the validator's nested message into one line an agent can act on.
func schemaErrorDetail(err error) string {
	msg := err.Error()
	msg = strings.ReplaceAll(msg, "validating root: ", "")
	msg = strings.ReplaceAll(msg, "validating /properties/", "argument ")
	if strings.Contains(msg, "additionalProperties") || strings.Contains(msg, "unexpected additional properties") {
		return "unknown argument: " + msg
	}
	// The bounds applyNonEmpty sets: say what they mean.
	if arg, _, ok := strings.Cut(msg, ": minLength: "); ok && strings.Contains(msg, "fewer than 1") {
		return arg + " must not be empty: leave it out rather than give it empty"
	}
	if arg, rest, ok := strings.Cut(msg, ": minimum: "); ok && strings.HasSuffix(rest, "is less than 1.000000") {
		return arg + " must be 1 or more: leave it out rather than give it 0"
	}
	return msg
}

// applyNonEmpty gives the properties of fields tagged `mcec:"nonempty"` (embedded structs
// included) a lower bound: at least one character for strings, at least 1 for integers. Such a
// field given empty — `"window": ""`, `"handle": 0` — is a mistake, not "no selector": taken as
// absent, it would widen the target to the whole screen.
func applyNonEmpty(t reflect.Type, schema *jsonschema.Schema) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			applyNonEmpty(f.Type, schema)
			continue
		}
		if f.Tag.Get("mcec") != "nonempty" {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		p := schema.Properties[name]
		if name == "" || p == nil {
			continue
		}
		switch f.Type.Kind() {
		case reflect.String:
			p.MinLength = jsonschema.Ptr(1)
		case reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint32, reflect.Uint64, reflect.Uint:
			p.Minimum = jsonschema.Ptr(1.0)
		}
	}
}
