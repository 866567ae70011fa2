package bench

import (
	"fmt"
	"io"
	"sync"
)

// testApp is internal/tools/testdata/app.py: a window with an entry and buttons that opens and
// closes a dialog when told on stdin, so the benchmark changes the UI at a moment it picks.
type testApp struct {
	p  *proc
	mu sync.Mutex
	in io.WriteCloser
}

func (s *suite) startApp() (*testApp, error) {
	cmd := command(s.env, debianPython, s.opt.AppPy)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = io.Discard // acknowledgements; the benchmark watches the UI instead
	p, err := startProc(cmd)
	if err != nil {
		return nil, err
	}
	s.procs = append(s.procs, p)
	if _, err := s.waitWindow(map[string]any{"window": "mcec test app"}); err != nil {
		return nil, err
	}
	return &testApp{p: p, in: in}, nil
}

func (a *testApp) send(cmd string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, err := fmt.Fprintln(a.in, cmd)
	return err
}
