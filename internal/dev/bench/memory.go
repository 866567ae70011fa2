package bench

import (
	"fmt"
	"time"
)

// benchMemory reads the resident memory of the `mcec serve` process: idle, the peak during 200
// consecutive full-screen captures through the façade, and after they end.
func (s *suite) benchMemory() error {
	pid := s.serve.pid()
	idle := s.idleRSS
	peak := idle
	for i := range 200 {
		ctx, cancel := s.callCtx()
		err := callOK(ctx, s.facade, "capture", map[string]any{}, nil)
		cancel()
		if err != nil {
			return fmt.Errorf("capture %d: %w", i+1, err)
		}
		if rss, err := procStatus(pid, "VmRSS"); err == nil {
			peak = max(peak, rss)
		}
	}
	hwm, err := procStatus(pid, "VmHWM")
	if err != nil {
		return err
	}
	peak = max(peak, hwm)
	// The Go runtime hands freed memory back to the kernel in the background within seconds; give
	// it a fixed grace period, as an agent pausing between tasks would.
	time.Sleep(5 * time.Second)
	after, err := procStatus(pid, "VmRSS")
	if err != nil {
		return err
	}
	mb := func(kb int) string { return fmt.Sprintf("%.1f MB", float64(kb)/1024) }
	s.add(row{What: "RSS of `mcec serve`, idle (after start-up)", Mcec: mb(idle),
		Against: "target", Ref: "40 MB", Ratio: 40 * 1024 / float64(idle), Target: "< 40 MB", Met: ptr(idle < 40*1024)})
	s.add(row{What: "RSS peak (VmHWM) during 200 consecutive full-screen captures", Mcec: mb(peak),
		Against: "target", Ref: "200 MB", Ratio: 200 * 1024 / float64(peak), Target: "< 200 MB", Met: ptr(peak < 200*1024)})
	// "Near idle": within 25% or 10 MB of idle, whichever is more.
	near := max(idle*5/4, idle+10*1024)
	s.add(row{What: "RSS 5 s after the captures", Mcec: mb(after), Against: "idle + max(25%, 10 MB)", Ref: mb(near),
		Ratio: float64(near) / float64(after), Target: "≤ near idle", Met: ptr(after <= near)})
	return nil
}
