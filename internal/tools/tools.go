// Package tools implements mcec's agent tools, one file per tool. Each file defines the tool's
// typed arguments and result and a descriptor built with catalog.Define; Register adds them all.
package tools

import (
	"context"
	"log/slog"
	"os/exec"

	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/estop"
	"github.com/mcec/mcec/internal/inputgate"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/takeover"
)

// Env is what tools need from the server. Every dependency is a small interface declared
// beside the tool that uses it (or here, for the gesture path), so a tool depends on what it
// calls and a test supplies only that; internal/daemon passes its concrete parts. A nil field
// means the server has no such part (the tool answers accordingly).
type Env struct {
	Desktop  Desktop
	Sessions SessionStore
	Log      *slog.Logger
	// Gate serializes input synthesis (click, drag, focus, window, raw input commands).
	Gate InputGate
	// StartProcess starts a program inside the desktop (its environment, its lifetime rules) and
	// returns a channel that yields its exit status once reaped.
	StartProcess func(cmd *exec.Cmd) (<-chan error, error)
	// Recordings is the server's one recording slot (record); Register makes one when nil.
	Recordings Recordings
	// Commands is the raw command engine (send_command); nil on servers without one.
	Commands CommandRunner
	// Access reports the live command access for session-status; nil on servers without gates.
	Access func() CommandAccess
	// Provision starts isolated instances (provision-session, end-session); nil when the
	// operator has not allowed provisioning.
	Provision Provisioner
	// Consent asks the operator for gated commands (request-command-access); nil on servers
	// without a broker.
	Consent ConsentAsker
	// Stop is the operator's emergency stop, which session-status reports (gestures meet it
	// through Gate); nil on servers without one.
	Stop EmergencyStop
	// Control is who drives the desktop (takeover.Control), which session-status reports; nil
	// on servers without a console.
	Control Controller
	// CaptureLinks makes capture answer with a link to its artifact by default (link), for MCP
	// clients that read resources: --capture-links.
	CaptureLinks bool
}

// Desktop is the desktop as tools see it: every role but input, which only a hold of the input
// gate hands out (Gate), so no tool can send input outside the gate and the emergency stop.
type Desktop interface {
	platform.WindowReader
	platform.WindowOperator
	platform.TreeReader
	platform.Actor
	platform.Capturer
	platform.Clipboard
	platform.Diagnostics
}

// InputGate is the one way to input (inputgate.Gate): a gesture's hold carries the input and
// a context the emergency stop cancels.
type InputGate interface {
	Gesture(ctx context.Context) (*inputgate.Hold, error)
}

// EmergencyStop is the operator's stop as session-status reports it (estop.Latch); gestures
// meet the stop through the input gate.
type EmergencyStop interface {
	Status() estop.Status
}

// Controller is the operator's take-over as session-status reports it (takeover.Control);
// acting calls meet it in admission.
type Controller interface {
	Status() takeover.Status
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
