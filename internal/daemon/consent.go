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
