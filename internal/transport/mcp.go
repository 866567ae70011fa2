// Package transport carries tool calls to the dispatcher: MCP over stdio (with framing that
// survives malformed lines), MCP streamable HTTP, and the plain HTTP façade. Transports know the
// wire; the dispatcher knows tools; neither knows the other's business.
package transport

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/progress"
)

// ServerInfo names the implementation in MCP initialize.
type ServerInfo struct {
	Name         string
	Version      string
	Instructions string // the agent guidance returned by initialize
	Logger       *slog.Logger
	// Transport names the transport this server is served on ("stdio", "http") in the audit log.
	Transport string
	// ConsoleURL is the operator console's page, without any credential ("" or nil: no console);
	// a consent question points the client's human there (elicit.go).
	ConsoleURL func() string
}

// NewMCPServer builds an MCP server whose tools are the dispatcher's catalog. Every tools/call
// answers with the envelope as one text block, the same envelope as structuredContent (each
// tool's outputSchema describes it), isError = !ok, and a capture's PNG as an extra image block
// (or a resource_link to it). The artifacts of the sessions the client called in are its
// resources (resources.go); request-command-access may ask the client's human (elicit.go). An
// unknown tool stays a JSON-RPC error: it is a protocol fault, not a tool outcome.
func NewMCPServer(d *dispatch.Dispatcher, info ServerInfo) *mcp.Server {
	log := info.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: info.Name, Version: info.Version},
		&mcp.ServerOptions{Instructions: info.Instructions, Logger: log})
	srv.AddReceivingMiddleware(preEncode)
	artifacts := &artifactResources{}
	artifacts.install(srv)
	asks := &clientAsks{consoleURL: info.ConsoleURL}
	for _, t := range d.Catalog().Tools() {
		readOnly := t.Annotations.ReadOnly
		destructive := t.Annotations.Destructive
		openWorld := t.Annotations.OpenWorld
		tool := &mcp.Tool{
			Name: t.Name, Title: t.Title, Description: t.Description,
			InputSchema: json.RawMessage(t.InputSchema),
			Annotations: &mcp.ToolAnnotations{
				Title: t.Title, ReadOnlyHint: readOnly, IdempotentHint: t.Annotations.Idempotent,
				DestructiveHint: &destructive, OpenWorldHint: &openWorld,
			},
		}
		if len(t.OutputSchema) > 0 {
			tool.OutputSchema = json.RawMessage(t.OutputSchema)
		}
		name := t.Name
		srv.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ctx, unbind := bindToRequest(ctx, req.Extra)
			defer unbind()
			return asks.call(ctx, req, func(ctx context.Context) (*mcp.CallToolResult, error) {
				return callTool(withProgress(dispatch.WithTransport(ctx, info.Transport), req), d, artifacts, name, req.Params.Arguments)
			})
		})
	}
	return srv
}

// withProgress sends the call's progress (internal/progress) as notifications/progress when
// the client asked for it with a progress token: seconds elapsed as progress, the call's
// budget in seconds as total, and what it waits for and last saw as the message.
func withProgress(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	tok := req.Params.GetProgressToken()
	if tok == nil || req.Session == nil {
		return ctx
	}
	return progress.WithReporter(ctx, func(u progress.Update) {
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok,
			Progress: u.Elapsed.Seconds(), Total: u.Budget.Seconds(), Message: u.Message})
	})
}

func callTool(ctx context.Context, d *dispatch.Dispatcher, artifacts *artifactResources, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	out, err := d.Call(ctx, name, args)
	if err == nil {
		artifacts.note(out.Session)
	}
	if errors.Is(err, dispatch.ErrUnknownTool) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	if err != nil {
		return nil, err
	}
	// MarshalJSON directly: json.Marshal would re-scan (compact) its already compact output.
	body, err := out.Envelope.MarshalJSON()
	if err != nil {
		return nil, err
	}
	res := &mcp.CallToolResult{IsError: !out.Envelope.OK(), Content: []mcp.Content{&mcp.TextContent{Text: string(body)}},
		StructuredContent: json.RawMessage(body)}
	if out.Image != nil {
		res.Content = append(res.Content, &mcp.ImageContent{Data: out.Image.Data, MIMEType: out.Image.MIMEType})
	}
	if l := out.Link; l != nil {
		res.Content = append(res.Content, &mcp.ResourceLink{URI: l.URI, Name: l.Name, MIMEType: l.MIMEType, Size: &l.Size})
	}
	return res, nil
}
