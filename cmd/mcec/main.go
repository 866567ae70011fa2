// Command mcec gives AI agents eyes and hands on a Linux X11 desktop over MCP and HTTP.
package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/mcec/mcec/internal/cli"
)

func main() {
	// A broken stdout or stderr (the MCP client that started mcec died) must not kill mcec with
	// SIGPIPE before it has stopped its desktop: with SIGPIPE notified, the Go runtime lets such
	// writes fail with EPIPE instead. Notify, not signal.Ignore: an ignored signal stays ignored
	// in every program mcec starts, a caught one is reset to the default at exec.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
