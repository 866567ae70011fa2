package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"

	"github.com/mcec/mcec/internal/daemon"
	"github.com/mcec/mcec/internal/transport/line"
)

// checkTCPFlags validates --tcp-port and --tcp-bind before anything starts.
func (o *serveOptions) checkTCPFlags() error {
	if !o.tcp {
		return nil
	}
	if o.tcpPort < 0 || o.tcpPort > 65535 {
		return usageError{fmt.Errorf("--tcp-port %d: want 0-65535", o.tcpPort)}
	}
	ip := net.ParseIP(o.tcpBind)
	if o.tcpBind == "localhost" {
		ip = net.IPv4(127, 0, 0, 1)
	}
	if ip == nil || !ip.IsLoopback() {
		return usageError{fmt.Errorf("--tcp-bind %q: the line protocol has no authentication, so mcec serves it on loopback addresses only (127.0.0.1 or ::1)", o.tcpBind)}
	}
	return nil
}

// startLineServer starts the line-protocol TCP server when --tcp is given; mcec:exit calls exit
// once its reply is written. The returned function stops it (a no-op when it was not started).
func startLineServer(d *daemon.Daemon, o *serveOptions, log *slog.Logger, stderr io.Writer, exit context.CancelFunc) (func(), error) {
	if !o.tcp {
		return func() {}, nil
	}
	srv, err := line.Listen(net.JoinHostPort(o.tcpBind, strconv.Itoa(o.tcpPort)), d.LineCommands(),
		line.ServerOptions{Log: log, Exit: exit})
	if err != nil {
		return nil, fmt.Errorf("line protocol: %w", err)
	}
	fmt.Fprintf(stderr, "mcec: line protocol (raw commands, one per line) on tcp://%s\n", srv.Addr())
	go func() {
		if err := srv.Serve(); err != nil {
			log.Error("line protocol server stopped", "err", err)
		}
	}()
	return func() { _ = srv.Close() }, nil
}
