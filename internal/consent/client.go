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

// ConsolePointer points the human at the agent's MCP client to the operator console, where the
// operator answers the question (MCP elicitation, URL mode). It never answers: whatever the
// client replies, only an answer given in the console (or another operator prompter) counts.
type ConsolePointer func(ctx context.Context, q Question)

type pointerKey struct{}

// WithConsolePointer returns a context whose request-command-access call points its client's
// human to the operator console through p (the transport sets it when a console runs and the
// client can open links).
func WithConsolePointer(ctx context.Context, p ConsolePointer) context.Context {
	return context.WithValue(ctx, pointerKey{}, p)
}

func consolePointerOf(ctx context.Context) ConsolePointer {
	p, _ := ctx.Value(pointerKey{}).(ConsolePointer)
	return p
}

// PointerMessage is the question as the MCP client shows it beside the console's link: it
// says who answers, and that opening the link grants nothing.
func PointerMessage(q Question) string {
	return "mcec (desktop control) asks its operator to enable: " + strings.Join(q.Commands, ", ") +
		". The agent's reason: \"" + q.Reason + "\". The operator answers in mcec's console at this link " +
		"(it needs the operator's login: `mcec console-url` prints one). Opening it grants nothing."
}

// ClientMessage is the question as the MCP client shows it, labelled for what it is: an
// answer given there comes through software the agent's host controls, so it weighs less than
// the operator's own consent.
func ClientMessage(q Question) string {
	return "mcec (desktop control) asks YOU, the person at this client, to enable: " + strings.Join(q.Commands, ", ") +
		". The agent's reason: \"" + q.Reason + "\". This is lower trust than the operator's own consent " +
		"(mcec consent, the on-screen dialog): answer only if you are that person and want this agent to use them: " +
		"grant-once for its next call that needs them, grant-session until its session ends, grant until mcec stops. " +
		"A grant here covers only these commands."
}
