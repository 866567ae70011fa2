package tools

import (
	"context"
	"unicode/utf8"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
)

// maxClipboardText bounds what set accepts (the HTTP body limit is lower anyway).
const maxClipboardText = 16 << 20

type clipboardArgs struct {
	Action string  `json:"action,omitempty" jsonschema:"get (default) or set."`
	Text   *string `json:"text,omitempty" jsonschema:"With set: the text to put on the clipboard."`
}

type clipboardResult struct {
	Text   *string `json:"text,omitempty"`
	Set    bool    `json:"set,omitempty"`
	Length int     `json:"length"`
}

func clipboardTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[clipboardArgs]{
		Name:  "clipboard",
		Title: "Read or set the clipboard",
		Description: "get returns the CLIPBOARD selection as text; set puts text on it (mcec owns the selection until " +
			"another application takes it). length counts characters.",
		Annotations: catalog.Annotations{Destructive: true, OpenWorld: true}, // set replaces what the user had copied
		Result:      clipboardResult{},
		Errors:      []contract.Code{contract.CodeActionUnknown, contract.CodeClipboardTextMissing},
		Run: func(ctx context.Context, call *catalog.Call, in *clipboardArgs) (*catalog.Response, error) {
			switch in.Action {
			case "", "get":
				text, err := env.Desktop.ClipboardGet(ctx)
				if err != nil {
					return nil, platformError(err)
				}
				return &catalog.Response{Result: clipboardResult{Text: &text, Length: utf8.RuneCountInString(text)}}, nil
			case "set":
				if in.Text == nil {
					return nil, contract.Errorf(contract.CodeClipboardTextMissing, "set needs text")
				}
				if len(*in.Text) > maxClipboardText {
					return nil, contract.Errorf(contract.CodeBadArguments, "text exceeds %d bytes", maxClipboardText)
				}
				if err := env.Desktop.ClipboardSet(ctx, *in.Text); err != nil {
					return nil, platformError(err)
				}
				return &catalog.Response{Result: clipboardResult{Set: true, Length: utf8.RuneCountInString(*in.Text)}}, nil
			}
			return nil, contract.Errorf(contract.CodeActionUnknown, "action %q is not get or set", in.Action)
		},
	})
}
