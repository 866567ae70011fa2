package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mcec/mcec/internal/dispatch"
	"github.com/mcec/mcec/internal/evidence"
	"github.com/mcec/mcec/internal/evidence/replay"
)

type replayOptions struct {
	server string
}

func newReplayCmd(g *globalOptions, st *streams) *cobra.Command {
	o := &replayOptions{}
	cmd := &cobra.Command{
		Use:   "replay BUNDLE",
		Short: "Re-run a recorded session and report, per call, where the outcome differs (exit 1 if any)",
		Long: `Re-issue a recorded session's requests, in order, in a fresh session, and compare each call's
ok, error category and code with the recording. BUNDLE is a bundle zip, a session directory or a
session id. Window handles, process ids and element refs that differ between the runs are
remapped by matching what the recording said about them (window title and process, element role
and name).

With --server URL the calls go to that running mcec serve (its desktop; recorded launch calls
start programs there). Without it, mcec replays in-process on a private headless desktop of its
own, which it stops afterwards. Exit 0 when every call matches, 1 when any diverged, 2 on usage
errors.`,
		Example: `  mcec replay evidence.zip
  mcec replay s-4f2a0c1d9e3b --server http://127.0.0.1:5151`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			g.quietByDefault(cmd)
			return replayRun(cmd.Context(), g, st, o, args[0])
		},
	}
	cmd.Flags().StringVar(&o.server, "server", "", "URL of a running mcec serve to replay against (default: a private desktop of its own)")
	return cmd
}

func replayRun(ctx context.Context, g *globalOptions, st *streams, o *replayOptions, arg string) error {
	path, err := evidence.Locate(g.sessionsRoot(), arg)
	if err != nil {
		return usageError{err}
	}
	b, err := evidence.Open(path)
	if err != nil {
		return usageError{err}
	}
	var caller replay.Caller
	if o.server != "" {
		caller = replay.CallerFunc(func(ctx context.Context, tool string, args json.RawMessage) ([]byte, error) {
			return callServer(ctx, o.server, tool, args)
		})
	} else {
		g.headless = true // a private desktop: replayed launches and clicks touch nobody's desktop
		d, _, err := g.startDaemon(ctx, st.err)
		if err != nil {
			return err
		}
		defer d.Close()
		caller = replay.CallerFunc(func(ctx context.Context, tool string, args json.RawMessage) ([]byte, error) {
			out, err := d.Dispatcher.Call(dispatch.WithTransport(ctx, "replay"), tool, args)
			if err != nil {
				return nil, err
			}
			return json.Marshal(out.Envelope)
		})
	}
	rep, err := replay.Run(ctx, b, caller)
	if err != nil {
		return err
	}
	fmt.Fprintf(st.out, "replaying %s\n\n", b.Name)
	rep.Print(st.out)
	if rep.Failed() {
		return exitError{exitFailure}
	}
	return nil
}
