package daemon

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/inputgate"
	"github.com/mcec/mcec/internal/paths"
	"github.com/mcec/mcec/internal/platform/x11"
	"github.com/mcec/mcec/internal/rawcmd/queue"
)

// CommandsConfig configures the raw command engine (send_command and the TCP line server).
type CommandsConfig struct {
	// File is the user's commands.toml; "" means DefaultCommandsFile.
	File string
	// Wait bounds send_command (default 30 s); tests shorten it.
	Wait time.Duration
	// Poll is how often File is checked for changes (default 2 s).
	Poll time.Duration
}

// DefaultCommandsFile is $XDG_CONFIG_HOME/mcec/commands.toml, or ~/.config/mcec/commands.toml.
func DefaultCommandsFile() string { return paths.Config("commands.toml") }

// newCommands builds the engine; startCommands starts it once the dispatcher exists (the engine
// reaches the agent tools through it, and the tools reach the engine through send_command).
func (d *Daemon) newCommands(cfg CommandsConfig, gate *inputgate.Gate) *queue.Engine {
	file := cfg.File
	if file == "" {
		file = DefaultCommandsFile()
	}
	return queue.New(queue.Options{Desktop: d.Desktop, Gate: gate, Log: d.log, Version: BuildVersion(),
		StartProcess: d.StartProcess, File: file, Poll: cfg.Poll, Wait: cfg.Wait, KnownKey: x11.KnownKey,
		Allow: d.Admission.AdmitRaw, Audit: d.Policy.AuditRaw})
}

// dispatchTools lets raw commands call the agent tools by name, through the one dispatcher path.
type dispatchTools struct{ d *dispatch.Dispatcher }

func (t dispatchTools) Names() []string { return t.d.Catalog().Names() }

func (t dispatchTools) Call(ctx context.Context, name string, args json.RawMessage) (contract.Envelope, error) {
	if dispatch.TransportOf(ctx) == "" {
		ctx = dispatch.WithTransport(ctx, "raw-command")
	}
	out, err := t.d.Call(ctx, name, args)
	return out.Envelope, err
}
