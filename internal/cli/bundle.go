package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/mcec/mcec/internal/evidence"
)

type bundleOptions struct {
	verify bool
	out    string
}

func newBundleCmd(g *globalOptions, st *streams) *cobra.Command {
	o := &bundleOptions{}
	cmd := &cobra.Command{
		Use:   "bundle SESSION",
		Short: "Zip a session's evidence directory, or check its trace's hash chain (--verify)",
		Long: `Zip a session directory (trace, session.json, environment.json, failure-summary.md and
captures) into one file to attach to an issue. SESSION is a session id (looked up under
--sessions-dir), a session directory, or (with --verify) a bundle zip.

--verify checks tool-calls.jsonl against its hash chain and the head recorded in session.json,
and exits 1 naming the first bad line. It writes no zip unless --out is given too.`,
		Example: `  mcec bundle s-4f2a0c1d9e3b
  mcec bundle ~/.local/state/mcec/sessions/20260701-101502-s-4f2a0c1d9e3b --out evidence.zip
  mcec bundle --verify evidence.zip`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return bundleRun(g, st, o, args[0]) },
	}
	cmd.Flags().BoolVar(&o.verify, "verify", false, "check the trace's hash chain and exit 1 naming the first bad line")
	cmd.Flags().StringVar(&o.out, "out", "", "zip file to write (default ./<session directory>.zip)")
	return cmd
}

func bundleRun(g *globalOptions, st *streams, o *bundleOptions, arg string) error {
	path, err := evidence.Locate(g.sessionsRoot(), arg)
	if err != nil {
		return usageError{err}
	}
	if !o.verify || o.out != "" {
		out := o.out
		if out == "" {
			out = filepath.Base(filepath.Clean(path)) + ".zip"
		}
		n, err := evidence.Zip(path, out)
		if err != nil {
			return err
		}
		fmt.Fprintf(st.out, "wrote %s (%d files)\n", out, n)
	}
	b, err := evidence.Open(path)
	if err != nil {
		if o.verify {
			return err
		}
		fmt.Fprintf(st.err, "mcec: note: %v\n", err)
		return nil
	}
	v, err := b.Verify()
	var ce *evidence.ChainError
	switch {
	case errors.As(err, &ce) && o.verify:
		fmt.Fprintf(st.out, "%s: BROKEN: %v\n", b.Name, ce)
		return exitError{exitFailure}
	case err != nil:
		fmt.Fprintf(st.err, "mcec: warning: the trace does not verify: %v\n", err)
		return nil
	}
	if o.verify {
		fmt.Fprintf(st.out, "%s: ok: %d lines, hash chain intact, head %s\n", b.Name, len(v.Lines), v.Head)
		if v.Truncated {
			fmt.Fprintln(st.out, "note: the trace reached its size cap; later calls were counted but not recorded")
		}
		if v.Beyond > 0 {
			fmt.Fprintf(st.out, "note: %d line(s) after the head session.json records (its last checkpoint: a live session, or written as the session stopped); they chain correctly\n", v.Beyond)
		}
		if v.TornBytes > 0 {
			fmt.Fprintf(st.out, "note: the last call's %d bytes were cut short after the last checkpoint (the server was killed while writing them); they are not part of the chain\n", v.TornBytes)
		}
	}
	return nil
}
