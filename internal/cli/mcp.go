package cli

import (
	"context"
	"errors"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/transport"
)

func newMCPCmd(g *globalOptions, st *streams) *cobra.Command {
	var server string
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve MCP on stdin/stdout (newline-delimited JSON-RPC)",
		Long: `Serve MCP on stdin/stdout for an MCP client that starts mcec as a subprocess. Stdout carries only
the protocol; logs go to stderr. A malformed line gets a JSON-RPC error and the next line is served.

With --server URL (an mcec MCP endpoint such as http://127.0.0.1:5151/mcp, or the mcpEndpoint of
an instance from provision-session) mcec starts no desktop: it bridges stdio to that server,
presenting the bearer token from MCEC_TOKEN, else (for a loopback server) the token file a local
mcec serve wrote.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f, ok := st.in.(*os.File); ok && isTerminal(f) {
				return usageError{errors.New("mcec mcp speaks JSON-RPC on stdin/stdout and is meant to be started by an MCP client; " +
					"configure your client with the command `mcec mcp`, or try `mcec call windows` in a shell")}
			}
			if server != "" {
				// The token never comes as a flag: argv is visible to every user in ps.
				explicit := os.Getenv(envToken)
				// Asked for each request: a restarted server publishes a new token.
				return bridgeRun(cmd.Context(), g, st, server, func() string { return tokenFor(server, explicit) })
			}
			d, _, err := g.startDaemon(cmd.Context(), st.err)
			if err != nil {
				return err
			}
			defer d.Close()
			err = serveStdio(cmd.Context(), d.Dispatcher, d.MCPServer("stdio"), st)
			if cmd.Context().Err() != nil {
				return nil // cancellation by signal is a clean stop
			}
			return err
		},
	}
	cmd.Flags().StringVar(&server, "server", "", "bridge stdio to this mcec MCP endpoint instead of serving a desktop (token from MCEC_TOKEN or the server's token file)")
	return cmd
}

// serveStdio serves MCP on the command's stdin/stdout until the client leaves or ctx ends. On a
// signal the calls in flight end first and answer server-shutting-down; only then does the
// connection close (closing waits for those answers to be written).
func serveStdio(ctx context.Context, d *dispatch.Dispatcher, srv *mcp.Server, st *streams) error {
	serveCtx, endServe := context.WithCancel(context.WithoutCancel(ctx))
	defer endServe()
	stdio := &transport.Stdio{In: st.in, Out: st.out}
	defer context.AfterFunc(ctx, func() {
		drain, cancel := context.WithTimeout(context.Background(), shutdownLimit)
		defer cancel()
		_ = d.Shutdown(drain)
		// The calls have returned; their answers may still be on their way to the output.
		stdio.WaitAnswered(drain)
		endServe()
	})()
	return stdio.Serve(serveCtx, srv)
}

// bridgeRun serves stdio for a remote mcec (transport.Bridge).
func bridgeRun(ctx context.Context, g *globalOptions, st *streams, server string, token func() string) error {
	log, err := g.logger(st.err)
	if err != nil {
		return err
	}
	b, err := transport.DialBridge(ctx, server, token, log)
	if err != nil {
		return err
	}
	err = b.Run(ctx, &transport.Stdio{In: st.in, Out: st.out})
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
