package daemon

import (
	"github.com/mcec/mcec/internal/consent"
	"github.com/mcec/mcec/internal/rawcmd"
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

// allowRaw is the raw command engine's gate: the consent freeze, then the policy (the order of
// the dispatcher's checks and guard). While the operator is being asked, raw commands that act
// (input, program starts) are refused at once; input would wait on the input gate, which the
// broker holds, anyway.
func (d *Daemon) allowRaw(e *rawcmd.Entry) error {
	if d.Consent != nil && e.Kind != rawcmd.EntryMeta && (e.Kind != rawcmd.EntryPrefix || e.Name != "pause:") {
		if err := d.Consent.Frozen(e.Name); err != nil {
			return err
		}
	}
	return d.Policy.AllowRaw(e)
}
