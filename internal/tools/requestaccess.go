package tools

import (
	"context"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/consent"
)

type requestAccessArgs struct {
	Commands []string `json:"commands" jsonschema:"1 to 8 names to enable: tool names (launch) or raw command names as listed in commandAccess and mcec:cmds (keysym, a chord, a program entry)."`
	Reason   string   `json:"reason" jsonschema:"Why the task needs them, shown to the operator: at most 300 characters; control and bidi characters are replaced."`
}

type requestAccessResult struct {
	// Granted are the names the operator granted now.
	Granted []string `json:"granted"`
	// AlreadyEnabled were allowed before; nobody was asked about them.
	AlreadyEnabled []string `json:"alreadyEnabled"`
	// Scope is how far Granted reaches, as the operator chose: "once" (your next call that needs
	// each, in this session), "session" (this session, until it ends) or "process" (every
	// session, until the server exits). Grants live in the server's memory only.
	Scope string `json:"scope"`
	// AnsweredBy is who granted, when someone was asked: "operator", or "client" (the human at
	// the agent's MCP client, where the operator allowed that).
	AnsweredBy string `json:"answeredBy,omitempty"`
}

// ConsentAsker asks the operator to enable gated commands (consent.Broker).
type ConsentAsker interface {
	Request(ctx context.Context, names []string, reason, session string) (consent.Outcome, error)
}

func requestAccessTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[requestAccessArgs, requestAccessResult]{
		Name:  "request-command-access",
		Title: "Ask the operator for gated commands",
		Description: "Ask the operator to enable gated tools or raw commands (launch, raw input on an attached desktop) and wait " +
			"up to 120 s for the answer (where the operator allowed it, your MCP client may ask its human instead). While the question is open only read-only tools are served (others fail " +
			"consent-pending). The operator chooses how far a grant reaches, and scope says it: once (your next call " +
			"that needs it, in this session), this session, or this server process; nothing outlives the process. A deny is final " +
			"for the process (consent-denied): do not ask again.",
		Annotations: catalog.Annotations{OpenWorld: false},
		Errors: []contract.Code{contract.CodeBadArguments, contract.CodeCommandDisabled, contract.CodeConsentDenied,
			contract.CodeConsentTimeout, contract.CodeConsentUnavailable, contract.CodeConsentPending},
		Run: func(ctx context.Context, call *catalog.Call, in *requestAccessArgs, resp *catalog.Response) (*requestAccessResult, error) {
			if env.Consent == nil {
				return nil, contract.Errorf(contract.CodeConsentUnavailable, "this server has no way to ask the operator")
			}
			out, err := env.Consent.Request(ctx, in.Commands, in.Reason, call.Session.ID())
			if err != nil {
				return nil, err
			}
			scope := string(out.Scope)
			if scope == "" {
				scope = string(consent.ScopeProcess) // nothing granted: what was enabled already is
			}
			return &requestAccessResult{Granted: out.Granted, AlreadyEnabled: out.AlreadyEnabled, Scope: scope,
				AnsweredBy: out.AnsweredBy}, nil
		},
	})
}
