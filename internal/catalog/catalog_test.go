package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcec/mcec/contract"
)

type probeArgs struct {
	Window   string `json:"window,omitempty" jsonschema:"title substring"`
	MaxDepth *int   `json:"maxDepth,omitempty"`
	Region   *struct {
		X int `json:"x"`
	} `json:"region,omitempty"`
}

func probeTool() *Tool {
	return Define(Spec[probeArgs, probeArgs]{
		Name: "probe", Description: "test tool",
		Run: func(ctx context.Context, call *Call, in *probeArgs, resp *Response) (*probeArgs, error) {
			return in, nil
		},
	})
}

func TestDefineDecodesAndRejects(t *testing.T) {
	tool := probeTool()
	tests := []struct {
		args    string
		wantErr string // substring of the detail; "" = success
	}{
		{`{}`, ""},
		{``, ""},
		{`{"window":"Factory","maxDepth":3}`, ""},
		{`{"window":5}`, "window"},
		{`{"maxDepth":"deep"}`, "maxDepth"},
		{`{"maxdepth":3}`, "maxdepth"},
		{`[1,2]`, "JSON object"},
		{`{"region":{"x":"a"}}`, "region"},
		{`{"region":{"y":1}}`, "y"},
	}
	for _, tt := range tests {
		resp, err := tool.Handler(context.Background(), &Call{}, json.RawMessage(tt.args))
		if tt.wantErr == "" {
			if err != nil || resp == nil {
				t.Errorf("%s: unexpected error %v", tt.args, err)
			}
			continue
		}
		var ce *contract.Error
		if !errors.As(err, &ce) || ce.Code != contract.CodeBadArguments {
			t.Errorf("%s: want bad-arguments, got %v", tt.args, err)
			continue
		}
		if !strings.Contains(ce.Detail, tt.wantErr) {
			t.Errorf("%s: detail %q does not name %q", tt.args, ce.Detail, tt.wantErr)
		}
	}
}

func TestSchemaHasSessionIDAndNoExtras(t *testing.T) {
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Additional json.RawMessage            `json:"additionalProperties"`
	}
	if err := json.Unmarshal(probeTool().InputSchema, &s); err != nil {
		t.Fatal(err)
	}
	if s.Type != "object" || s.Properties["sessionId"] == nil || s.Properties["window"] == nil || len(s.Additional) == 0 {
		t.Fatalf("schema %s", probeTool().InputSchema)
	}
}

func TestAddRejectsBadDescriptors(t *testing.T) {
	for _, tool := range []*Tool{
		{Name: "bad name!", Description: "d", InputSchema: []byte(`{}`), Handler: probeTool().Handler},
		{Name: "nohandler", Description: "d", InputSchema: []byte(`{}`)},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Add(%q) did not panic", tool.Name)
				}
			}()
			New().Add(tool)
		}()
	}
	c := New()
	c.Add(probeTool())
	if _, ok := c.Lookup("probe"); !ok || len(c.Tools()) != 1 {
		t.Fatal("lookup failed")
	}
}

type probeResult struct {
	Count int      `json:"count"`
	Names []string `json:"names,omitempty"`
}

// The result schema comes from Out, and CheckOutput holds envelopes to it.
func TestResultSchemaFromOut(t *testing.T) {
	tool := Define(Spec[struct{}, probeResult]{Name: "counted", Description: "d",
		Run: func(ctx context.Context, call *Call, in *struct{}, resp *Response) (*probeResult, error) {
			resp.Warnings = []contract.Warning{contract.Warn(contract.WarnTreeTruncated, "cut")}
			return &probeResult{Count: 2}, nil
		}})
	if !strings.Contains(string(tool.ResultSchema), `"count"`) {
		t.Errorf("result schema %s lacks count", tool.ResultSchema)
	}
	resp, err := tool.Handler(context.Background(), &Call{}, nil)
	if r, ok := resp.Result.(probeResult); err != nil || !ok || r.Count != 2 || len(resp.Warnings) != 1 {
		t.Fatalf("handler: %+v, %v", resp, err)
	}
	own, err := contract.Success("s1", resp.Result, resp.Warnings...).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	failed, err := contract.Failure("s1", contract.Errorf(contract.CodeBadArguments, "no")).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, good := range [][]byte{own, failed} {
		if err := tool.CheckOutput(good); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
	for _, bad := range []string{`{"count":"two"}`, `{"names":["a"]}`, `{"count":1,"extra":true}`, `[1]`} {
		env := `{"sessionId":"s1","ok":true,"result":` + bad + `}`
		if err := tool.CheckOutput([]byte(env)); err == nil {
			t.Errorf("%s passed the output schema", env)
		}
	}
	for _, bad := range []string{
		`{"sessionId":"s1","ok":true}`,                                                      // no result
		`{"sessionId":"s1","ok":false,"result":{"count":1}}`,                                // no error
		`{"sessionId":"s1","ok":false,"error":{"code":"x","category":"nope","detail":"d"}}`, // not a category
		`{"sessionId":"s1","ok":true,"result":{"count":1},"error":{"code":"x","category":"internal","detail":"d"}}`,
	} {
		if err := tool.CheckOutput([]byte(bad)); err == nil {
			t.Errorf("%s passed the output schema", bad)
		}
	}
}
