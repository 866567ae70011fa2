// Command mcec-bench measures a warm mcec side by side with the tools agents would otherwise use,
// on a private desktop of its own (make bench). See docs/performance.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mcec/mcec/internal/dev/bench"
)

func main() {
	opt := bench.Options{Log: os.Stderr, Out: os.Stdout}
	flag.StringVar(&opt.Mcec, "mcec", "bin/mcec", "the mcec binary to measure")
	flag.StringVar(&opt.AppPy, "app", "internal/tools/testdata/app.py", "the test app that opens a dialog on stdin")
	flag.StringVar(&opt.Doc, "doc", "docs/performance.md", "write the report here (empty: do not)")
	flag.IntVar(&opt.Reps, "reps", 20, "repetitions per measurement (at least 20)")
	flag.IntVar(&opt.Warm, "warm", 3, "warm-up repetitions")
	only := flag.String("only", "", "comma-separated groups to run (tree,tokens,huge,capture,act,wait,overhead,memory,growth,density,wayland,shells,console); the report is then not written")
	flag.Parse()
	if *only != "" {
		opt.Only, opt.Doc = strings.Split(*only, ","), ""
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := bench.Run(ctx, opt); err != nil {
		fmt.Fprintln(os.Stderr, "mcec-bench:", err)
		os.Exit(1)
	}
}
