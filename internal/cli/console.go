package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/mcec/mcec/internal/control"
	"github.com/mcec/mcec/internal/daemon"
)

func newConsoleURLCmd(st *streams) *cobra.Command {
	var socket string
	cmd := &cobra.Command{
		Use:   "console-url",
		Short: "Print a one-time login link to a running mcec's operator console",
		Long: `Ask a running mcec (started with mcec serve --console) for a new login link to its operator
console, through its control socket (owned by you, never reachable by an agent). The link works
once, within five minutes, and logs that browser in for twelve hours. The console accepts no agent
token, and the agents' endpoints accept none of its cookies.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return consoleURL(cmd.Context(), socket, st.out)
		},
	}
	cmd.Flags().StringVar(&socket, "socket", "", "the server's control socket (default: $"+control.EnvSocket+", or the only running server's)")
	return cmd
}

func consoleURL(ctx context.Context, socket string, out io.Writer) error {
	path, err := control.Find(socket)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, controlLimit)
	defer cancel()
	var ans daemon.ConsoleURL
	if err := control.Call(ctx, path, "console-url", nil, &ans); err != nil {
		return err
	}
	fmt.Fprintln(out, ans.URL)
	return nil
}
