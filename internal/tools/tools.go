// Package tools implements mcec's agent tools, one file per tool. Each file defines the tool's
// typed arguments and result and a descriptor built with catalog.Define; Register adds them all.
package tools

import (
	"log/slog"

	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/session"
)

// Env is what tools need from the server.
type Env struct {
	Desktop  platform.Desktop
	Sessions *session.Store
	Log      *slog.Logger
}

// Register adds every tool to c, in the order tools/list shows them.
func Register(c *catalog.Catalog, env *Env) {
	for _, t := range []*catalog.Tool{
		windowsTool(env),
		queryTool(env),
		captureTool(env),
		displaysTool(env),
		sessionStartTool(env),
		sessionStatusTool(env),
		sessionEndTool(env),
	} {
		c.Add(t)
	}
}
