// Package cli is mcec's command line: one file per command. Commands parse flags and call into
// the daemon and transports; they hold no desktop logic of their own.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcec/mcec/internal/console"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/headless"
	"github.com/mcec/mcec/internal/heldinput"
	"github.com/mcec/mcec/internal/provision"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // the command ran and failed (mcec call: the envelope says ok:false)
	exitUsage   = 2
)

// usageError marks errors that are the caller's wording, not a failure of the work.
type usageError struct{ error }

// exitError carries a specific exit code out of a command.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// streams are the command's standard streams, injected so commands are testable.
type streams struct {
	in       io.Reader
	out, err io.Writer
}

// globalOptions are the flags every command shares.
type globalOptions struct {
	headless    bool
	screen      string
	desktop     string // --desktop: the kind of private desktop
	noGLX       bool
	xwayland    bool
	sessionsDir string
	logLevel    string
	commands    string // the raw commands file (commands.toml)
	launch      []string
	noDialog    bool   // --no-consent-dialog
	links       bool   // --capture-links
	console     string // the operator console's address (serve --console); "" for none
	controlPath string // the control socket's path (serve --control-socket); "" picks one
	// consoleKey, consoleHosts and consolePeers: serve's console beyond loopback (consolekey.go).
	consoleKey   []byte
	consoleHosts []string
	consolePeers []console.Peer
	retention    retentionFlags // --sessions-max-age, --sessions-max-bytes (retention.go)
	safety       safetyFlags    // --config, --allow-agent, --allow-all (safety.go)

	provisionWarm int // --provision-warm: instances the provisioning manager keeps started ahead
}

// Main runs mcec with args and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCmd(&streams{in: stdin, out: stdout, err: stderr})
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	var ee exitError
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "mcec:", err)
		return exitUsage
	case isCobraUsage(err):
		fmt.Fprintln(stderr, "mcec:", err)
		return exitUsage
	default:
		fmt.Fprintln(stderr, "mcec:", err)
		return exitFailure
	}
}

// isCobraUsage recognises cobra's own flag and argument errors, which it returns untyped.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "flag needs an argument",
		"invalid argument", "accepts ", "requires at least", "requires at most"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

func newRootCmd(st *streams) *cobra.Command {
	g := &globalOptions{}
	root := &cobra.Command{
		Use:   "mcec",
		Short: "Eyes and hands on a Linux desktop (X11, or Wayland with sway) for AI agents, over MCP and HTTP",
		Long: `mcec serves desktop tools (windows, accessibility trees, captures, displays, sessions) to AI
agents over the Model Context Protocol (stdio or HTTP) and a plain HTTP façade. Every tool answers
with one JSON envelope: {sessionId, ok, result | error, warnings}.

Without DISPLAY or WAYLAND_DISPLAY (or with --headless) mcec starts its own private headless
desktop (Xvfb, D-Bus, AT-SPI, openbox; with --desktop wayland headless sway, kwin KDE's KWin, gnome GNOME Shell, phoc Phosh's
compositor instead) and stops it on exit. In a Wayland session (sway, KDE Plasma, GNOME, other wlroots compositors) it attaches
to the compositor.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	pf := root.PersistentFlags()
	pf.BoolVar(&g.headless, "headless", false, "start a private headless desktop even when DISPLAY is set")
	pf.StringVar(&g.screen, "screen", "1280x800x24", "geometry of the private desktop, WxHxDEPTH")
	pf.StringVar(&g.desktop, "desktop", envOr("MCEC_DESKTOP", "x11"), "kind of private desktop: x11 (Xvfb and openbox), wayland (headless sway), kwin (KDE's KWin on its virtual backend), gnome (GNOME Shell headless, with mcec's extension) or phoc (Phosh's wlroots compositor, driven as compositors without sway's IPC are); on all but x11 apps run natively on Wayland (env MCEC_DESKTOP)")
	pf.BoolVar(&g.xwayland, "xwayland", os.Getenv("MCEC_XWAYLAND") == "1", "on a private Wayland desktop (--desktop wayland), start Xwayland too: programs that speak only X11 run there, DISPLAY names it (env MCEC_XWAYLAND=1)")
	pf.BoolVar(&g.noGLX, "no-glx", false, "start the private desktop's X server without GLX: about 40 MB less resident memory per desktop, for apps that need no OpenGL (docs/scale.md)")
	pf.IntVar(&g.provisionWarm, "provision-warm", 0, "with --allow-provisioning: keep this many instances started ahead, so provision-session answers at once (each costs an idle instance's memory; docs/scale.md)")
	pf.StringVar(&g.sessionsDir, "sessions-dir", envOr("MCEC_SESSIONS_DIR", ""), "directory for session artifacts (default $XDG_STATE_HOME/mcec/sessions; env MCEC_SESSIONS_DIR)")
	pf.StringVar(&g.commands, "commands", envOr("MCEC_COMMANDS", ""), "raw commands file, reloaded when it changes (default $XDG_CONFIG_HOME/mcec/commands.toml; env MCEC_COMMANDS)")
	pf.StringVar(&g.logLevel, "log-level", envOr("MCEC_LOG_LEVEL", "info"), "log level: debug, info, warn, error (logs go to stderr, never stdout)")
	g.retention.register(pf)
	g.safety.register(pf)
	pf.BoolVar(&g.links, "capture-links", false, "capture answers MCP clients with a resource_link to the saved PNG (read with resources/read) instead of inline base64, unless a call passes link:false")
	pf.BoolVar(&g.noDialog, "no-consent-dialog", false, "on an attached desktop, do not show consent requests as an on-screen dialog; only `mcec consent` answers")
	pf.StringArrayVar(&g.launch, "launch", nil, "program to start inside the desktop at start-up, e.g. --launch gtk3-widget-factory (repeatable; split on spaces)")
	root.AddCommand(newMCPCmd(g, st), newServeCmd(g, st), newCallCmd(g, st), newDesktopCmd(g, st),
		newDoctorCmd(g, st), newAgentGuideCmd(st), newVersionCmd(st), newBundleCmd(g, st), newViewCmd(g, st), newReplayCmd(g, st), newConsentCmd(st),
		newRearmCmd(st), newEmergencyStopCmd(st), newConsoleURLCmd(st), newConsoleKeyCmd(st), newSetupCmd(st))
	return root
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// logger builds the stderr logger at the configured level.
func (g *globalOptions) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(g.logLevel)); err != nil {
		return nil, usageError{fmt.Errorf("--log-level: %w", err)}
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})), nil
}

// daemonConfig turns the global flags into the daemon's configuration.
func (g *globalOptions) daemonConfig(log *slog.Logger) (daemon.Config, error) {
	var w, h, depth int
	if _, err := fmt.Sscanf(g.screen, "%dx%dx%d", &w, &h, &depth); err != nil || w < 64 || h < 64 || w > 16384 || h > 16384 {
		return daemon.Config{}, usageError{fmt.Errorf("--screen %q: want WxHxDEPTH, e.g. 1280x800x24", g.screen)}
	}
	kind, err := headless.ParseKind(g.desktop)
	if err != nil {
		return daemon.Config{}, usageError{fmt.Errorf("--desktop: %w", err)}
	}
	cfg := daemon.Config{Headless: g.headless, SessionsDir: g.sessionsDir, Logger: log, Console: g.console, ControlSocket: g.controlPath,
		ConsoleKeySHA256: g.consoleKey, ConsoleHostNames: g.consoleHosts, ConsolePeers: g.consolePeers,
		Screen: headless.Options{Kind: kind, Width: w, Height: h, Depth: depth, NoGLX: g.noGLX, XWayland: g.xwayland}}
	if g.xwayland && kind != headless.Wayland {
		return daemon.Config{}, usageError{fmt.Errorf("--xwayland: only with --desktop wayland (the private sway desktop)")}
	}
	if g.provisionWarm < 0 || g.provisionWarm > provision.DefaultMaxInstances {
		return daemon.Config{}, usageError{fmt.Errorf("--provision-warm %d: want 0-%d", g.provisionWarm, provision.DefaultMaxInstances)}
	}
	cfg.Provision.Warm = g.provisionWarm
	// Instances are desktops like this one.
	if g.noGLX {
		cfg.Provision.ServeArgs = append(cfg.Provision.ServeArgs, "--no-glx")
	}
	if kind != headless.X11 {
		cfg.Provision.ServeArgs = append(cfg.Provision.ServeArgs, "--desktop", string(kind))
	}
	if g.xwayland {
		cfg.Provision.ServeArgs = append(cfg.Provision.ServeArgs, "--xwayland")
	}
	cfg.Commands.File = g.commands
	cfg.NoConsentDialog = g.noDialog
	switch v := os.Getenv("MCEC_WAYLAND_WINDOWS"); v {
	case "", "auto":
	case "foreign-toplevel":
		cfg.WaylandToplevels = true
	default:
		return daemon.Config{}, usageError{fmt.Errorf("MCEC_WAYLAND_WINDOWS=%q: want foreign-toplevel or auto", v)}
	}
	cfg.CaptureLinks = g.links
	ret, err := g.retention.value()
	if err != nil {
		return daemon.Config{}, err
	}
	cfg.Retention = ret
	if cfg.Safety, err = g.safety.settings(); err != nil {
		return daemon.Config{}, err
	}
	for _, l := range g.launch {
		if argv := strings.Fields(l); len(argv) > 0 {
			cfg.Launch = append(cfg.Launch, argv)
		}
	}
	return cfg, nil
}

// privateDesktop is the private desktop's options from the global flags (all of them checked,
// as for the daemon), logging to logTo.
func (g *globalOptions) privateDesktop(logTo io.Writer) (headless.Options, error) {
	log, err := g.logger(logTo)
	if err != nil {
		return headless.Options{}, err
	}
	cfg, err := g.daemonConfig(log)
	if err != nil {
		return headless.Options{}, err
	}
	opts := cfg.Screen
	opts.Logger = log
	return opts, nil
}

// sessionsRoot is --sessions-dir, or the daemon's default.
func (g *globalOptions) sessionsRoot() string {
	if g.sessionsDir != "" {
		return g.sessionsDir
	}
	return daemon.DefaultSessionsDir()
}

// quietByDefault lowers the log level to warn unless --log-level or MCEC_LOG_LEVEL set it: a
// command run from a shell wants its output, not the desktop's start-up chatter.
func (g *globalOptions) quietByDefault(cmd *cobra.Command) {
	if !cmd.Flags().Changed("log-level") && os.Getenv("MCEC_LOG_LEVEL") == "" {
		g.logLevel = "warn"
	}
}

// startDaemon builds the logger and the daemon from the global flags.
func (g *globalOptions) startDaemon(ctx context.Context, logTo io.Writer) (*daemon.Daemon, *slog.Logger, error) {
	log, err := g.logger(logTo)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := g.daemonConfig(log)
	if err != nil {
		return nil, nil, err
	}
	d, err := daemon.Start(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	if d.Private == nil {
		releaseHeldInput(ctx, os.Getenv("DISPLAY"), log)
	}
	return d, log, nil
}

// releaseHeldInput lifts the keys and buttons an XTEST client left down on an attached desktop
// (an mcec killed while the line protocol held shiftdown: or a button): the X server keeps them
// down after the client is gone. A private desktop is new, with nothing held.
func releaseHeldInput(ctx context.Context, display string, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	held, err := heldinput.Release(ctx, display)
	switch {
	case err != nil:
		log.Debug("cannot check for input an earlier XTEST client left held", "err", err)
	case !held.Empty():
		log.Warn("released keys and buttons an earlier XTEST client (a killed mcec?) left held down",
			"keycodes", held.Keys, "buttons", held.Buttons)
	}
}
