package cli

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/mcec/mcec/internal/doctor"
	"github.com/mcec/mcec/internal/headless"
	"github.com/mcec/mcec/internal/platform/linux"
)

func newDoctorCmd(g *globalOptions, st *streams) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check that mcec can see and drive the desktop, and say how to fix what is missing",
		Long: `Check the programs of the private desktop, the display, the X extensions mcec uses (XTEST,
Composite, MIT-SHM, RANDR), the window manager, the accessibility bus (and org.a11y.Status's
IsEnabled and ScreenReaderEnabled), the applications registered on it, and every window's tree:
which windows have none or only a skeleton, why (no bridge, accessibility switched off, still
registering), and the fix. In a Wayland session (sway, KDE Plasma, GNOME, another wlroots
compositor) it checks the compositor, what it lets mcec do and the protocols mcec uses instead of
X. Without DISPLAY or WAYLAND_DISPLAY, or with --headless, it checks a private desktop it starts
for the purpose (--desktop wayland: a Wayland one; --desktop kwin, gnome or phoc: KDE's, GNOME's
or Phosh's compositor). Exit 1 when a check fails.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			target := doctor.Target{}
			session, attach, note, serr := linux.Session(os.Getenv, linux.CompositorProgram)
			switch {
			case !g.headless && serr != nil:
				// A Wayland session mcec cannot drive: the compositor check says so.
				target.Wayland = os.Getenv("WAYLAND_DISPLAY")
			case !g.headless && attach:
				target = doctor.Target{Display: session.Display, Wayland: session.Wayland, Sway: session.Sway, KWin: session.KWin, GNOME: session.GNOME,
					Toplevels: session.Toplevels}
				if note != "" {
					fmt.Fprintln(st.err, "note:", note)
				}
			default:
				opts, err := g.privateDesktop(st.err)
				if err != nil {
					return err
				}
				target = doctor.Target{Private: true, Kind: opts.Kind}
				if len(headless.MissingFor(opts.Kind)) == 0 {
					d, err := headless.Start(cmd.Context(), opts)
					if err != nil {
						return fmt.Errorf("start a private desktop to check: %w", err)
					}
					defer d.Stop()
					target.Display, target.Wayland, target.Sway, target.DBusAddress = d.Display(), d.WaylandSocket(), d.SwaySocket(), d.DBusAddress()
				}
			}
			if os.Getenv("MCEC_WAYLAND_WINDOWS") == "foreign-toplevel" && target.Sway != "" {
				// As the daemon would drive it (daemon.Config.WaylandToplevels).
				target.Sway, target.Toplevels = "", true
			}
			r := doctor.Run(cmd.Context(), target)
			if asJSON {
				b, _ := json.MarshalIndent(r, "", "  ")
				fmt.Fprintln(st.out, string(b))
			} else {
				printReport(st, r)
			}
			if r.Failed() {
				return exitError{exitFailure}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

func printReport(st *streams, r doctor.Report) {
	marks := map[doctor.Status]string{doctor.OK: "ok  ", doctor.Warn: "WARN", doctor.Fail: "FAIL", doctor.Skip: "skip"}
	for _, c := range r.Checks {
		fmt.Fprintf(st.out, "%s  %-18s %s\n", marks[c.Status], c.Name, c.Detail)
		if c.Fix != "" && c.Status != doctor.OK {
			fmt.Fprintf(st.out, "      %-18s fix: %s\n", "", c.Fix)
		}
	}
}
