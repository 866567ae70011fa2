package daemon

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcec/mcec/internal/console"
	"github.com/mcec/mcec/internal/control"
	"github.com/mcec/mcec/internal/provision"
)

// ConsoleURL answers the control operation console-url (mcec console-url decodes it).
type ConsoleURL struct {
	URL string `json:"url"`
}

// startConsole serves the operator console on cfg.Console (none when empty) and registers
// console-url on the control socket, the one way to a login link besides the start-up banner
// (and the operator key, where one is configured).
func (d *Daemon) startConsole(cfg Config) error {
	if addr := cfg.Console; addr != "" {
		opts := console.Options{Stop: d.Stop, Consent: d.Consent, Control: d.Takeover, Hands: d.opGate,
			Screen: consoleScreen{d.Desktop}, Review: review{root: d.Evidence.Root(), recorder: d.Evidence}, Log: d.log,
			KeySHA256: cfg.ConsoleKeySHA256, HostNames: cfg.ConsoleHostNames, Peers: cfg.ConsolePeers}
		if d.Provision != nil {
			opts.Fleet = fleet{d.Provision}
		}
		c := console.New(opts)
		if err := c.Listen(addr); err != nil {
			return err
		}
		d.Console = c
		d.Dispatcher.Watch(c.Observer())
		d.log.Info("operator console", "addr", c.Addr())
	}
	d.Control.Handle("console-url", func(context.Context, json.RawMessage) (any, error) {
		if d.Console == nil {
			return nil, errors.New("this mcec serves no console: start it with mcec serve --console")
		}
		return ConsoleURL{URL: d.Console.LoginURL()}, nil
	})
	return nil
}

// fleet is the console's view of the instances this server provisioned.
type fleet struct{ m *provision.Manager }

func (f fleet) Instances() []console.Instance {
	list := f.m.List()
	out := make([]console.Instance, 0, len(list))
	for _, i := range list {
		out = append(out, console.Instance{ID: i.ID, Started: i.Started, PID: i.PID, Port: i.Port, Console: i.Control != ""})
	}
	return out
}

// LoginURL asks the instance's own control socket for a login link, as `mcec console-url` asks
// this server's: the link is minted there and is good once, for that console only.
func (f fleet) LoginURL(ctx context.Context, id string) (string, error) {
	for _, i := range f.m.List() {
		if i.ID != id {
			continue
		}
		if i.Control == "" {
			return "", errors.New("it serves no console")
		}
		var ans ConsoleURL
		if err := control.Call(ctx, i.Control, "console-url", nil, &ans); err != nil {
			return "", err
		}
		return ans.URL, nil
	}
	return "", console.ErrNoInstance
}
