package cli

import (
	"errors"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/mcec/mcec/internal/transport"
)

func newMCPCmd(g *globalOptions, st *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve MCP on stdin/stdout (newline-delimited JSON-RPC)",
		Long: `Serve MCP on stdin/stdout for an MCP client that starts mcec as a subprocess. Stdout carries only
the protocol; logs go to stderr. A malformed line gets a JSON-RPC error and the next line is served.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f, ok := st.in.(*os.File); ok && isTerminal(f) {
				return usageError{errors.New("mcec mcp speaks JSON-RPC on stdin/stdout and is meant to be started by an MCP client; " +
					"configure your client with the command `mcec mcp`, or try `mcec call windows` in a shell")}
			}
			d, _, err := g.startDaemon(cmd.Context(), st.err)
			if err != nil {
				return err
			}
			defer d.Close()
			err = d.MCPServer("stdio").Run(cmd.Context(), &transport.Stdio{In: st.in, Out: st.out})
			if cmd.Context().Err() != nil {
				return nil // cancellation by signal is a clean stop
			}
			return err
		},
	}
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
