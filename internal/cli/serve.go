package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/mcec/mcec/internal/console"
	"github.com/mcec/mcec/internal/control"
	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/provision"
	"github.com/mcec/mcec/internal/transport"
)

type serveOptions struct {
	port    int
	bind    string
	token   string // --token, else MCEC_TOKEN, else made up at start (token.go)
	noToken bool   // --no-token: serve loopback without one
	// The raw-command line protocol (serve_tcp.go).
	tcp     bool
	tcpPort int
	tcpBind string
	readyFD int // --ready-fd (ready.go): report the bound port to a provisioning server
	// hostNames are DNS names clients may put in Host (a pod's and its Services' names).
	hostNames []string
	// The operator console (internal/console; consolekey.go).
	console        bool
	consolePort    int
	consoleBind    string
	consoleKeyFile string
	consolePeers   []string
}

func newServeCmd(g *globalOptions, st *streams) *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve MCP streamable HTTP at /mcp and the façade at POST /v1/tools/{tool}",
		Long: `Serve over HTTP on 127.0.0.1:5151: MCP streamable HTTP at POST /mcp, and the plain façade
POST /v1/tools/{tool} whose body is the tool's arguments and whose response is the envelope
(HTTP 200 whatever ok says). Only loopback addresses are accepted.

HTTP clients present a bearer token. Unless one is given (--token, MCEC_TOKEN), mcec makes one up
at start, shows it once on stderr and writes it to token-PORT in its runtime directory
($XDG_RUNTIME_DIR/mcec, else <tmp>/mcec-<uid>; readable by this user only, removed at exit), where
mcec call and mcec mcp --server find it. --no-token serves loopback without one.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Flags win over MCEC_TOKEN, which no program the server starts inherits.
			fromEnv := takeEnvToken()
			switch {
			case o.noToken && cmd.Flags().Changed("token"):
				return usageError{errors.New("--no-token and --token contradict each other")}
			case !o.noToken && !cmd.Flags().Changed("token"):
				o.token = fromEnv
			}
			return serveRun(cmd.Context(), g, st, o)
		},
	}
	cmd.Flags().IntVar(&o.port, "port", 5151, "TCP port")
	cmd.Flags().StringVar(&o.bind, "bind", "127.0.0.1", "address to bind; anything but loopback needs --token")
	cmd.Flags().StringVar(&o.token, "token", "", "bearer token HTTP clients must present (env MCEC_TOKEN; default: made up at start)")
	cmd.Flags().BoolVar(&o.noToken, "no-token", false, "serve HTTP without a bearer token: any local user may then call tools (loopback only)")
	boolVar(cmd.Flags(), &g.safety.tcp, "tcp", "also serve the raw-command line protocol over TCP (env MCEC_TCP, [tcp] in config.toml; docs/raw-commands.md)")
	cmd.Flags().IntVar(&o.tcpPort, "tcp-port", 5150, "TCP port of the line protocol (with --tcp)")
	cmd.Flags().StringVar(&o.tcpBind, "tcp-bind", "127.0.0.1", "address of the line protocol (loopback only)")
	cmd.Flags().BoolVar(&o.console, "console", false, "also serve the operator console (watch the desktop and the calls, Stop and Re-arm, answer consent questions and revoke grants, take control and drive the desktop, hand back, open the consoles of provisioned instances) on --console-bind:--console-port; log in with the link printed at start or by mcec console-url, or with the operator key")
	cmd.Flags().IntVar(&o.consolePort, "console-port", envInt("MCEC_CONSOLE_PORT", console.DefaultPort), "TCP port of the operator console (with --console; env MCEC_CONSOLE_PORT)")
	cmd.Flags().StringVar(&o.consoleBind, "console-bind", envOr("MCEC_CONSOLE_BIND", "127.0.0.1"), "address of the operator console; anything but loopback needs --console-key-sha256-file (env MCEC_CONSOLE_BIND)")
	cmd.Flags().StringVar(&o.consoleKeyFile, "console-key-sha256-file", os.Getenv("MCEC_CONSOLE_KEY_SHA256_FILE"), "a file holding the hex SHA-256 of an operator key that logs in to the console through a form, as well as the one-time links (mcec console-key makes a pair; env MCEC_CONSOLE_KEY_SHA256_FILE)")
	cmd.Flags().StringSliceVar(&o.consolePeers, "console-peer", splitList(os.Getenv("MCEC_CONSOLE_PEERS")), "NAME=URL of another console the fleet panel links to (repeatable or comma-separated; env MCEC_CONSOLE_PEERS)")
	cmd.Flags().IntVar(&o.readyFD, "ready-fd", 0, "write {\"port\":N} to this inherited descriptor once listening (used by provision-session)")
	_ = cmd.Flags().MarkHidden("ready-fd")
	cmd.Flags().StringVar(&g.controlPath, "control-socket", "", "listen for the operator's commands on this socket (used by provision-session: an instance's socket lives in its directory, so mcec rearm finds only the operator's own servers)")
	_ = cmd.Flags().MarkHidden("control-socket")
	cmd.Flags().StringSliceVar(&o.hostNames, "host-name", splitList(os.Getenv("MCEC_HOST_NAMES")),
		"a DNS name clients reach this server by, accepted in Host like its addresses (repeatable or comma-separated; env MCEC_HOST_NAMES)")
	return cmd
}

func serveRun(ctx context.Context, g *globalOptions, st *streams, o *serveOptions) error {
	if o.port < 0 || o.port > 65535 {
		return usageError{fmt.Errorf("--port %d: want 0-65535", o.port)}
	}
	addr, err := parseBind("--bind", o.bind)
	if err != nil {
		return err
	}
	if !addr.IsLoopback() && o.token == "" {
		// A made-up token would only be shown on this terminal: the network's clients need one
		// the operator chose and handed out.
		return usageError{fmt.Errorf("--bind %s is not a loopback address: refusing to serve the network without --token (or MCEC_TOKEN)", addr)}
	}
	ready, err := openReadyFD(o.readyFD)
	if err != nil {
		return err
	}
	defer ready.close()
	gates, err := g.safety.settings()
	if err != nil {
		return err
	}
	if !gates.HTTP && !gates.TCP {
		return usageError{errors.New("the HTTP listener is switched off ([http] enabled = false or MCEC_HTTP=false) and the line protocol is not on (--tcp); use mcec mcp for stdio")}
	}
	o.tcp = gates.TCP
	if err := o.checkTCPFlags(); err != nil {
		return err
	}
	if o.console {
		if o.consolePort < 0 || o.consolePort > 65535 {
			return usageError{fmt.Errorf("--console-port %d: want 0-65535", o.consolePort)}
		}
		if err := o.consoleAccess(g); err != nil {
			return err
		}
	}
	ctx, exit := context.WithCancel(ctx) // mcec:exit on the line protocol ends the server cleanly
	defer exit()
	d, log, err := g.startDaemon(ctx, st.err)
	if err != nil {
		return err
	}
	defer d.Close()
	switch {
	case d.Console != nil && o.readyFD > 0:
		// A provisioned instance: its stderr is a log file, and the link must be in no file an
		// agent's process could read. The provisioning server's console mints one when asked.
		fmt.Fprintf(st.err, "mcec: operator console at %s; open it from the provisioning server's console\n", d.Console.PageURL())
	case d.Console != nil && d.Console.KeyLogin():
		// With an operator key, stderr is often a pod's log, which others read: no link in it.
		fmt.Fprintf(st.err, "mcec: operator console at %s (bound to %s); log in with the operator key at %slogin\n",
			d.Console.PageURL(), d.Console.Addr(), d.Console.PageURL())
	case d.Console != nil:
		// The terminal is the operator's; the link is in no file an agent's process could read.
		fmt.Fprintf(st.err, "mcec: operator console at %s (bound to %s); log in (once, within 5 minutes) at %s\n",
			d.Console.PageURL(), d.Console.Addr(), d.Console.LoginURL())
	}
	stopLines, err := startLineServer(d, o, log, st.err, exit)
	if err != nil {
		return err
	}
	defer stopLines()
	if !gates.HTTP {
		// The operator switched HTTP off but asked for the line protocol: serve only that.
		fmt.Fprintln(st.err, "mcec: the HTTP listener is switched off; serving the line protocol only")
		<-ctx.Done()
		return nil
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(addr.String(), strconv.Itoa(o.port)))
	if err != nil {
		return err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	token, unpublish := o.serverToken(port, log, st.err)
	defer unpublish()
	door := transport.FrontDoor{Port: port, Bind: addr, Token: token, Log: log}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(st.err, "mcec: serving MCP at %s/mcp and the façade at %s/v1/tools/{tool}\n", base, base)
	if d.Private != nil {
		where := "DISPLAY=" + d.Private.Display()
		if sock := d.Private.WaylandSocket(); sock != "" {
			where = "WAYLAND_DISPLAY=" + sock
		}
		fmt.Fprintf(st.err, "mcec: private desktop on %s; try: mcec call --server %s windows\n", where, base)
	}
	return serveHTTP(ctx, d.Dispatcher, func() *mcp.Server { return d.MCPServer("http") }, ln,
		transport.HTTPOptions{Door: door, Log: log, Ready: d.Ready, HostNames: o.hostNames}, func() error {
			report := provision.Ready{Port: door.Port}
			if d.Console != nil {
				// The provisioning server's console opens this one's through the control socket.
				report.ConsolePort = d.Console.Port()
				report.Control = d.Control.Path()
			}
			if err := ready.report(report); err != nil {
				return fmt.Errorf("--ready-fd: %w", err)
			}
			return nil
		})
}

// serveHTTP serves the HTTP transport on ln until ctx ends (a signal, mcec:exit), then stops
// it (stopHTTP). listening runs once the server accepts connections.
func serveHTTP(ctx context.Context, d *dispatch.Dispatcher, newServer func() *mcp.Server, ln net.Listener,
	opts transport.HTTPOptions, listening func() error) error {
	srv := transport.NewHTTPServer(d, newServer, opts)
	// Requests outlive the signal until their answers are written (stopHTTP); this context ends
	// whatever is left after that.
	reqCtx, endRequests := context.WithCancel(context.WithoutCancel(ctx))
	defer endRequests()
	srv.BaseContext = func(net.Listener) context.Context { return reqCtx }
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if err := listening(); err != nil {
		_ = srv.Close()
		return err
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	return stopHTTP(d, srv)
}

// shutdownLimit bounds each step of a shutdown: the calls in flight answering, then the HTTP
// server closing.
const shutdownLimit = 5 * time.Second

// stopHTTP ends the calls in flight first, so each answers server-shutting-down (a wait cut
// short is not a timeout) while its client is still connected, then closes the listener, the
// connections and the MCP sessions.
func stopHTTP(d *dispatch.Dispatcher, srv *http.Server) error {
	drain, cancel := context.WithTimeout(context.Background(), shutdownLimit)
	_ = d.Shutdown(drain) // past the limit, srv.Shutdown still waits its own
	cancel()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownLimit)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// splitList splits a comma-separated environment value, dropping empty entries.
// parseBind reads an address to bind: any spelling of an IP address, or localhost. Canonical
// before binding: "127.1" and "0x7f.0.0.1" are loopback, "0" is not.
func parseBind(flag, value string) (netip.Addr, error) {
	bind := value
	if strings.EqualFold(bind, "localhost") {
		bind = "127.0.0.1"
	}
	addr, err := transport.ParseAddr(bind)
	if err != nil {
		return netip.Addr{}, usageError{fmt.Errorf("%s %q: %w", flag, value, err)}
	}
	return addr, nil
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// serverToken is the bearer token the HTTP listener on port requires: the operator's, none with
// --no-token, or else a fresh one, published in the token file for this user's clients and
// shown once on w for others (the only place mcec ever writes it). unpublish removes the file.
func (o *serveOptions) serverToken(port int, log *slog.Logger, w io.Writer) (token string, unpublish func()) {
	switch {
	case o.noToken:
		fmt.Fprintln(w, "mcec: --no-token: every local user may call tools over HTTP")
		return "", func() {}
	case o.token != "":
		return o.token, func() {}
	}
	token = newToken()
	pub, err := control.PublishToken(port, token)
	where := "no token file could be written"
	if err != nil {
		log.Warn("cannot write the token file; give clients the token yourself", "err", err)
	} else {
		where = "mcec call and mcec mcp --server read it from " + pub.Path()
	}
	fmt.Fprintf(w, "mcec: HTTP clients present the header \"Authorization: Bearer %s\" (%s)\n", token, where)
	return token, pub.Remove
}
