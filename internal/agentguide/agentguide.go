// Package agentguide embeds the agent guidance that MCP initialize returns as instructions and
// `mcec agent-guide` prints.
package agentguide

import _ "embed"

// Text is AgentInstructions.md.
//
//go:embed AgentInstructions.md
var Text string
