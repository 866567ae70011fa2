package daemon

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcec/mcec/internal/console"
)

// ConsoleURL answers the control operation console-url (mcec console-url decodes it).
type ConsoleURL struct {
	URL string `json:"url"`
}

// startConsole serves the operator console on addr (none when empty) and registers
// console-url on the control socket, the one way to a login link besides the start-up banner.
func (d *Daemon) startConsole(addr string) error {
	if addr != "" {
		c := console.New(console.Options{Stop: d.Stop, Consent: d.Consent, Control: d.Takeover, Hands: d.opGate,
			Screen: consoleScreen{d.Desktop}, Review: review{root: d.Evidence.Root(), recorder: d.Evidence}, Log: d.log})
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
