package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/internal/headless"
)

// benchWayland measures mcec on its private Wayland desktop (headless sway) against the tools a
// Wayland user has: grim (a screencopy client) for pixels, wtype (a fresh virtual keyboard per
// process) for typing; query cold and warm; and the start-up of each kind of private desktop.
func (s *suite) benchWayland() error {
	if err := s.benchDesktopStart(); err != nil {
		return err
	}
	dctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	defer cancel()
	desk, err := headless.Start(dctx, headless.Options{Kind: headless.Wayland})
	if err != nil {
		return err
	}
	defer desk.Stop()
	env := append(desk.Env(), "MCEC_SESSIONS_DIR="+filepath.Join(s.tmp, "sessions-wayland"))
	factory, err := startProc(command(env, "gtk3-widget-factory"))
	if err != nil {
		return err
	}
	defer factory.stop()
	appCmd := command(env, debianPython, s.opt.AppPy)
	appIn, err := appCmd.StdinPipe() // the app quits at the end of its stdin
	if err != nil {
		return err
	}
	defer appIn.Close()
	app, err := startProc(appCmd)
	if err != nil {
		return err
	}
	defer app.stop()

	// mcec attaches to the desktop as to a user's sway session (WAYLAND_DISPLAY and SWAYSOCK).
	cctx, cancel2 := context.WithTimeout(s.ctx, 20*time.Second)
	defer cancel2()
	connect := func(extra ...string) (*mcpCaller, error) {
		cmd := command(append(slices.Clip(env), extra...), s.opt.Mcec, "mcp", "--allow-all", "--log-level", "error")
		cmd.Stderr = os.Stderr
		return connectMCP(cctx, &mcp.CommandTransport{Command: cmd})
	}
	warm, err := connect()
	if err != nil {
		return fmt.Errorf("MCP stdio on Wayland: %w", err)
	}
	defer warm.cs.Close()
	cold, err := connect("MCEC_TREE_MIRROR=off")
	if err != nil {
		return fmt.Errorf("MCP stdio on Wayland without the mirror: %w", err)
	}
	defer cold.cs.Close()

	// Both windows and the factory's tree are there before anything is timed.
	var win windowInfo
	for _, w := range []string{"mcec test app", "gtk3-widget-factory"} {
		deadline := time.Now().Add(20 * time.Second)
		for {
			ctx, cancel := s.callCtx()
			var res struct {
				Windows []windowInfo `json:"windows"`
			}
			err := callOK(ctx, warm, "windows", map[string]any{"window": w}, &res)
			cancel()
			if err == nil && len(res.Windows) > 0 {
				win = res.Windows[0]
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("no window %q on the Wayland desktop: %v", w, err)
			}
			time.Sleep(200 * time.Millisecond) // polling a desktop that is starting its apps, under a deadline
		}
	}
	factoryQuery := map[string]any{"process": "gtk3-widget-factory", "maxDepth": 6, "maxNodes": 1000}
	for deadline := time.Now().Add(20 * time.Second); ; {
		r, _, err := s.queryTimed(cold, factoryQuery)
		if err == nil && r.NodeCount > 100 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("gtk3-widget-factory's tree never filled on Wayland: %v", err)
		}
		time.Sleep(300 * time.Millisecond) // as queryUntil
	}

	grim := func(argv ...string) func() error {
		return func() error {
			ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
			defer cancel()
			return run(ctx, env, append([]string{"grim"}, argv...)...)
		}
	}
	capture := func(args map[string]any) func() (time.Duration, error) {
		return func() (time.Duration, error) {
			ctx, cancel := s.callCtx()
			defer cancel()
			start := time.Now()
			res, err := warm.cs.CallTool(ctx, &mcp.CallToolParams{Name: "capture", Arguments: args})
			elapsed := time.Since(start)
			if err != nil {
				return 0, fmt.Errorf("capture: %w", err)
			}
			return elapsed, checkCapture(res)
		}
	}
	geometry := fmt.Sprintf("%d,%d %dx%d", win.X, win.Y, win.Width, win.Height)
	for _, c := range []struct {
		what, against string
		ours          func() (time.Duration, error)
		theirs        func() error
	}{
		{"Wayland: `capture` full screen 1280x800, PNG inline, stdio MCP", "`grim -t png -`",
			capture(map[string]any{}), grim("-t", "png", "-")},
		{"Wayland: `capture` window (gtk3-widget-factory), PNG inline, stdio MCP", "`grim -g GEOMETRY -t png -`",
			capture(map[string]any{"process": "gtk3-widget-factory"}), grim("-g", geometry, "-t", "png", "-")},
	} {
		ours, err := measure(s.opt.Warm, s.opt.Reps, c.ours)
		if err != nil {
			return fmt.Errorf("%s: %w", c.what, err)
		}
		theirs, err := measure(s.opt.Warm, s.opt.Reps, timed(c.theirs))
		if err != nil {
			return fmt.Errorf("%s: %w", c.against, err)
		}
		s.add(ratioRow(c.what, c.against+" (whole processes)", ours.median(), theirs.median(), 0, ""))
	}

	// Queries: a walk of the application, and an unchanged tree answered from the mirror.
	walk, err := s.timedQuery(cold, factoryQuery, s.opt.Warm, s.opt.Reps, nil)
	if err != nil {
		return err
	}
	mirror, err := s.timedQuery(warm, factoryQuery, s.opt.Warm, s.opt.Reps, nil)
	if err != nil {
		return err
	}
	s.add(row{What: "Wayland: `query` gtk3-widget-factory (maxDepth 6), warm mirror, stdio MCP", Mcec: ms(mirror.median()),
		Against: "the same query walking the application (mirror off)", Ref: ms(walk.median()),
		Ratio: float64(walk.median()) / float64(max(mirror.median(), 1))})

	// A click on an element by name, and typing into the test app's entry, focused by a click.
	click := map[string]any{"window": "mcec test app", "at": map[string]any{"name": "Apply"}}
	clicks, err := measure(s.opt.Warm, s.opt.Reps, timed(func() error {
		ctx, cancel := s.callCtx()
		defer cancel()
		_, err := clickSeen(ctx, warm, click)
		return err
	}))
	if err != nil {
		return err
	}
	s.add(row{What: "Wayland: `click` on an element by name (finds it, focuses the window, waits for its effect: a label counts the clicks), stdio MCP",
		Mcec: ms(clicks.median()), Against: "—", Ref: "—",
		Comments: "no command-line pointer tool for wlroots is packaged in Debian 12 (wlrctl, ydotool need more)"})
	ctx, cancel3 := s.callCtx()
	defer cancel3()
	if err := callOK(ctx, warm, "click", map[string]any{"window": "mcec test app", "at": map[string]any{"role": "text"}}, nil); err != nil {
		return err
	}
	text := strings.Repeat("abcdefghij", 4)
	ours, err := measure(s.opt.Warm, s.opt.Reps, timed(func() error {
		ctx, cancel := s.callCtx()
		defer cancel()
		return callOK(ctx, warm, "send_command", map[string]any{"command": "chars:" + text}, nil)
	}))
	if err != nil {
		return err
	}
	theirs, err := measure(s.opt.Warm, s.opt.Reps, timed(func() error {
		ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
		defer cancel()
		return run(ctx, env, "wtype", text)
	}))
	if err != nil {
		return err
	}
	s.add(ratioRow(fmt.Sprintf("Wayland: `send_command` `chars:` %d characters, stdio MCP", len(text)),
		"`wtype TEXT` (a fresh virtual keyboard per process: GTK 3 loses its first keys)", ours.median(), theirs.median(), 0, ""))
	return nil
}

// desktopStart times one start of a private desktop of kind, until it is usable (what
// headless.Start waits for); its stop is not timed.
func (s *suite) desktopStart(kind headless.Kind) func() (time.Duration, error) {
	return func() (time.Duration, error) {
		ctx, cancel := context.WithTimeout(s.ctx, 60*time.Second)
		defer cancel()
		began := time.Now()
		d, err := headless.Start(ctx, headless.Options{Kind: kind})
		took := time.Since(began)
		if err != nil {
			return 0, err
		}
		return took, d.Stop()
	}
}

// benchDesktopStart times the start of each kind of private desktop, until it is usable (what
// headless.Start waits for), and its stop.
func (s *suite) benchDesktopStart() error {
	reps := min(s.opt.Reps, 10)
	wl, err := measure(1, reps, s.desktopStart(headless.Wayland))
	if err != nil {
		return fmt.Errorf("the Wayland desktop: %w", err)
	}
	x, err := measure(1, reps, s.desktopStart(headless.X11))
	if err != nil {
		return fmt.Errorf("the X11 desktop: %w", err)
	}
	s.add(ratioRow("private Wayland desktop (sway, D-Bus, AT-SPI) ready", "private X11 desktop (Xvfb, openbox, D-Bus, AT-SPI) ready",
		wl.median(), x.median(), 0, ""))
	return nil
}
