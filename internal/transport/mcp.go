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
)

// ServerInfo names the implementation in MCP initialize.
type ServerInfo struct {
	Name         string
	Version      string
	Instructions string // the agent guidance returned by initialize
	Logger       *slog.Logger
	// Transport names the transport this server is served on ("stdio", "http") in the audit log.
	Transport string
}

// NewMCPServer builds an MCP server whose tools are the dispatcher's catalog. Every tools/call
// answers with the envelope as one text block, isError = !ok, and a capture's PNG as an extra
// image block. An unknown tool stays a JSON-RPC error: it is a protocol fault, not a tool outcome.
func NewMCPServer(d *dispatch.Dispatcher, info ServerInfo) *mcp.Server {
	log := info.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: info.Name, Version: info.Version},
		&mcp.ServerOptions{Instructions: info.Instructions, Logger: log})
	srv.AddReceivingMiddleware(preEncode)
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
		name := t.Name
		srv.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return callTool(dispatch.WithTransport(ctx, info.Transport), d, name, req.Params.Arguments)
		})
	}
	return srv
}

func callTool(ctx context.Context, d *dispatch.Dispatcher, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	out, err := d.Call(ctx, name, args)
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
	res := &mcp.CallToolResult{IsError: !out.Envelope.OK(), Content: []mcp.Content{&mcp.TextContent{Text: string(body)}}}
	if out.Image != nil {
		res.Content = append(res.Content, &mcp.ImageContent{Data: out.Image.Data, MIMEType: out.Image.MIMEType})
	}
	return res, nil
}
