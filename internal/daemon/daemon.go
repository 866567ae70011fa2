// Package daemon is mcec's composition root: configuration → desktop (private headless, or the
// existing DISPLAY) → platform backend → sessions → tool catalog → dispatcher → MCP server.
// Only cmd/mcec's CLI (internal/cli) and end-to-end tests import it; nothing it assembles
// imports it back.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/internal/a11yenv"
	"github.com/mcec/mcec/internal/admission"
	"github.com/mcec/mcec/internal/agentguide"
	"github.com/mcec/mcec/internal/catalog"
	"github.com/mcec/mcec/internal/consent"
	"github.com/mcec/mcec/internal/console"
	"github.com/mcec/mcec/internal/control"
	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/estop"
	"github.com/mcec/mcec/internal/evidence"
	"github.com/mcec/mcec/internal/headless"
	"github.com/mcec/mcec/internal/inputgate"
	"github.com/mcec/mcec/internal/paths"
	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/linux"
	"github.com/mcec/mcec/internal/procgroup"
	"github.com/mcec/mcec/internal/provision"
	"github.com/mcec/mcec/internal/rawcmd/queue"
	"github.com/mcec/mcec/internal/safety"
	"github.com/mcec/mcec/internal/screencast"
	"github.com/mcec/mcec/internal/session"
	"github.com/mcec/mcec/internal/takeover"
	"github.com/mcec/mcec/internal/tools"
	"github.com/mcec/mcec/internal/transport"
)

// Config is the daemon's configuration, already merged from flags and environment.
type Config struct {
	// Headless forces a private desktop even when DISPLAY or WAYLAND_DISPLAY is set. Without
	// either mcec always starts one (linux.Session says which session it attaches to otherwise).
	Headless bool
	// Screen is the private desktop's kind and geometry (default X11, 1280x800x24).
	Screen headless.Options
	// SessionsDir holds the session artifact directories (default: $XDG_STATE_HOME/mcec/sessions).
	SessionsDir string
	// Launch lists programs the operator asked to start inside the desktop at start-up.
	Launch [][]string
	// Retention bounds the sessions directory (zero fields: 7 days, 1 GiB).
	Retention evidence.Retention
	Logger    *slog.Logger
	// Commands configures raw commands (send_command, the TCP line server).
	Commands CommandsConfig
	// Safety are the gates (internal/safety). The zero value is the safe default: on an attached
	// desktop the agent surface is off; launch and raw input commands are gated everywhere.
	Safety safety.Settings
	// Provision tunes isolated instances (provision-session) when Safety.Provisioning allows
	// them; the zero value takes the defaults (this binary, the per-user runtime directory).
	Provision provision.Options
	// ControlSocket is the operator's local control socket (internal/control: mcec rearm,
	// mcec consent); empty picks a fresh path in control.Dir().
	ControlSocket string
	// ConsentTimeout bounds how long request-command-access waits for the operator (0: 120 s);
	// tests shorten it.
	ConsentTimeout time.Duration
	// WaylandToplevels drives a sway desktop (attached or private) as any wlroots compositor is
	// driven without sway's IPC: windows through wlr-foreign-toplevel, without places or pids
	// (docs/wayland.md). It is how mcec meets Hyprland and the others, tried where sway runs;
	// `MCEC_WAYLAND_WINDOWS=foreign-toplevel` sets it.
	WaylandToplevels bool
	// NoConsentDialog keeps consent questions off an attached display (only `mcec consent`
	// answers), e.g. when nobody watches that display.
	NoConsentDialog bool
	// CaptureLinks makes capture answer MCP clients with a resource_link to its artifact
	// instead of inline base64 unless a call says otherwise (--capture-links).
	CaptureLinks bool
	// Console, when set, is the address the operator console serves on ("127.0.0.1:5152";
	// internal/console); empty: no console. Beyond loopback it needs ConsoleKeySHA256.
	Console string
	// ConsoleKeySHA256, ConsoleHostNames and ConsolePeers: a console's operator key (its
	// hash), the names it is reached by, and the other consoles it links to
	// (console.Options; a Helm release's pods).
	ConsoleKeySHA256 []byte
	ConsoleHostNames []string
	ConsolePeers     []console.Peer
	// Desktop, when set, is the backend to serve instead of a real desktop (tests run the
	// whole daemon over internal/platform/fake): no desktop is started or attached, and
	// nothing opens a display (no consent dialog, no hotkey listener). The daemon closes it.
	Desktop platform.Desktop
}

// Daemon is a running mcec core, shared by every transport.
type Daemon struct {
	Desktop    platform.Desktop
	Dispatcher *dispatch.Dispatcher
	Sessions   *session.Store
	// Private is the embedded desktop, nil when attached to an existing DISPLAY.
	Private *headless.Desktop
	// Evidence records every call into its session's directory (trace, session.json, …).
	Evidence *evidence.Recorder
	// Commands is the raw command engine (send_command, the TCP line server).
	Commands *queue.Engine
	// Gate serializes input synthesis across tools and raw commands.
	Gate *inputgate.Gate
	// Policy is the live command gate and the audit log (internal/safety).
	Policy *safety.Policy
	// Admission is the one chain tool calls and raw commands pass before they run: the
	// emergency stop, the operator's take-over, the consent freeze, the policy
	// (internal/admission).
	Admission *admission.Chain
	// Takeover is who drives the desktop: the agents, or the operator who took control from
	// the console (internal/takeover).
	Takeover *takeover.Control
	// Provision starts isolated instances; nil unless the operator allowed provisioning.
	Provision *provision.Manager
	// Control is the operator's local control socket; operator-only operations register on it.
	Control *control.Server
	// Consent asks the operator for gated commands (request-command-access) and freezes
	// actuation while a question is open.
	Consent *consent.Broker
	// Console is the operator console; nil unless Config.Console asked for it.
	Console *console.Server

	log      *slog.Logger
	env      []string
	mu       sync.Mutex
	launched []*procgroup.Proc // owned programs, stopped by PID at Close
	closed   bool
	startup  startupApps // the --launch programs readiness waits for (ready.go)

	recordings *screencast.Manager // the record tool's slot; stopped (GIF written) before the desktop closes

	// Stop is the operator's emergency stop (internal/estop, wired in estop.go).
	Stop         *estop.Latch
	stopListener *estop.Listener // the hotkey; nil when unavailable

	stopConsentScreen func()        // the on-screen consent prompter (consentscreen.go); nil when not running
	opGate            *operatorGate // the input gate as the operator's take-over holds it (takeover.go)
}

// Start assembles the daemon. On error, everything it started is stopped again.
func Start(ctx context.Context, cfg Config) (_ *Daemon, err error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// On an attached desktop programs get the user's environment with the toolkit switches on
	// (only theirs: the user's own settings stay as they are).
	d := &Daemon{log: log, env: a11yenv.Env(os.Environ())}
	defer func() {
		if err != nil {
			d.Close()
		}
	}()

	bus := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
	var display, wayland, sway string // the X display, or a Wayland desktop's sockets
	var kwin, gnome bool              // the Wayland compositor is KWin or GNOME Shell, on the session bus
	var toplevels bool                // another wlroots compositor, through its protocols alone
	var kwinConfig string             // a private KWin's configuration directory
	var at linux.Config
	attach := false
	if cfg.Desktop == nil && !cfg.Headless {
		var note string
		if at, attach, note, err = linux.Session(os.Getenv, linux.CompositorProgram); err != nil {
			return nil, err
		}
		if note != "" {
			log.Warn(note)
		}
	}
	switch {
	case cfg.Desktop != nil:
		log.Info("serving a given desktop backend")
	case attach:
		display, wayland, sway, kwin, gnome, toplevels = at.Display, at.Wayland, at.Sway, at.KWin, at.GNOME, at.Toplevels
		if sway != "" || toplevels {
			// Java programs mcec starts under the session's Xwayland (headless.WithNonReparentingWM).
			d.env = headless.WithNonReparentingWM(d.env)
		}
		log.Info("attached to the existing desktop", "display", display, "wayland", wayland)
	default:
		opts := cfg.Screen
		opts.Logger = log
		d.Private, err = headless.Start(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("start the private desktop: %w", err)
		}
		display, bus, d.env = d.Private.Display(), d.Private.DBusAddress(), d.Private.Env()
		wayland, sway = d.Private.WaylandSocket(), d.Private.SwaySocket()
		kwin, gnome = d.Private.Kind() == headless.KWin, d.Private.Kind() == headless.GNOME
		toplevels = d.Private.Kind() == headless.Phoc
		if kwin {
			kwinConfig = d.Private.ConfigHome()
		}
		log.Info("private desktop started", "kind", d.Private.Kind(), "display", display, "wayland", wayland)
	}

	if cfg.WaylandToplevels && sway != "" {
		sway, toplevels = "", true
		log.Info("windows through wlr-foreign-toplevel alone, as on a wlroots compositor without sway's IPC")
	}
	if d.Desktop = cfg.Desktop; d.Desktop == nil {
		// Through a variable of its own: a failed Open's nil *linux.Desktop in the interface
		// would be closed by the cleanup above.
		desk, err := linux.Open(ctx, linux.Config{Display: display, Wayland: wayland, Sway: sway, KWin: kwin, GNOME: gnome, Toplevels: toplevels,
			KWinConfig: kwinConfig, DBusAddress: bus, Logger: log})
		if err != nil {
			return nil, err
		}
		d.Desktop = desk
	}
	dir := cfg.SessionsDir
	if dir == "" {
		dir = DefaultSessionsDir()
	}
	d.Sessions = session.NewStore(session.Options{Root: dir, RolloverCalls: session.DefaultRolloverCalls})
	cat := catalog.New()
	d.recordings = screencast.NewManager(screencast.DefaultLimits)
	// The stop first: the input gate's holds run under it.
	d.Stop = d.newEmergencyStop()
	d.Gate = inputgate.New(d.Desktop.Input(), d.Stop)
	d.Policy = safety.NewPolicy(cfg.Safety, d.Private != nil, log)
	d.Policy.SetLiveSessions(d.Sessions.IsLive) // grants for one session end with it
	d.Consent = consent.New(consent.Options{Commands: consentCommands{d}, Gate: d.Gate, Timeout: cfg.ConsentTimeout,
		ViaClient: cfg.Safety.ConsentViaClient, Log: log})
	if cfg.Safety.Provisioning {
		popt := cfg.Provision
		popt.Log = log
		if popt.SessionsDir == "" {
			popt.SessionsDir = dir
		}
		// An operator who watches this server's desktop watches the instances its agents
		// provision too: each gets a console, which this one's lists and opens.
		popt.Console = popt.Console || cfg.Console != ""
		if d.Provision, err = provision.NewManager(popt); err != nil {
			return nil, err
		}
	}
	d.opGate = &operatorGate{gate: d.Gate, stop: d.Stop}
	d.Takeover = takeover.New(d.opGate, log, func(st takeover.Status) {
		event := evidence.EventHandBack
		if st.Holder == takeover.Operator {
			event = evidence.EventTakeControl
		}
		d.recordOperator(event, st.How)
	})
	d.Admission = admission.New(d.Stop, d.Policy, d.Takeover, d.Consent)
	d.Commands = d.newCommands(cfg.Commands, d.Gate)
	env := &tools.Env{Desktop: d.Desktop, Sessions: d.Sessions, Log: log,
		Gate: d.Gate, StartProcess: d.StartProcess, Recordings: d.recordings, Commands: d.Commands,
		Access: func() tools.CommandAccess { return tools.CommandAccess(d.CommandAccess()) }, Consent: d.Consent, Stop: d.Stop, Control: d.Takeover,
		CaptureLinks: cfg.CaptureLinks}
	if d.Provision != nil { // a nil *provision.Manager in the interface would not be nil
		env.Provision = d.Provision
	}
	tools.Register(cat, env)
	d.Dispatcher = dispatch.New(cat, d.Sessions, log)
	d.Dispatcher.SetAdmission(d.Admission)
	d.Dispatcher.SetNotices(d.Takeover)
	d.Dispatcher.SetAudit(d.Policy)
	mode := "attached"
	if d.Private != nil {
		mode = "private"
	}
	d.Evidence = evidence.New(evidence.Options{Root: dir, Sessions: d.Sessions, Probe: d.Desktop,
		Version: BuildVersion(), Desktop: mode, Retention: cfg.Retention, Log: log,
		WithholdTypedText: cfg.Safety.WithholdTypedText})
	d.Dispatcher.SetObserver(d.Evidence)
	if cfg.Safety.KeepFrames {
		d.Dispatcher.SetFramer(evidenceFrames{d.Desktop})
	}
	d.Commands.Start(dispatchTools{d.Dispatcher})
	if d.Control, err = control.Listen(cfg.ControlSocket, log); err != nil {
		return nil, err
	}
	log.Info("operator control socket", "path", d.Control.Path())
	d.Consent.Serve(d.Control)
	if !cfg.NoConsentDialog {
		d.startConsentScreen(display)
	}
	if err = d.wireEmergencyStop(ctx, cfg.Safety.EmergencyStop, display, cfg.Safety.PhysicalTakeover); err != nil {
		return nil, err
	}
	if err = d.startConsole(cfg); err != nil {
		return nil, err
	}

	for _, argv := range cfg.Launch {
		if err := d.launch(argv); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// DefaultSessionsDir is $XDG_STATE_HOME/mcec/sessions, or ~/.local/state/mcec/sessions.
func DefaultSessionsDir() string { return paths.State("sessions") }

// MCPServer builds an MCP server over the daemon's dispatcher, served on the named transport
// ("stdio", "http"; the name appears in the audit log).
func (d *Daemon) MCPServer(transportName string) *mcp.Server {
	return transport.NewMCPServer(d.Dispatcher, transport.ServerInfo{
		Name: "mcec", Version: BuildVersion(), Instructions: agentguide.Text + "\n" + d.CommandAccess().Markdown(), Logger: d.log,
		Transport: transportName, ConsoleURL: d.consolePage})
}

// consolePage is the operator console's page (no credential), "" when it serves none.
func (d *Daemon) consolePage() string {
	if d.Console == nil {
		return ""
	}
	return d.Console.PageURL()
}

// CommandAccess reports which tools and raw commands the agent may use now, from the live
// catalog and command table.
func (d *Daemon) CommandAccess() safety.CommandAccess {
	return d.Policy.Access(d.Dispatcher.Catalog().Names(), d.Commands.Table().Entries())
}

// Env is the environment for programs run inside the desktop.
func (d *Daemon) Env() []string { return d.env }

// launch starts an operator-requested program (--launch) inside the desktop.
func (d *Daemon) launch(argv []string) error {
	if len(argv) == 0 {
		return errors.New("launch: empty command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if _, err := d.startProcess(cmd, true); err != nil {
		return fmt.Errorf("launch %s: %w", argv[0], err)
	}
	d.startup.add(argv[0], cmd.Process.Pid)
	return nil
}

// StartProcess starts cmd inside the desktop: with the desktop's environment (unless cmd.Env is
// set), every toolkit's accessibility switched on for it (a11yenv: its environment, and
// Chromium's renderer flag in its arguments), and in a process group of its own. Programs
// started in a private desktop belong to it and are stopped by PID at Close; on an attached
// desktop they are the user's and outlive mcec. The channel yields the exit status once the
// process has been reaped.
func (d *Daemon) StartProcess(cmd *exec.Cmd) (<-chan error, error) {
	return d.startProcess(cmd, d.Private != nil)
}

// startProcess starts cmd; owned processes are stopped at Close.
func (d *Daemon) startProcess(cmd *exec.Cmd, owned bool) (<-chan error, error) {
	env := cmd.Env
	if env == nil {
		env = d.env
	}
	cmd.Env, cmd.Args = a11yenv.For(env, cmd.Path, cmd.Args)
	var deathSig syscall.Signal // the user's programs outlive mcec
	if owned {
		deathSig = syscall.SIGTERM
	}
	var (
		tail      *stderrTail
		tailWrite *os.File
	)
	if owned && cmd.Stderr == nil {
		if t, w, err := newStderrTail(); err == nil {
			tail, tailWrite, cmd.Stderr = t, w, w
		}
	}
	p, err := procgroup.Start(cmd, deathSig)
	if tailWrite != nil {
		tailWrite.Close() // the program holds its own copy; the tail ends when every holder exits
	}
	if err != nil {
		return nil, err
	}
	d.log.Info("started", "program", cmd.Path, "pid", p.PID)
	exited := make(chan error, 1)
	go func() {
		err := p.Wait()
		if err != nil && tail != nil {
			err = tail.annotate(err)
		}
		exited <- err
	}()
	if owned {
		d.mu.Lock()
		d.launched = append(d.launched, p)
		d.mu.Unlock()
	}
	return exited, nil
}

// shutdownDrain bounds how long Close waits for the calls in flight to return.
const shutdownDrain = 5 * time.Second

// Close stops launched programs by PID, closes the backend and stops the private desktop.
// It is idempotent.
func (d *Daemon) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	launched := d.launched
	d.mu.Unlock()

	var errs []error
	if d.Dispatcher != nil {
		// Calls still running end first, with server-shutting-down as their answer, not with
		// whatever closing the desktop under them would make them say.
		ctx, cancel := context.WithTimeout(context.Background(), shutdownDrain)
		_ = d.Dispatcher.Shutdown(ctx)
		cancel()
	}
	if d.Control != nil {
		errs = append(errs, d.Control.Close())
	}
	if d.Console != nil {
		errs = append(errs, d.Console.Close())
	}
	if d.Takeover != nil {
		d.Takeover.HandBack("server closing") // frees the input gate for the clean-up below
	}
	if d.Provision != nil {
		errs = append(errs, d.Provision.Close()) // instances die with the server that provisioned them
	}
	errs = append(errs, d.stopListener.Close())
	if d.stopConsentScreen != nil {
		d.stopConsentScreen() // the dialog closes before the display connection does
	}
	for _, p := range launched {
		p.Stop(launchedGrace)
	}
	if d.recordings != nil {
		d.recordings.Close()
	}
	if d.Commands != nil {
		errs = append(errs, d.Commands.Close()) // releases held keys while the desktop is still there
	}
	if d.Evidence != nil {
		errs = append(errs, d.Evidence.Close()) // its environment probes use the desktop
	}
	if d.Desktop != nil {
		errs = append(errs, d.Desktop.Close())
	}
	if d.Private != nil {
		errs = append(errs, d.Private.Stop())
	}
	return errors.Join(errs...)
}

// launchedGrace is how long a launched program's group has between SIGTERM and SIGKILL at Close.
const launchedGrace = 2 * time.Second
