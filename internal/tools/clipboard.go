package tools

import (
	"context"
	"time"
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
	// Effect, after set, is the clipboard read back.
	Effect *Effect `json:"effect,omitempty"`
}

// Withheld implements catalog.Withholder: clipboard text, set or read, is withheld from the
// evidence where the operator withholds all typed and pasted text.
func (clipboardResult) Withheld() catalog.Withhold {
	return catalog.Withhold{Fields: []string{"text"}}
}

func clipboardTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[clipboardArgs, clipboardResult]{
		Name:  "clipboard",
		Title: "Read or set the clipboard",
		Description: "get returns the CLIPBOARD selection as text; set puts text on it (mcec owns the selection until " +
			"another application takes it). length counts characters.",
		Annotations: catalog.Annotations{Destructive: true, OpenWorld: true}, // set replaces what the user had copied
		Warnings:    []contract.Code{contract.WarnNoObservedEffect},
		Errors:      []contract.Code{contract.CodeActionUnknown, contract.CodeClipboardTextMissing},
		Run: func(ctx context.Context, call *catalog.Call, in *clipboardArgs, resp *catalog.Response) (*clipboardResult, error) {
			switch in.Action {
			case "", "get":
				text, err := env.Desktop.ClipboardGet(ctx)
				if err != nil {
					return nil, platformError(err)
				}
				return &clipboardResult{Text: &text, Length: utf8.RuneCountInString(text)}, nil
			case "set":
				if in.Text == nil {
					return nil, contract.Errorf(contract.CodeClipboardTextMissing, "set needs text")
				}
				if len(*in.Text) > maxClipboardText {
					return nil, contract.Errorf(contract.CodeBadArguments, "text exceeds %d bytes", maxClipboardText)
				}
				start := time.Now()
				if err := env.Desktop.ClipboardSet(ctx, *in.Text); err != nil {
					return nil, platformError(err)
				}
				res := clipboardResult{Set: true, Length: utf8.RuneCountInString(*in.Text)}
				// Read back through the selection, as a pasting application would.
				back, err := env.Desktop.ClipboardGet(ctx)
				if err != nil {
					return nil, platformError(err)
				}
				rb := &ClipboardReadBack{Length: utf8.RuneCountInString(back), Same: back == *in.Text}
				res.Effect = &Effect{Settled: true, SettledMs: time.Since(start).Milliseconds(), Clipboard: rb}
				if !rb.Same {
					resp.Warnings = append(resp.Warnings, contract.Warn(contract.WarnNoObservedEffect,
						"the clipboard reads back %d characters that differ from the %d set: another application took it", rb.Length, res.Length))
				}
				return &res, nil
			}
			return nil, contract.Errorf(contract.CodeActionUnknown, "action %q is not get or set", in.Action)
		},
	})
}
