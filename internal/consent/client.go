package consent

import (
	"context"
	"strings"
)

// ClientPrompter asks the human at the agent's MCP client (MCP elicitation, form mode) to
// answer q. ok is false when there is no answer: the human dismissed the question, or the
// client failed. It returns when ctx ends at the latest.
type ClientPrompter func(ctx context.Context, q Question) (a Answer, ok bool)

type clientKey struct{}

// WithClientPrompter returns a context whose request-command-access call may ask its client's
// human through p, when the operator allowed it (Options.ViaClient).
func WithClientPrompter(ctx context.Context, p ClientPrompter) context.Context {
	return context.WithValue(ctx, clientKey{}, p)
}

func clientPrompterOf(ctx context.Context) ClientPrompter {
	p, _ := ctx.Value(clientKey{}).(ClientPrompter)
	return p
}

// ClientMessage is the question as the MCP client shows it, labelled for what it is: an
// answer given there comes through software the agent's host controls, so it weighs less than
// the operator's own consent.
func ClientMessage(q Question) string {
	return "mcec (desktop control) asks YOU, the person at this client, to enable: " + strings.Join(q.Commands, ", ") +
		". The agent's reason: \"" + q.Reason + "\". This is lower trust than the operator's own consent " +
		"(mcec consent, the on-screen dialog): answer only if you are that person and want this agent to use them " +
		"until mcec stops. A grant here covers only these commands."
}
