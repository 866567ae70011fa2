package daemon

import (
	"github.com/mcec/mcec/internal/consent"
	"github.com/mcec/mcec/internal/safety"
)

// consentCommands lets the consent broker read and grant into the live policy, over the live
// catalog and command table.
type consentCommands struct{ d *Daemon }

func (c consentCommands) State(name string) consent.State {
	switch c.d.Policy.State(name, c.d.Dispatcher.Catalog().Names(), c.d.Commands.Table().Entries()) {
	case safety.StateEnabled:
		return consent.Enabled
	case safety.StateGated:
		return consent.Gated
	case safety.StateFixed:
		return consent.Fixed
	}
	return consent.Unknown
}

func (c consentCommands) Grant(names []string) { c.d.Policy.Grant(names) }

func (c consentCommands) Granted() []string { return c.d.Policy.Granted() }

func (c consentCommands) Revoke(name string) bool { return c.d.Policy.Revoke(name) }

func (c consentCommands) GrantFor(scope consent.Scope, session string, names []string) {
	c.d.Policy.GrantFor(safety.GrantScope(scope), session, names)
}

func (c consentCommands) ScopedGrants() []consent.ScopedGrant {
	out := []consent.ScopedGrant{}
	for _, g := range c.d.Policy.ScopedGrants() {
		out = append(out, consent.ScopedGrant{Name: g.Name, Scope: consent.Scope(g.Scope), Session: g.Session})
	}
	return out
}

func (c consentCommands) RevokeFor(scope consent.Scope, session, name string) bool {
	return c.d.Policy.RevokeFor(safety.GrantScope(scope), session, name)
}
