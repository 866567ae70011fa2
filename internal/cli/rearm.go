package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcec/mcec/internal/control"
	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/estop"
)

// controlLimit bounds one emergency-stop operation on the control socket.
const controlLimit = 15 * time.Second

func newRearmCmd(st *streams) *cobra.Command {
	var socket string
	cmd := &cobra.Command{
		Use:   "rearm",
		Short: "Re-arm a running mcec after its emergency stop, so tool calls are served again",
		Long: `Connect to a running mcec's control socket (owned by you, never reachable by an agent) and
re-arm its emergency stop. Until then every tool call fails emergency-stopped. Re-arming a server
that is not stopped changes nothing. The hotkey itself also re-arms: press it again (at least 2 s
after the stop) and confirm with one more press within 3 s.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return stopOp(cmd.Context(), socket, "rearm", st.out)
		},
	}
	cmd.Flags().StringVar(&socket, "socket", "", "the server's control socket (default: $"+control.EnvSocket+", or the only running server's)")
	return cmd
}

func newEmergencyStopCmd(st *streams) *cobra.Command {
	var socket string
	cmd := &cobra.Command{
		Use:   "emergency-stop",
		Short: "Stop a running mcec at once, as its hotkey does (undo with mcec rearm)",
		Long: `Trip a running mcec's emergency stop through its control socket: every tool call fails
emergency-stopped, gestures in progress abort, the raw command queue is dropped, held keys and
buttons are released and a running recording is discarded. Useful where the hotkey is unavailable
(no XInput2, or disabled in config.toml). mcec rearm restores service.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return stopOp(cmd.Context(), socket, "emergency-stop", st.out)
		},
	}
	cmd.Flags().StringVar(&socket, "socket", "", "the server's control socket (default: $"+control.EnvSocket+", or the only running server's)")
	return cmd
}

// stopOp runs one emergency-stop operation and prints the state it leaves.
func stopOp(ctx context.Context, socket, op string, out io.Writer) error {
	path, err := control.Find(socket)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, controlLimit)
	defer cancel()
	var ans daemon.StopAnswer
	if err := control.Call(ctx, path, op, nil, &ans); err != nil {
		return err
	}
	s := ans.Status
	switch {
	case op == "rearm" && ans.Rearmed:
		fmt.Fprintf(out, "mcec: re-armed; tool calls are served again (%s)\n", s.State)
	case op == "rearm":
		fmt.Fprintf(out, "mcec: not stopped; nothing to re-arm (%s)\n", s.State)
	default:
		fmt.Fprintf(out, "mcec: emergency stop is %s since %s (by %s); re-arm with mcec rearm\n",
			s.State, s.Since.Local().Format(time.TimeOnly), s.How)
	}
	if s.State == estop.Unavailable || (op == "rearm" && s.Detail != "") {
		fmt.Fprintf(out, "mcec: the hotkey is unavailable: %s\n", s.Detail)
	}
	return nil
}
