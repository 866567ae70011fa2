package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcec/mcec/contract"
)

type innerArgs struct {
	Name string `json:"name,omitempty"`
	Role string `json:"role,omitempty"`
}

type outerArgs struct {
	Element *innerArgs `json:"element,omitempty"`
	Text    *string    `json:"text,omitempty"`
}

func TestUnknownArgumentNamesWhatTheToolTakes(t *testing.T) {
	tool := Define(Spec[outerArgs, struct{}]{Name: "probe", Description: "d",
		Run: func(context.Context, *Call, *outerArgs, *Response) (*struct{}, error) { return nil, nil }})
	for _, tc := range []struct{ args, want string }{
		{`{"value":"5"}`, `unknown argument "value": the tool takes element, text, sessionId`},
		{`{"element":{"nam":"x"}}`, `unknown argument "element.nam": element takes name, role`},
	} {
		_, err := tool.Handler(context.Background(), &Call{}, json.RawMessage(tc.args))
		var ce *contract.Error
		if !errors.As(err, &ce) || ce.Code != contract.CodeBadArguments {
			t.Fatalf("%s: err = %v, want bad-arguments", tc.args, err)
		}
		if !strings.Contains(ce.Detail, tc.want) {
			t.Errorf("%s: detail %q, want it to contain %q", tc.args, ce.Detail, tc.want)
		}
	}
}
