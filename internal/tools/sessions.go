package tools

import (
	"context"
	"errors"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/estop"
	"github.com/mcec/mcec/internal/session"
	"github.com/mcec/mcec/internal/takeover"
)

type sessionStartArgs struct{}

type sessionIDArgs struct{}

type sessionEndResult struct {
	SessionID    string `json:"sessionId"`
	Ended        bool   `json:"ended"`
	AlreadyEnded bool   `json:"alreadyEnded"`
}

func sessionStartTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[sessionStartArgs, session.Status]{
		Name:  "session-start",
		Title: "Start a session",
		Description: "Start a new session with its own target, history and artifact directory. Pass the returned " +
			"sessionId to later calls; calls without one share the default session.",
		Annotations:     catalog.Annotations{},
		ManagesSessions: true,
		Run: func(ctx context.Context, call *catalog.Call, in *sessionStartArgs, resp *catalog.Response) (*session.Status, error) {
			s := env.Sessions.Start()
			// Created now so the agent learns where the session's evidence goes; without a
			// sessions directory the status simply has no artifactDir.
			_, _ = s.ArtifactDir()
			resp.Session = s
			st := s.Status()
			return &st, nil
		},
	})
}

// SessionStore is the server's sessions as the session tools use them (session.Store).
type SessionStore interface {
	Start() *session.Session
	Resolve(id string) (*session.Session, error)
	End(id string) (s *session.Session, alreadyEnded bool, err error)
}

// CommandAccess is which tools and raw commands the agent may use now, as session-status
// reports it. It has safety.CommandAccess's fields (the daemon converts one into the other, so
// a field added there and not here fails to compile); tools cannot import safety, which sits
// above the dispatcher.
type CommandAccess struct {
	AgentEnabled       bool     `json:"agentEnabled"`
	EnabledTools       []string `json:"enabledTools"`
	GatedTools         []string `json:"gatedTools"`
	EnabledRawCommands []string `json:"enabledRawCommands"`
}

// sessionStatusResult is a session's status plus the server's command access.
type sessionStatusResult struct {
	session.Status
	// CommandAccess: enabledTools, gatedTools, enabledRawCommands.
	CommandAccess *CommandAccess `json:"commandAccess,omitempty"`
	// EmergencyStop is the operator's stop: armed, stopped or unavailable, since when and how.
	EmergencyStop *estop.Status `json:"emergencyStop,omitempty"`
	// Control is who drives the desktop: agents, or the operator who took control (then what
	// acts fails operator-in-control until they hand back).
	Control *takeover.Status `json:"control,omitempty"`
}

func sessionStatusTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[sessionIDArgs, sessionStatusResult]{
		Name:            "session-status",
		Title:           "Session status",
		Description:     "Report a session's state: start time, artifact directory, call counts, active target, last observation, action and error, and the server's commandAccess (enabledTools, gatedTools, enabledRawCommands) emergencyStop (state armed, stopped or unavailable; since; how) and control (holder agents or operator; since; how). Served even while the emergency stop refuses every other tool.",
		Annotations:     catalog.Annotations{ReadOnly: true, Idempotent: true},
		ManagesSessions: true,
		Errors:          []contract.Code{contract.CodeUnknownSession},
		Run: func(ctx context.Context, call *catalog.Call, in *sessionIDArgs, resp *catalog.Response) (*sessionStatusResult, error) {
			s, err := env.Sessions.Resolve(call.RequestedSessionID)
			if err != nil {
				return nil, unknownSession(call.RequestedSessionID)
			}
			res := sessionStatusResult{Status: s.Status()}
			if env.Access != nil {
				a := env.Access()
				res.CommandAccess = &a
			}
			if env.Stop != nil {
				st := env.Stop.Status()
				res.EmergencyStop = &st
			}
			if env.Control != nil {
				c := env.Control.Status()
				res.Control = &c
			}
			resp.Session = s
			return &res, nil
		},
	})
}

func sessionEndTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[sessionIDArgs, sessionEndResult]{
		Name:  "session-end",
		Title: "End a session",
		Description: "End the session named by sessionId (the default session when omitted; a fresh default starts " +
			"on the next call). Idempotent: ending an ended session succeeds with alreadyEnded. Artifacts stay on disk.",
		Annotations:     catalog.Annotations{Idempotent: true},
		ManagesSessions: true,
		Errors:          []contract.Code{contract.CodeUnknownSession},
		Run: func(ctx context.Context, call *catalog.Call, in *sessionIDArgs, resp *catalog.Response) (*sessionEndResult, error) {
			s, already, err := env.Sessions.End(call.RequestedSessionID)
			if errors.Is(err, session.ErrUnknown) {
				return nil, unknownSession(call.RequestedSessionID)
			}
			if err != nil {
				return nil, err
			}
			id := call.RequestedSessionID
			if s != nil {
				id = s.ID()
			}
			resp.Session = s
			return &sessionEndResult{SessionID: id, Ended: true, AlreadyEnded: already}, nil
		},
	})
}

func unknownSession(id string) error {
	return contract.Errorf(contract.CodeUnknownSession,
		"session %q is unknown or has ended; omit sessionId for the default session or call session-start", id)
}
