package tools

import (
	"context"
	"errors"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/progress"
	"github.com/mcec/mcec/internal/provision"
)

type provisionArgs struct{}

type provisionResult struct {
	// SessionID names the instance for end-session (not a session of this server).
	SessionID   string `json:"sessionId"`
	MCPEndpoint string `json:"mcpEndpoint"`
	// FacadeURL is the plain façade's base: POST FacadeURL/TOOL with the arguments as the body.
	FacadeURL string `json:"facadeUrl"`
	Token     string `json:"token"`
	// StdioCommand is the MCP server command line for clients that only start stdio servers
	// (mcec mcp --server URL bridges to the instance); CallCommand runs one tool call from a
	// shell (append TOOL and its JSON arguments). Both read the token from the environment
	// variable TokenEnv, never from argv.
	StdioCommand []string  `json:"stdioCommand"`
	CallCommand  []string  `json:"callCommand"`
	TokenEnv     string    `json:"tokenEnv"`
	Port         int       `json:"port"`
	ProcessID    int       `json:"processId"`
	Started      time.Time `json:"started"`
	// ExpiresAfterHours: the instance is reaped this long after it started.
	ExpiresAfterHours int `json:"expiresAfterHours"`
}

type endSessionArgs struct {
	Token string `json:"token" jsonschema:"The token provision-session returned for this instance."`
}

type endSessionResult struct {
	SessionID   string `json:"sessionId"`
	Ended       bool   `json:"ended"`
	AlreadyGone bool   `json:"alreadyGone"`
}

// Provisioner starts and ends isolated instances (provision.Manager).
type Provisioner interface {
	Provision(ctx context.Context) (provision.Instance, error)
	End(id, token string) (provision.EndResult, error)
}

func provisionSessionTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[provisionArgs, provisionResult]{
		Name:  "provision-session",
		Title: "Provision an isolated instance",
		Description: "Start a separate mcec on its own private headless desktop, loopback port and fresh token, and " +
			"return how to connect (mcpEndpoint with Authorization: Bearer token, facadeUrl, stdioCommand, callCommand) and its " +
			"sessionId. End it with end-session (sessionId and token); it is reaped after 12 h. Only when the " +
			"operator allows provisioning.",
		// Opens a new network endpoint and desktop other clients can reach.
		Annotations: catalog.Annotations{OpenWorld: true},
		Errors:      []contract.Code{contract.CodeProvisioningNotAuthorized, contract.CodeProvisioningFailed},
		Run: func(ctx context.Context, call *catalog.Call, in *provisionArgs, resp *catalog.Response) (*provisionResult, error) {
			if env.Provision == nil {
				return nil, notAuthorized()
			}
			pctx, stop := progress.Track(ctx, "starting an isolated instance (its desktop, buses and server)", 0)
			inst, err := env.Provision.Provision(pctx)
			stop()
			if err != nil {
				return nil, contract.Errorf(contract.CodeProvisioningFailed, "%v", err)
			}
			return &provisionResult{
				SessionID: inst.ID, MCPEndpoint: inst.MCPEndpoint(), FacadeURL: inst.BaseURL() + "/v1/tools",
				Token: inst.Token, StdioCommand: []string{inst.Binary, "mcp", "--server", inst.MCPEndpoint()},
				CallCommand: []string{inst.Binary, "call", "--server", inst.BaseURL()},
				TokenEnv:    "MCEC_TOKEN", Port: inst.Port, ProcessID: inst.PID, Started: inst.Started,
				ExpiresAfterHours: int(provision.DefaultMaxAge / time.Hour),
			}, nil
		},
	})
}

func endSessionTool(env *Env) *catalog.Tool {
	return catalog.Define(catalog.Spec[endSessionArgs, endSessionResult]{
		Name:  "end-session",
		Title: "End an isolated instance",
		Description: "Stop the instance provision-session started (sessionId = its sessionId, token = its token) and " +
			"remove its directory. Idempotent: an unknown or ended instance succeeds with alreadyGone.",
		Annotations: catalog.Annotations{Destructive: true, Idempotent: true},
		// sessionId names the instance, not a session of this server.
		ManagesSessions: true,
		Errors: []contract.Code{contract.CodeProvisioningNotAuthorized, contract.CodeSessionTokenInvalid,
			contract.CodeBadArguments},
		Run: func(ctx context.Context, call *catalog.Call, in *endSessionArgs, resp *catalog.Response) (*endSessionResult, error) {
			if env.Provision == nil {
				return nil, notAuthorized()
			}
			id := call.RequestedSessionID
			res, err := env.Provision.End(id, in.Token)
			switch {
			case errors.Is(err, provision.ErrBadID):
				return nil, contract.Errorf(contract.CodeBadArguments,
					"sessionId %q is not an instance id: pass the sessionId that provision-session returned", id)
			case errors.Is(err, provision.ErrTokenInvalid):
				return nil, contract.Errorf(contract.CodeSessionTokenInvalid,
					"the token does not match instance %s; pass the token provision-session returned for it", id)
			case err != nil:
				return nil, err
			}
			return &endSessionResult{SessionID: id, Ended: res.Ended, AlreadyGone: res.AlreadyGone}, nil
		},
	})
}

func notAuthorized() error {
	return contract.Errorf(contract.CodeProvisioningNotAuthorized,
		"the operator has not allowed provisioning on this server (mcec --allow-provisioning, MCEC_PROVISIONING=true "+
			"or [provisioning] enabled = true in config.toml); do not retry")
}
