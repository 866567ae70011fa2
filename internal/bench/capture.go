package bench

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

func (s *suite) benchCapture() error {
	win, err := s.waitWindow(map[string]any{"process": "gtk3-widget-factory"})
	if err != nil {
		return err
	}
	id := "0x" + strconv.FormatUint(uint64(win.Handle), 16)
	capture := func(args map[string]any) func() error {
		return func() error {
			ctx, cancel := s.callCtx()
			defer cancel()
			var res struct {
				Bytes  int    `json:"bytes"`
				Base64 string `json:"base64"`
			}
			if err := callOK(ctx, s.stdio, "capture", args, &res); err != nil {
				return err
			}
			if res.Base64 == "" {
				return fmt.Errorf("capture returned no image")
			}
			return nil
		}
	}
	proc := func(argv ...string) func() error {
		return func() error {
			ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
			defer cancel()
			return run(ctx, s.env, argv...)
		}
	}
	pipe := func(a, b []string) func() error {
		return func() error {
			ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
			defer cancel()
			return pipeline(ctx, s.env, a, b)
		}
	}
	png := []string{"convert", "xwd:-", "png:-"}
	full := map[string]any{}
	window := map[string]any{"handle": win.Handle}
	cases := []struct {
		what, against string
		ours, theirs  func() error
		need          float64
	}{
		{"`capture` full screen 1280x800, PNG inline, stdio MCP", "`import -window root png:-`",
			capture(full), proc("import", "-window", "root", "png:-"), 4},
		{"`capture` full screen 1280x800, PNG inline, stdio MCP", "`xwd -root | convert xwd:- png:-`",
			capture(full), pipe([]string{"xwd", "-root", "-silent"}, png), 4},
		{"`capture` window (gtk3-widget-factory), PNG inline, stdio MCP", "`import -window ID png:-`",
			capture(window), proc("import", "-window", id, "png:-"), 4},
		{"`capture` window (gtk3-widget-factory), PNG inline, stdio MCP", "`xwd -id ID | convert xwd:- png:-`",
			capture(window), pipe([]string{"xwd", "-id", id, "-silent"}, png), 4},
	}
	for _, c := range cases {
		ours, err := measure(s.opt.Warm, s.opt.Reps, timed(c.ours))
		if err != nil {
			return fmt.Errorf("%s: %w", c.what, err)
		}
		theirs, err := measure(s.opt.Warm, s.opt.Reps, timed(c.theirs))
		if err != nil {
			return fmt.Errorf("%s: %w", c.against, err)
		}
		s.add(ratioRow(c.what, c.against+" (whole processes)", ours.median(), theirs.median(), c.need, ""))
	}
	return nil
}
