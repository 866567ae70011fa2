package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// trivialTool answers from the session store without touching the desktop: what it costs is the
// transport, the dispatcher and the evidence recorder.
const trivialTool = "session-status"

func (s *suite) benchOverhead() error {
	const warm, reps = 50, 500
	for _, t := range []struct {
		name  string
		c     caller
		limit time.Duration
	}{
		{"stdio MCP", s.stdio, time.Millisecond},
		{"MCP streamable HTTP", s.httpMCP, 2 * time.Millisecond},
		{"façade HTTP", s.facade, 2 * time.Millisecond},
	} {
		smp, err := measure(warm, reps, timed(func() error {
			ctx, cancel := s.callCtx()
			defer cancel()
			return callOK(ctx, t.c, trivialTool, nil, nil)
		}))
		if err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
		r := targetRow(fmt.Sprintf("trivial call (`%s`) over %s, p50", trivialTool, t.name), smp.median(), t.limit)
		r.Comments = fmt.Sprintf("p99 %s; %d calls", ms(smp.percentile(99)), reps)
		s.add(r)
	}
	return s.benchLoad()
}

// benchLoad runs 16 façade clients flat out, each repeatedly, for a fixed time.
func (s *suite) benchLoad() error {
	const clients, need = 16, 2000.0
	run := func(d time.Duration) (float64, error) {
		ctx, cancel := context.WithTimeout(s.ctx, d+30*time.Second)
		defer cancel()
		var n atomic.Int64
		var firstErr error
		var once sync.Once
		var wg sync.WaitGroup
		start := time.Now()
		stop := start.Add(d)
		for range clients {
			wg.Go(func() {
				for time.Now().Before(stop) {
					if err := callOK(ctx, s.facade, trivialTool, nil, nil); err != nil {
						once.Do(func() { firstErr = err })
						return
					}
					n.Add(1)
				}
			})
		}
		wg.Wait()
		return float64(n.Load()) / time.Since(start).Seconds(), firstErr
	}
	if _, err := run(time.Second); err != nil { // warm-up
		return err
	}
	rates := make([]float64, 0, 3)
	for range 3 {
		r, err := run(2 * time.Second)
		if err != nil {
			return err
		}
		rates = append(rates, r)
	}
	med := median(rates)
	s.add(row{What: fmt.Sprintf("calls/s, %d concurrent façade clients (`%s`), median of 3 × 2 s", clients, trivialTool),
		Mcec: fmt.Sprintf("%.0f /s", med), Against: "target", Ref: fmt.Sprintf("%.0f /s", need),
		Ratio: med / need, Target: fmt.Sprintf("≥ %.0f /s", need), Met: ptr(med >= need)})
	return nil
}
