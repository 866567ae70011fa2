// Package tools implements mcec's agent tools, one file per tool. Each file defines the tool's
// typed arguments and result and a descriptor built with catalog.Define; Register adds them all.
package tools

import (
	"log/slog"
	"os/exec"

	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/consent"
	"github.com/mcec/mcec/internal/estop"
	"github.com/mcec/mcec/internal/inputgate"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/provision"
	"github.com/mcec/mcec/internal/rawcmd"
	"github.com/mcec/mcec/internal/screencast"
	"github.com/mcec/mcec/internal/session"
)

// Env is what tools need from the server.
type Env struct {
	Desktop  platform.Desktop
	Sessions *session.Store
	Log      *slog.Logger
	// Gate serializes input synthesis (click, drag, focus, window, raw input commands).
	Gate *inputgate.Gate
	// StartProcess starts a program inside the desktop (its environment, its lifetime rules) and
	// returns a channel that yields its exit status once reaped.
	StartProcess func(cmd *exec.Cmd) (<-chan error, error)
	// Recordings is the server's one recording slot (record); Register makes one when nil.
	Recordings *screencast.Manager
	// Commands is the raw command engine (send_command); nil on servers without one.
	Commands *rawcmd.Engine
	// Access reports the live command access (safety.CommandAccess) for session-status; nil
	// on servers without gates.
	Access func() any
	// Provision starts isolated instances (provision-session, end-session); nil when the
	// operator has not allowed provisioning.
	Provision *provision.Manager
	// Consent asks the operator for gated commands (request-command-access); nil on servers
	// without a broker.
	Consent *consent.Broker
	// Stop is the operator's emergency stop: gestures run under its context (a trip aborts them)
	// and session-status reports it; nil on servers without one.
	Stop *estop.Latch
}

// Register adds every tool to c, in the order tools/list shows them.
func Register(c *catalog.Catalog, env *Env) {
	for _, t := range []*catalog.Tool{
		windowsTool(env),
		queryTool(env),
		findTool(env),
		waitForTool(env),
		captureTool(env),
		recordTool(env),
		getTextTool(env),
		displaysTool(env),
		invokeTool(env),
		clickTool(env),
		dragTool(env),
		focusTool(env),
		windowTool(env),
		launchTool(env),
		clipboardTool(env),
		sendCommandTool(env),
		requestAccessTool(env),
		sessionStartTool(env),
		sessionStatusTool(env),
		sessionEndTool(env),
		provisionSessionTool(env),
		endSessionTool(env),
	} {
		c.Add(t)
	}
}
