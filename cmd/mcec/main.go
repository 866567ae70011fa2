// Command mcec gives AI agents eyes and hands on a Linux X11 desktop over MCP and HTTP.
package main

import (
	"os"

	"github.com/mcec/mcec/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
