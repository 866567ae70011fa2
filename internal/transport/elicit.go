package transport

import (
	"context"
	"crypto/rand"
	"sync"
	"sync/atomic"

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

// clientAsks holds the calls waiting for their client's answer. One per MCP server.
type clientAsks struct {
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
	if !canElicit(req.Session) {
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
	questions := make(chan consent.Question, 1)
	callCtx = consent.WithClientPrompter(callCtx, func(pctx context.Context, q consent.Question) (consent.Answer, bool) {
		select {
		case questions <- q:
		default:
			return "", false // one question a call
		}
		select {
		case a := <-w.answer:
			return a, a != ""
		case <-pctx.Done():
			return "", false
		}
	})
	go func() {
		defer close(w.done)
		w.res, w.err = run(callCtx)
		cancel(nil)
	}()
	select {
	case <-w.done:
		stop()
		return w.res, w.err
	case q := <-questions:
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
		go func() { // forget the call once it ended, answered or not
			<-w.done
			c.mu.Lock()
			delete(c.waiting, state)
			c.mu.Unlock()
		}()
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{consentInput: consentForm(q)}, RequestState: state}, nil
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

// consentForm is the question as an elicitation form: one choice, grant or deny.
func consentForm(q consent.Question) *mcp.ElicitParams {
	return &mcp.ElicitParams{Mode: "form", Message: consent.ClientMessage(q),
		RequestedSchema: map[string]any{"type": "object", "required": []string{"answer"},
			"properties": map[string]any{"answer": map[string]any{"type": "string", "enum": []string{"grant", "deny"},
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
	case res.Action == "accept" && res.Content["answer"] == "grant":
		return consent.Grant
	case res.Action == "accept" && res.Content["answer"] == "deny":
		return consent.Deny
	}
	return ""
}
