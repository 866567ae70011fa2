package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcec/mcec/internal/headless"
)

func newDesktopCmd(g *globalOptions, st *streams) *cobra.Command {
	desktop := &cobra.Command{
		Use:   "desktop",
		Short: "Manage a private headless desktop",
	}
	desktop.AddCommand(&cobra.Command{
		Use:   "run -- CMD [ARGS...]",
		Short: "Run a program inside a fresh private desktop, then stop the desktop",
		Long: `Start a private desktop (Xvfb, D-Bus session bus, AT-SPI bus, openbox), run CMD inside it with
DISPLAY and DBUS_SESSION_BUS_ADDRESS set, stop everything when CMD exits, and exit with CMD's code.`,
		Example: `  mcec desktop run -- sh -c 'gtk3-widget-factory & sleep 2; xdotool search --name Factory'`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := g.privateDesktop(st.err)
			if err != nil {
				return err
			}
			code, err := headless.Run(cmd.Context(), opts, args, st.in, st.out, st.err)
			if err != nil {
				return fmt.Errorf("desktop run: %w", err)
			}
			if code != 0 {
				return exitError{code}
			}
			return nil
		},
	})
	return desktop
}
