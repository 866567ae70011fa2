package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcec/mcec/internal/agentguide"
	"github.com/mcec/mcec/internal/daemon"
)

func newAgentGuideCmd(st *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "agent-guide",
		Short: "Print the agent guidance that MCP initialize returns as instructions",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprint(st.out, agentguide.Text)
			return err
		},
	}
}

func newVersionCmd(st *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print mcec's version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(st.out, "mcec", daemon.BuildVersion())
			return err
		},
	}
}
