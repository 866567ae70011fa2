package density

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/mcec/mcec/contract"
	"github.com/mcec/mcec/internal/testdesk"
)

var binary string

func TestMain(m *testing.M) { os.Exit(testdesk.MainWithMcec(m, &binary)) }

// Three instances on this machine, driven at once: none sees another's windows, clipboard or
// typed input; every envelope is valid; each instance's memory is accounted by component; all
// their processes are gone after Close.
func TestIsolation(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	f, err := Start(ctx, Options{Binary: binary, N: 3, Check: func(_ string, b []byte) error { return contract.Validate(b) }})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			f.Close()
		}
	}()
	if err := f.CheckIsolation(ctx); err != nil {
		t.Fatal(err)
	}
	var pids []int
	all := scan()
	for _, m := range f.Members {
		if m.Serving <= 0 || m.Ready < m.Serving {
			t.Errorf("%s: serving %s, ready %s", m.ID, m.Serving, m.Ready)
		}
		u, err := m.Usage()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []string{CompMcec, CompXvfb, CompDBus, CompATSPI, CompOpenbox, CompApp} {
			if u[c].PSS <= 0 || u[c].RSS < u[c].PSS {
				t.Errorf("%s: %s has RSS %d kB, PSS %d kB", m.ID, c, u[c].RSS, u[c].PSS)
			}
		}
		for pid := range m.processes(all) {
			pids = append(pids, pid)
		}
	}
	// Isolation also means separate processes: no process belongs to two members.
	seen := map[int]bool{}
	for _, p := range pids {
		if seen[p] {
			t.Errorf("process %d is shared by two instances", p)
		}
		seen[p] = true
	}
	f.Close()
	closed = true
	// Close waits for each instance's mcec; the desktop's grandchildren (the accessibility bus's
	// dbus-daemon, the registry) die from their process group's signal a moment later.
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range pids {
		for {
			st, ok := readStat(p)
			if !ok || st.state == "Z" {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("process %d (%s) outlived its instance", p, st.comm)
				break
			}
			time.Sleep(20 * time.Millisecond) // polling /proc, under a deadline
		}
	}
}
