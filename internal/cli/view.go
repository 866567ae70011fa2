package cli

import (
	"bytes"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/mcec/mcec/internal/atomicfile"
	"github.com/mcec/mcec/internal/evidence"
	"github.com/mcec/mcec/internal/traceview"
)

func newViewCmd(g *globalOptions, st *streams) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "view SESSION",
		Short: "Write a session's trace as one self-contained HTML page to review in a browser",
		Long: `Write one HTML page that shows a recorded session: the hash chain's verdict (a tampered
trace is flagged, and the rows from the broken line on are marked), a timeline of the calls with
their target, duration, outcome and effect, each call's arguments, envelope and effect, the
captures it made and the frames kept around it (with the point it acted on), and the failure
summary. The page opens on the first failure. It needs nothing but itself: styles and images are
inline and it loads nothing from anywhere, so it can be attached to an issue or opened offline.

SESSION is a session id (looked up under --sessions-dir), a session directory or a bundle zip.
The console shows the same page for the sessions of its server.`,
		Example: `  mcec view evidence.zip                  # → ./20260701-101502-s-4f2a0c1d9e3b.html
  mcec view s-4f2a0c1d9e3b --out review.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return viewRun(g, st, out, args[0]) },
	}
	cmd.Flags().StringVar(&out, "out", "", "HTML file to write (default ./<session directory>.html)")
	return cmd
}

func viewRun(g *globalOptions, st *streams, out, arg string) error {
	path, err := evidence.Locate(g.sessionsRoot(), arg)
	if err != nil {
		return usageError{err}
	}
	b, err := evidence.Open(path)
	if err != nil {
		return err
	}
	p := traceview.Build(b)
	var html bytes.Buffer
	if err := p.Write(&html); err != nil {
		return err
	}
	if out == "" {
		out = filepath.Base(filepath.Clean(b.Name)) + ".html"
	}
	if err := atomicfile.WriteFile(out, html.Bytes(), 0o600); err != nil {
		return err
	}
	calls, failed := 0, 0
	for _, c := range p.Calls {
		if c.Kind == "call" {
			calls++
			if !c.OK {
				failed++
			}
		}
	}
	fmt.Fprintf(st.out, "wrote %s: %d calls, %d failed; %s\n", out, calls, failed, p.Verdict.Text)
	if p.Omitted > 0 {
		fmt.Fprintf(st.err, "mcec: note: %d image(s) left out: the page would have passed %d MiB\n", p.Omitted, traceview.Budget>>20)
	}
	return nil
}
