package transport

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/internal/consent"
)

// The human at the agent's MCP client can answer request-command-access where the operator
// allowed it (consent.Options.ViaClient). MCP asks through elicitation, as a multi round-trip
// request (SEP-2322), which the Go SDK also serves to clients of earlier protocol versions by
// sending elicitation/create itself: the tool call answers "input required" with the question,
// and the client calls again with the answer. The consent broker waits inside one tool call,
// so the call keeps running between the two requests: the first one hands its question over
// and returns; the retry, naming it by requestState, delivers the answer and returns the call's
// envelope. A retry that never comes leaves the broker to time out (consent-timeout), as an
// operator who never answers does.

// consentInput is the key of the one input request a consent question makes.
const consentInput = "consent"

// Where a console runs and the client can open links (elicitation, URL mode), and the operator
// did not let the client answer, the question goes to the client as a link to the console
// instead: the client's human learns that the operator must answer and where, and nothing the
// client replies grants anything (consent.ConsolePointer). When the call ends, answered or not,
// the client is told the link's business is over (notifications/elicitation/complete).

// retryGrace is how long a call that asked keeps its outcome for the client's retry once it
// ended without it (the operator answered first, or the question timed out).
const retryGrace = 2 * time.Minute

// clientAsks holds the calls waiting for their client's answer. One per MCP server.
type clientAsks struct {
	// consoleURL is the operator console's page (no credential in it), "" when none runs.
	consoleURL func() string

	mu      sync.Mutex
	waiting map[string]*askedCall // by requestState
}

// askedCall is a tool call whose question went to the client.
type askedCall struct {
	answer chan consent.Answer // "" when the client gave none
	done   chan struct{}       // the call has returned res and err
	res    *mcp.CallToolResult
	err    error
	cancel context.CancelCauseFunc
}

// call runs one tool call through run, letting it ask the client when the client can show
// forms, and resumes a call that asked when req names it.
func (c *clientAsks) call(ctx context.Context, req *mcp.CallToolRequest, run func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	if state := req.Params.RequestState; state != "" {
		return c.resume(ctx, state, req.Params.InputResponses)
	}
	form := canElicit(req.Session)
	console := ""
	if c.consoleURL != nil && canOpenLinks(req.Session) {
		console = c.consoleURL()
	}
	if !form && console == "" {
		return run(ctx)
	}
	w := &askedCall{answer: make(chan consent.Answer, 1), done: make(chan struct{})}
	// The call may outlive this request (it waits for the retry), so it ends with the request
	// only until it has asked.
	callCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	w.cancel = cancel
	var asked atomic.Bool
	stop := context.AfterFunc(ctx, func() {
		if !asked.Load() {
			cancel(context.Canceled)
		}
	})
	questions := make(chan *mcp.ElicitParams, 1)
	ask := func(pctx context.Context, params *mcp.ElicitParams) (consent.Answer, bool) {
		select {
		case questions <- params:
		default:
			return "", false // one question a call
		}
		select {
		case a := <-w.answer:
			return a, a != ""
		case <-pctx.Done():
			return "", false
		}
	}
	if form {
		callCtx = consent.WithClientPrompter(callCtx, func(pctx context.Context, q consent.Question) (consent.Answer, bool) {
			return ask(pctx, consentForm(q))
		})
	}
	var linkID string
	if console != "" {
		linkID = rand.Text()
		callCtx = consent.WithConsolePointer(callCtx, func(pctx context.Context, q consent.Question) {
			_, _ = ask(pctx, consoleLink(q, console, linkID)) // whatever the client says grants nothing
		})
	}
	go func() {
		defer close(w.done)
		w.res, w.err = run(callCtx)
		cancel(nil)
	}()
	select {
	case <-w.done:
		stop()
		return w.res, w.err
	case params := <-questions:
		asked.Store(true)
		stop()
		if ctx.Err() != nil { // the client left before the question could go out
			cancel(context.Canceled)
			<-w.done
			return w.res, w.err
		}
		state := rand.Text()
		c.mu.Lock()
		if c.waiting == nil {
			c.waiting = map[string]*askedCall{}
		}
		c.waiting[state] = w
		c.mu.Unlock()
		go func() {
			<-w.done
			// The operator may answer before the client retries: the call's outcome waits for
			// the retry a while, then is forgotten.
			time.AfterFunc(retryGrace, func() {
				c.mu.Lock()
				delete(c.waiting, state)
				c.mu.Unlock()
			})
			if params.Mode == "url" {
				nctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = req.Session.NotifyElicitationComplete(nctx, &mcp.ElicitationCompleteParams{ElicitationID: params.ElicitationID})
			}
		}()
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{consentInput: params}, RequestState: state}, nil
	}
}

// resume delivers the client's answer to the call that asked, and returns its outcome.
func (c *clientAsks) resume(ctx context.Context, state string, responses mcp.InputResponseMap) (*mcp.CallToolResult, error) {
	c.mu.Lock()
	w := c.waiting[state]
	delete(c.waiting, state)
	c.mu.Unlock()
	if w == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: "requestState names no call waiting for input (it ended, timed out, or was answered)"}
	}
	w.answer <- answerOf(responses[consentInput])
	select {
	case <-w.done:
	case <-ctx.Done():
		w.cancel(context.Canceled)
		<-w.done
	}
	return w.res, w.err
}

// canElicit reports whether the client can show a form.
func canElicit(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return false
	}
	e := ip.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil // neither named: form, as the specification says
}

// canOpenLinks reports whether the client can show a link (elicitation, URL mode).
func canOpenLinks(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	ip := ss.InitializeParams()
	return ip != nil && ip.Capabilities != nil && ip.Capabilities.Elicitation != nil && ip.Capabilities.Elicitation.URL != nil
}

// consoleLink is the question as a link to the operator console, where the operator answers.
func consoleLink(q consent.Question, console, id string) *mcp.ElicitParams {
	return &mcp.ElicitParams{Mode: "url", Message: consent.PointerMessage(q), URL: console, ElicitationID: id}
}

// consentForm is the question as an elicitation form: one choice, a grant of one of the three
// scopes or a deny (never grant-any-later: a lower-trust answer opens no later request).
func consentForm(q consent.Question) *mcp.ElicitParams {
	return &mcp.ElicitParams{Mode: "form", Message: consent.ClientMessage(q),
		RequestedSchema: map[string]any{"type": "object", "required": []string{"answer"},
			"properties": map[string]any{"answer": map[string]any{"type": "string", "enum": []string{string(consent.GrantOnce), string(consent.GrantSession), string(consent.Grant), string(consent.Deny)},
				"title": "Enable these commands for this agent?"}}}}
}

// answerOf reads the client's answer: decline is a deny; a dismissed form is no answer (the
// operator may still answer).
func answerOf(r mcp.InputResponse) consent.Answer {
	res, ok := r.(*mcp.ElicitResult)
	if !ok {
		return ""
	}
	switch {
	case res.Action == "decline":
		return consent.Deny
	case res.Action == "accept":
		switch a := consent.Answer(fmt.Sprint(res.Content["answer"])); a {
		case consent.GrantOnce, consent.GrantSession, consent.Grant, consent.Deny:
			return a
		}
	}
	return ""
}
