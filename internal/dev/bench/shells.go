package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/internal/headless"
)

// benchShells measures mcec on the compositors it drives through a component inside them: KDE's
// KWin (scripts, ScreenShot2, fake input) and GNOME Shell (mcec's extension). For each, the
// private desktop's start-up against Xvfb's, and, through `mcec mcp --headless` on that desktop
// (the extension serves the executable that installed it), a window listing, a full-screen
// capture and a click by name.
func (s *suite) benchShells() error {
	reps := min(s.opt.Reps, 10)
	x, err := measure(1, reps, s.desktopStart(headless.X11))
	if err != nil {
		return fmt.Errorf("the X11 desktop: %w", err)
	}
	for _, k := range []struct {
		kind headless.Kind
		name string
	}{{headless.KWin, "KWin"}, {headless.GNOME, "GNOME Shell"}} {
		up, err := measure(1, reps, s.desktopStart(k.kind))
		if err != nil {
			return fmt.Errorf("the %s desktop: %w", k.name, err)
		}
		s.add(ratioRow(fmt.Sprintf("private %s desktop (D-Bus, AT-SPI) ready", k.name), "private X11 desktop (Xvfb, openbox, D-Bus, AT-SPI) ready",
			up.median(), x.median(), 0, ""))
		if err := s.benchShell(k.kind, k.name); err != nil {
			return fmt.Errorf("%s: %w", k.name, err)
		}
	}
	return nil
}

func (s *suite) benchShell(kind headless.Kind, name string) error {
	ctx, cancel := context.WithTimeout(s.ctx, 60*time.Second)
	defer cancel()
	cmd := command(append(os.Environ(), "MCEC_SESSIONS_DIR="+filepath.Join(s.tmp, "sessions-"+string(kind))), s.opt.Mcec, "mcp",
		"--headless", "--desktop", string(kind), "--allow-all", "--log-level", "error", "--launch", "gtk3-widget-factory")
	cmd.Stderr = os.Stderr
	c, err := connectMCP(ctx, &mcp.CommandTransport{Command: cmd})
	if err != nil {
		return err
	}
	defer c.cs.Close()
	for deadline := time.Now().Add(30 * time.Second); ; {
		cctx, cancel := s.callCtx()
		err := callOK(cctx, c, "find", map[string]any{"process": "gtk3-widget-factory", "element": map[string]any{"name": "Page 2"}}, nil)
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("gtk3-widget-factory's tree never answered: %w", err)
		}
		time.Sleep(300 * time.Millisecond) // polling an app that is starting, under a deadline
	}
	call := func(tool string, args map[string]any) func() error {
		return func() error {
			cctx, cancel := s.callCtx()
			defer cancel()
			return callOK(cctx, c, tool, args, nil)
		}
	}
	page := 3
	for _, r := range []struct {
		what string
		f    func() error
	}{
		{"`windows`", call("windows", map[string]any{})},
		{"`capture` full screen 1280x800, PNG inline", func() error {
			cctx, cancel := s.callCtx()
			defer cancel()
			res, err := c.cs.CallTool(cctx, &mcp.CallToolParams{Name: "capture", Arguments: map[string]any{}})
			if err != nil {
				return err
			}
			return checkCapture(res)
		}},
		{"`click` on a page switch by name (finds it, focuses the window, waits for the effect: the page changes)", func() error {
			page = 5 - page // 2, 3, 2, …: every click changes the page
			return call("click", map[string]any{"process": "gtk3-widget-factory", "at": map[string]any{"name": fmt.Sprintf("Page %d", page), "role": "radio button"}})()
		}},
	} {
		got, err := measure(s.opt.Warm, s.opt.Reps, timed(r.f))
		if err != nil {
			return fmt.Errorf("%s: %w", r.what, err)
		}
		s.add(row{What: fmt.Sprintf("%s: %s, stdio MCP", name, r.what), Mcec: ms(got.median()), Against: "—", Ref: "—"})
	}
	return nil
}
