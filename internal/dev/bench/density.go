package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mcec/mcec/internal/dev/bench/density"
)

// densityNs are the fleet sizes the density group provisions (issue 19).
var densityNs = []int{1, 4, 8, 16}

// Density targets (issue 19), per instance on this 2-core machine.
const (
	densityReadyTarget = time.Second // p50 time to a serving instance
	densityMemTarget   = 60 * 1024   // kB of mcec + desktop PSS, idle
)

// densitySettle lets a fresh fleet finish its start-up work (GTK's first frames, the AT-SPI
// registry's first clients) before idle figures are read.
const densitySettle = 3 * time.Second

// benchDensity provisions N isolated instances at once (internal/provision, each `mcec serve
// --headless` with a GTK app), checks their isolation, then reads time to ready, idle memory and
// CPU by component, and calls/s with every instance driven at once. The last fleet runs again
// with --no-glx, the dense configuration docs/scale.md recommends.
func (s *suite) benchDensity() error {
	type run struct {
		n    int
		args []string
		warm bool
	}
	var runs []run
	for _, n := range densityNs {
		runs = append(runs, run{n: n})
	}
	last := densityNs[len(densityNs)-1]
	runs = append(runs, run{n: last, args: []string{"--no-glx"}}, run{n: last, warm: true})
	for _, r := range runs {
		if err := s.densityRun(r.n, r.args, r.warm); err != nil {
			return fmt.Errorf("fleet of %d %s: %w", r.n, strings.Join(r.args, " "), err)
		}
	}
	return nil
}

func (s *suite) densityRun(n int, args []string, warm bool) error {
	label := fmt.Sprintf("N=%d", n)
	if len(args) > 0 {
		label += " " + strings.Join(args, " ")
	}
	how := "all started at once (cold)"
	if warm {
		label += " warm pool"
		how = "handed out from a warm pool of N"
	}
	s.logf("density %s: provisioning", label)
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Minute)
	defer cancel()
	f, err := density.Start(ctx, density.Options{Binary: s.opt.Mcec, N: n, ServeArgs: args, StartTimeout: 180 * time.Second, Warm: warm})
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.CheckIsolation(ctx); err != nil {
		return fmt.Errorf("isolation: %w", err)
	}
	var serving, ready sample
	for _, m := range f.Members {
		serving, ready = append(serving, m.Serving), append(ready, m.Ready)
	}
	time.Sleep(densitySettle) // not a synchronization: idle figures are read after a quiet period
	deskCPU, appCPU, err := f.IdleCPU(ctx, 5*time.Second)
	if err != nil {
		return err
	}
	var usages []density.Usage
	for _, m := range f.Members {
		u, err := m.Usage()
		if err != nil {
			return err
		}
		usages = append(usages, u)
	}
	calls, err := f.Throughput(ctx, 10*time.Second)
	if err != nil {
		return fmt.Errorf("throughput: %w", err)
	}

	// Cold, the target is on the time to a serving instance; from a warm pool that is a hand-over
	// in memory, so the target moves to the first /readyz 200, which checks the whole desktop.
	target, tname := serving, "serving"
	if warm {
		target, tname = ready, "ready"
	}
	p50 := target.median()
	met := fmt.Sprintf("p50 < 1 s (%s)", tname)
	servingRow := row{What: fmt.Sprintf("density %s: time to a serving instance (desktop up, mcec answers), %s", label, how),
		Mcec: fmt.Sprintf("p50 %s / p95 %s", ms(serving.median()), ms(serving.percentile(95))), Against: "—", Ref: "—"}
	readyRow := row{What: fmt.Sprintf("density %s: time to ready (/readyz 200: the GTK app's window mapped too)", label),
		Mcec: fmt.Sprintf("p50 %s / p95 %s", ms(ready.median()), ms(ready.percentile(95))), Against: "—", Ref: "—"}
	tr := &servingRow
	if warm {
		tr = &readyRow
	}
	tr.Against, tr.Ref, tr.Ratio, tr.Target, tr.Met = "target", ms(densityReadyTarget), float64(densityReadyTarget)/float64(max(p50, time.Millisecond)), met, ptr(p50 < densityReadyTarget)
	s.add(servingRow)
	s.add(readyRow)
	meanOf := func(comp ...string) density.Mem {
		var t density.Mem
		for _, u := range usages {
			m := u.Sum(comp...)
			t.RSS += m.RSS
			t.PSS += m.PSS
		}
		return density.Mem{RSS: t.RSS / len(usages), PSS: t.PSS / len(usages)}
	}
	desk := meanOf(density.DesktopComps...)
	var parts []string
	for _, c := range density.DesktopComps {
		parts = append(parts, fmt.Sprintf("%s %s", c, mb(meanOf(c).PSS)))
	}
	s.add(row{What: fmt.Sprintf("density %s: PSS per idle instance, mcec + desktop (mean)", label), Mcec: mb(desk.PSS),
		Against: "target", Ref: mb(densityMemTarget), Ratio: float64(densityMemTarget) / float64(desk.PSS),
		Target: "< 60 MB", Met: ptr(desk.PSS < densityMemTarget),
		Comments: "PSS: " + strings.Join(parts, ", ") + fmt.Sprintf("; RSS (shared pages counted in full) %s", mb(desk.RSS))})
	app := meanOf(density.CompApp)
	s.add(row{What: fmt.Sprintf("density %s: the GTK app per instance (python3 + GTK 3, one entry)", label), Mcec: mb(app.PSS) + " PSS",
		Against: "—", Ref: "—", Comments: "RSS " + mb(app.RSS) + "; not counted above"})
	s.add(row{What: fmt.Sprintf("density %s: CPU per idle instance, mcec + desktop (mean over 5 s)", label),
		Mcec: fmt.Sprintf("%.2f%% of a core", mean(deskCPU)), Against: "—", Ref: "—",
		Comments: fmt.Sprintf("max %.2f%%; the app: %.2f%%", maxOf(deskCPU), mean(appCPU))})
	s.add(row{What: fmt.Sprintf("density %s: calls/s across all instances (each driven at once: windows, find; 10 s)", label),
		Mcec: fmt.Sprintf("%.0f calls/s", calls), Against: "—", Ref: "—",
		Comments: fmt.Sprintf("%.1f per instance", calls/float64(n))})
	s.add(row{What: fmt.Sprintf("density %s: isolation — each instance sees only its own windows, clipboard and typed input", label),
		Mcec: "held", Against: "—", Ref: "—", Target: "held", Met: ptr(true)})
	return nil
}

func mb(kb int) string { return fmt.Sprintf("%.1f MB", float64(kb)/1024) }

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t / float64(len(v))
}

func maxOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}
