package daemon

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// startupApps are the programs --launch started, and whether each has mapped a window yet.
type startupApps struct {
	mu   sync.Mutex
	apps []*startupApp
}

type startupApp struct {
	name   string
	pid    int // leads its own process group (startProcess starts it with procgroup.Start)
	mapped bool
}

func (s *startupApps) add(name string, pid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apps = append(s.apps, &startupApp{name: name, pid: pid})
}

// Ready reports whether the desktop is ready for agents (GET /readyz): the private desktop's
// processes run, X answers, the window manager manages the screen and the AT-SPI registry
// answers (on an attached desktop: the window list can be read), and every program of --launch
// has mapped a window, and the emergency stop has not fired (tools would be refused). A program counts once one of its windows has been seen (its pid or any
// process of its group): closing it later is the agent's business and does not take the desktop
// out of service.
func (d *Daemon) Ready(ctx context.Context) error {
	if d.Stop != nil && d.Stop.Stopped() {
		return errors.New("emergency-stopped")
	}
	if d.Private != nil {
		if err := d.Private.Check(ctx); err != nil {
			return err
		}
	}
	if d.Desktop == nil {
		return errors.New("no desktop")
	}
	d.startup.mu.Lock()
	var waiting []*startupApp
	for _, a := range d.startup.apps {
		if !a.mapped {
			waiting = append(waiting, a)
		}
	}
	d.startup.mu.Unlock()
	wins, err := d.Desktop.Windows(ctx)
	if err != nil {
		return fmt.Errorf("window list: %w", err)
	}
	if len(waiting) == 0 {
		return nil
	}
	var missing []string
	for _, a := range waiting {
		for _, w := range wins {
			if w.ProcessID > 0 && (w.ProcessID == a.pid || processGroup(w.ProcessID) == a.pid) {
				d.startup.mu.Lock()
				a.mapped = true
				d.startup.mu.Unlock()
				break
			}
		}
		if !a.mapped {
			missing = append(missing, a.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no window yet from %s", strings.Join(missing, ", "))
	}
	return nil
}

// processGroup is pid's process group (0 when unknown), from /proc/PID/stat.
func processGroup(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 {
		return 0
	}
	g, _ := strconv.Atoi(f[2])
	return g
}
