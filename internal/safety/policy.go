package safety

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/rawcmd"
)

// GatedTools are the tools outside the standard set: they stay refused until the operator
// grants them (--allow-all, allow_all, or [tools.NAME] enabled = true). launch starts any
// program with the user's rights.
var GatedTools = []string{"launch"}

// Policy is the live gate, safe for concurrent use. Its settings are fixed once built; only the
// operator's consent grants (Grant) are added while it serves.
type Policy struct {
	agent   bool // the agent surface
	all     bool // gated tools and raw input/program commands granted
	private bool
	tools   map[string]bool
	raw     map[string]bool
	log     *slog.Logger

	// The names the operator granted through request-command-access, in memory only, never
	// written to any file: for this process (granted), for one session while it lives
	// (sessions), or for one session's next call that uses them (once).
	mu       sync.RWMutex
	granted  map[string]bool
	sessions map[string]map[string]bool // session id → names
	once     map[string]map[string]bool // session id → names
	// liveSession reports whether a session is still open; its grants are forgotten once it
	// is not (SetLiveSessions). nil: every session is taken as open.
	liveSession func(id string) bool
}

// NewPolicy applies the desktop mode's defaults to the settings: on mcec's own private desktop
// (disposable, isolated) the agent surface is on unless switched off; attached to an existing
// DISPLAY it is off until the operator opts in. Audit lines go to log.
func NewPolicy(s Settings, private bool, log *slog.Logger) *Policy {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	agent := private || s.AllowAll // granting everything implies the surface
	if s.Agent != nil {
		agent = *s.Agent
	}
	return &Policy{agent: agent, all: s.AllowAll, private: private, tools: s.Tools, raw: s.RawCommands, log: log}
}

// AgentEnabled reports whether the agent surface is on.
func (p *Policy) AgentEnabled() bool { return p.agent }

// Allow is the admission chain's judgement of a tool call: nil when the tool may run, else the
// refusal. A grant for the call's session (dispatch.SessionIDOf) counts, and a grant for its
// next call is used up by this one; a context without a session (what Access and State pass)
// sees only what holds for every session.
func (p *Policy) Allow(ctx context.Context, tool string) error {
	if !p.agent {
		return contract.Errorf(contract.CodeAgentCommandsDisabled,
			"the agent surface is switched off on this desktop (attached to the operator's own display); "+
				"only the operator can enable it (mcec --allow-agent, or [agent] enabled = true in config.toml). Do not retry")
	}
	if on, ok := p.tools[tool]; ok {
		if !on {
			return contract.Errorf(contract.CodeCommandDisabled, "%s is disabled by the operator ([tools.%s] enabled = false); do not retry", tool, tool)
		}
		return nil
	}
	if slices.Contains(GatedTools, tool) && !p.all && !p.grantedFor(dispatch.SessionIDOf(ctx), tool) {
		return contract.Errorf(contract.CodeCommandDisabled,
			"%s is gated until the operator grants it (mcec --allow-all, or [tools.%s] enabled = true in config.toml); do not retry", tool, tool)
	}
	return nil
}

// rawClass sorts raw command entries by what they can do.
type rawClass int

const (
	rawHarmless rawClass = iota // meta commands, pause:
	rawInput                    // synthesizes keyboard or mouse input
	rawProgram                  // starts a program with the user's rights
)

func classifyRaw(e *rawcmd.Entry) rawClass {
	switch {
	case !e.Acts():
		return rawHarmless
	case e.Kind == rawcmd.EntryProgram:
		return rawProgram
	}
	return rawInput
}

// AllowRaw is the raw command engine's gate, asked for every leaf of a resolved command that
// is not an agent tool (tools pass the dispatcher's gate). Meta commands and pause: are always
// served. Input reaches only the display mcec serves: on its own private desktop, which nothing
// else uses, input is part of the standard set; attached to the operator's display it stays
// gated until granted. Program starts escape any desktop and are gated everywhere.
func (p *Policy) AllowRaw(ctx context.Context, e *rawcmd.Entry) error {
	class := classifyRaw(e)
	if class == rawHarmless {
		return nil
	}
	if !p.agent {
		return contract.Errorf(contract.CodeAgentCommandsDisabled,
			"raw input is switched off on this desktop; only the operator can enable it (mcec --allow-all)")
	}
	on, ok := p.raw[e.Name]
	if !ok && e.Kind == rawcmd.EntryKeysym {
		on, ok = p.raw["keysym"]
	}
	switch {
	case ok && on:
		return nil
	case ok:
		return contract.Errorf(contract.CodeCommandDisabled, "%s is disabled by the operator ([raw_commands.%q] enabled = false); do not retry", e.Name, e.Name)
	case p.all, class == rawInput && p.private:
		return nil
	}
	sess := dispatch.SessionIDOf(ctx)
	if p.grantedFor(sess, e.Name) || (e.Kind == rawcmd.EntryKeysym && p.grantedFor(sess, "keysym")) {
		return nil
	}
	return contract.Errorf(contract.CodeCommandDisabled,
		"%s synthesizes input or starts a program and is gated until the operator grants it (mcec --allow-all, or [raw_commands.%q] enabled = true); do not retry", e.Name, e.Name)
}

// CommandAccess is what initialize and session-status report: derived from the live catalog
// and command table, never a list kept by hand.
type CommandAccess struct {
	AgentEnabled bool `json:"agentEnabled"`
	// EnabledTools may be called; GatedTools are refused until the operator grants them.
	EnabledTools []string `json:"enabledTools"`
	GatedTools   []string `json:"gatedTools"`
	// EnabledRawCommands are the raw command names send_command and the line protocol accept
	// (enabled in commands.toml and not gated); bare X keysym names count as "keysym".
	EnabledRawCommands []string `json:"enabledRawCommands"`
}

// Access computes the command access for the given tool names and raw command entries.
func (p *Policy) Access(tools []string, raw []*rawcmd.Entry) CommandAccess {
	a := CommandAccess{AgentEnabled: p.agent, EnabledTools: []string{}, GatedTools: []string{}, EnabledRawCommands: []string{}}
	for _, t := range tools {
		if p.Allow(context.Background(), t) == nil {
			a.EnabledTools = append(a.EnabledTools, t)
		} else {
			a.GatedTools = append(a.GatedTools, t)
		}
	}
	for _, e := range raw {
		if !e.Enabled || e.Kind == rawcmd.EntryTool {
			continue // tools are listed above
		}
		if p.AllowRaw(context.Background(), e) == nil {
			a.EnabledRawCommands = append(a.EnabledRawCommands, e.Name)
		}
	}
	return a
}

// refusal codes are audited as refusals rather than as actions.
func isRefusal(code string) bool {
	switch contract.Code(code) {
	case contract.CodeAgentCommandsDisabled, contract.CodeCommandDisabled, contract.CodeEmergencyStopped, contract.CodeConsentPending:
		return true
	}
	return false
}

// CallFinished implements dispatch.Observer: one AGENT-AUDIT line per tool call, refused or not,
// with the arguments redacted (Redact).
func (p *Policy) CallFinished(ctx context.Context, f dispatch.Finished) {
	code := ""
	if e := f.Outcome.Envelope.Err(); e != nil {
		code = string(e.Code)
	}
	msg := "AGENT-AUDIT call"
	level := slog.LevelInfo
	if isRefusal(code) {
		msg, level = "AGENT-AUDIT refused", slog.LevelWarn
	}
	transport := dispatch.TransportOf(ctx)
	if transport == "" {
		transport = "in-process"
	}
	p.log.Log(context.Background(), level, msg, "transport", transport, "tool", f.Tool, "session", f.Outcome.Envelope.SessionID(),
		"args", Redact(f.Tool, f.Args), "ok", f.Outcome.Envelope.OK(), "code", code, "ms", f.Duration.Milliseconds())
}

// AuditRaw writes the AGENT-AUDIT line of a raw command line that arrived on the TCP line
// protocol (send_command's lines are audited as send_command calls). err is its refusal or
// failure, nil when it was accepted.
func (p *Policy) AuditRaw(line string, err error) {
	code := ""
	var ce *contract.Error
	if errors.As(err, &ce) {
		code = string(ce.Code)
	} else if err != nil {
		code = string(contract.CodeUnhandledException)
	}
	msg, level := "AGENT-AUDIT raw-command", slog.LevelInfo
	if isRefusal(code) {
		msg, level = "AGENT-AUDIT refused", slog.LevelWarn
	}
	p.log.Log(context.Background(), level, msg, "transport", "tcp", "command", RedactLine(line), "ok", err == nil, "code", code)
}

// Markdown renders the access as the "Command access" section appended to the agent guidance
// that MCP initialize returns.
func (a CommandAccess) Markdown() string {
	var b strings.Builder
	b.WriteString("## Command access on this server\n")
	if !a.AgentEnabled {
		b.WriteString("The operator has not enabled the agent surface on this desktop: every tool fails `internal` / " +
			"`agent-commands-disabled`. Do not retry; ask the operator.\n")
		return b.String()
	}
	list := func(names []string) string {
		if len(names) == 0 {
			return "none"
		}
		return "`" + strings.Join(names, "`, `") + "`"
	}
	fmt.Fprintf(&b, "Enabled tools: %s.\nGated tools (fail `internal` / `command-disabled` until the operator grants them): %s.\n",
		list(a.EnabledTools), list(a.GatedTools))
	if len(a.EnabledRawCommands) > 0 {
		fmt.Fprintf(&b, "Raw commands enabled: %d (`mcec:cmds` lists them; `session-status` reports `commandAccess`).\n", len(a.EnabledRawCommands))
	} else {
		b.WriteString("Raw commands enabled: none beyond agent tools.\n")
	}
	return b.String()
}

// Grant enables gated tools and raw commands by name for the rest of this process (the
// operator's consent, internal/consent). It never overrides the agent surface switch or an
// explicit enabled = false: those are the operator's configuration, which State reports as
// Fixed so that nobody is asked about them.
func (p *Policy) Grant(names []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.granted == nil {
		p.granted = map[string]bool{}
	}
	for _, n := range names {
		p.granted[n] = true
	}
}

// GrantScope is how far a consent grant reaches.
type GrantScope string

const (
	// ScopeProcess: every session, until mcec exits or the grant is revoked.
	ScopeProcess GrantScope = "process"
	// ScopeSession: the session that asked, until it ends or the grant is revoked.
	ScopeSession GrantScope = "session"
	// ScopeOnce: the next call of the session that asked that needs the name (a tool call, or
	// one send_command line).
	ScopeOnce GrantScope = "once"
)

// ScopedGrant is a grant for one session (ScopeSession or ScopeOnce).
type ScopedGrant struct {
	Name    string     `json:"name"`
	Scope   GrantScope `json:"scope"`
	Session string     `json:"session"`
}

// GrantFor enables names for session alone: for each of its calls while it lives
// (ScopeSession), or for its next call that needs each (ScopeOnce). ScopeProcess is Grant.
func (p *Policy) GrantFor(scope GrantScope, session string, names []string) {
	if scope == ScopeProcess {
		p.Grant(names)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	m := &p.sessions
	if scope == ScopeOnce {
		m = &p.once
	}
	if *m == nil {
		*m = map[string]map[string]bool{}
	}
	if (*m)[session] == nil {
		(*m)[session] = map[string]bool{}
	}
	for _, n := range names {
		(*m)[session][n] = true
	}
}

// SetLiveSessions tells the policy which sessions are open, so that grants of ended sessions
// are forgotten (at the next listing).
func (p *Policy) SetLiveSessions(live func(id string) bool) {
	p.mu.Lock()
	p.liveSession = live
	p.mu.Unlock()
}

// ScopedGrants lists the grants for single sessions in force, sorted by session, scope and
// name; grants of sessions that ended are forgotten on the way.
func (p *Policy) ScopedGrants() []ScopedGrant {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := []ScopedGrant{}
	for scope, m := range map[GrantScope]map[string]map[string]bool{ScopeSession: p.sessions, ScopeOnce: p.once} {
		for sess, names := range m {
			if p.liveSession != nil && !p.liveSession(sess) {
				delete(m, sess)
				continue
			}
			for n := range names {
				out = append(out, ScopedGrant{Name: n, Scope: scope, Session: sess})
			}
		}
	}
	slices.SortFunc(out, func(a, b ScopedGrant) int {
		return cmp.Or(strings.Compare(a.Session, b.Session), strings.Compare(string(a.Scope), string(b.Scope)), strings.Compare(a.Name, b.Name))
	})
	return out
}

// RevokeFor takes back a grant for one session; it reports whether there was one.
func (p *Policy) RevokeFor(scope GrantScope, session, name string) bool {
	if scope == ScopeProcess {
		return p.Revoke(name)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.sessions
	if scope == ScopeOnce {
		m = p.once
	}
	was := m[session][name]
	delete(m[session], name)
	if len(m[session]) == 0 {
		delete(m, session)
	}
	return was
}

// Granted lists the names granted through consent, sorted.
func (p *Policy) Granted() []string {
	p.mu.RLock()
	defer p.mu.RUnlock()
	names := make([]string, 0, len(p.granted))
	for n := range p.granted {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Revoke takes back a consent grant: name is gated again from the next call on. It reports
// whether name was granted. A call already running keeps going; --allow-all and the
// configuration are not grants and cannot be revoked here.
func (p *Policy) Revoke(name string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	was := p.granted[name]
	delete(p.granted, name)
	return was
}

// grantedFor reports whether name is granted for a call of session (for this process, for the
// session, or once for it: that grant is then used up). session "" sees process grants only.
func (p *Policy) grantedFor(session, name string) bool {
	p.mu.RLock()
	ok := p.granted[name] || (session != "" && p.sessions[session][name])
	once := !ok && session != "" && p.once[session][name]
	p.mu.RUnlock()
	if ok || !once {
		return ok
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.once[session][name] { // a concurrent call of the session used it first
		return false
	}
	delete(p.once[session], name)
	if len(p.once[session]) == 0 {
		delete(p.once, session)
	}
	p.log.Info("consent: a grant for one call was used", "command", name, "session", session)
	return true
}

// GrantState is where a command name stands for a consent request.
type GrantState int

const (
	// StateUnknown: no tool and no enabled raw command has this name.
	StateUnknown GrantState = iota
	// StateEnabled: already allowed; nothing to ask.
	StateEnabled
	// StateGated: refused until granted; the operator may grant it.
	StateGated
	// StateFixed: refused by the operator's configuration (agent surface off, enabled = false
	// in config.toml or commands.toml); a consent grant cannot change it.
	StateFixed
)

// State classifies name against the live catalog's tool names and the command table's entries.
func (p *Policy) State(name string, tools []string, raw []*rawcmd.Entry) GrantState {
	if slices.Contains(tools, name) {
		switch {
		case p.Allow(context.Background(), name) == nil:
			return StateEnabled
		case !p.agent:
			return StateFixed
		}
		if on, ok := p.tools[name]; ok && !on {
			return StateFixed
		}
		return StateGated
	}
	for _, e := range raw {
		if e.Name != name || e.Kind == rawcmd.EntryTool {
			continue
		}
		switch {
		case !e.Enabled || !p.agent:
			return StateFixed
		case p.AllowRaw(context.Background(), e) == nil:
			return StateEnabled
		}
		if on, ok := p.raw[e.Name]; ok && !on {
			return StateFixed
		}
		return StateGated
	}
	return StateUnknown
}
