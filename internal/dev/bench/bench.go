// Package bench is mcec's side-by-side benchmark (make bench): on a private desktop of its own it
// measures a warm mcec — `mcec mcp` over stdio and `mcec serve` over MCP HTTP and the façade —
// against what agents would otherwise run (pyatspi, ImageMagick, xwd, xdotool, polling loops),
// and against the targets of issue 9, and prints one Markdown table.
package bench

import (
	"context"
	"crypto/rand"
	_ "embed"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcec/mcec/internal/headless"
)

//go:embed py/walk.py
var walkPy []byte

//go:embed py/rows.py
var rowsPy []byte

//go:embed py/qtlist.py
var qtListPy []byte

// Options configure Run.
type Options struct {
	Mcec  string    // the mcec binary (bin/mcec)
	AppPy string    // internal/tools/testdata/app.py: opens a dialog when told on stdin
	Doc   string    // where to write the report ("" = do not write)
	Reps  int       // repetitions per measurement (≥ 20)
	Warm  int       // unrecorded warm-up repetitions
	Only  []string  // run only these groups (tree, capture, act, wait, overhead, memory, growth, density, wayland, shells, console); for profiling
	Log   io.Writer // progress, one line per measurement
	Out   io.Writer // the table
}

type suite struct {
	opt       Options
	ctx       context.Context
	desk      *headless.Desktop
	env       []string
	tmp       string
	procs     []*proc
	serve     *proc
	stdio     *mcpCaller
	walk      *mcpCaller // mcec mcp with the tree mirror off: every query walks the application
	httpMCP   *mcpCaller
	facade    *facadeCaller
	rows      []row
	app       *testApp
	idleRSS   int // kB, of mcec serve once it answers
	loadStart string
}

// Run starts the desktop and the servers, runs every measurement and prints the table.
func Run(ctx context.Context, opt Options) (err error) {
	if opt.Reps < 20 {
		opt.Reps = 20
	}
	if opt.Warm < 1 {
		opt.Warm = 3
	}
	began := time.Now()
	s := &suite{opt: opt, ctx: ctx, loadStart: loadAvg()}
	defer s.close()
	// The density group provisions desktops of its own: alone, it needs none of the shared setup.
	if len(opt.Only) == 0 || slices.ContainsFunc(opt.Only, func(g string) bool { return g != "density" }) {
		if err := s.setup(); err != nil {
			return fmt.Errorf("setup: %w", err)
		}
	}
	for _, g := range []struct {
		name string
		f    func() error
	}{
		{"tree", s.benchTree},
		{"tokens", s.benchTokens},
		{"huge", s.benchHuge},
		{"capture", s.benchCapture},
		{"act", s.benchAct},
		{"wait", s.benchWait},
		{"overhead", s.benchOverhead},
		{"memory", s.benchMemory},
		{"growth", s.benchGrowth},
		{"density", s.benchDensity},
		{"wayland", s.benchWayland},
		{"shells", s.benchShells},
		{"console", s.benchConsole},
	} {
		if len(opt.Only) > 0 && !slices.Contains(opt.Only, g.name) {
			continue
		}
		s.logf("== %s", g.name)
		if err := g.f(); err != nil {
			return fmt.Errorf("%s: %w", g.name, err)
		}
	}
	table := markdown(s.rows)
	fmt.Fprint(opt.Out, table)
	if opt.Doc != "" {
		if err := writeDoc(opt.Doc, s, table, time.Since(began)); err != nil {
			return err
		}
		s.logf("wrote %s", opt.Doc)
	}
	return nil
}

func (s *suite) logf(format string, args ...any) {
	if s.opt.Log != nil {
		fmt.Fprintf(s.opt.Log, "bench: "+format+"\n", args...)
	}
}

func (s *suite) add(r row) {
	s.rows = append(s.rows, r)
	s.logf("%s: %s vs %s %s (%s)", r.What, r.Mcec, r.Against, r.Ref, r.ratioText())
}

func (s *suite) setup() error {
	tmp, err := os.MkdirTemp("", "mcec-bench-")
	if err != nil {
		return err
	}
	s.tmp = tmp
	for name, b := range map[string][]byte{"walk.py": walkPy, "rows.py": rowsPy} {
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			return err
		}
	}
	s.logf("starting a private desktop")
	dctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	defer cancel()
	s.desk, err = headless.Start(dctx, headless.Options{})
	if err != nil {
		return err
	}
	// mcec attaches to the benchmark's desktop (DISPLAY is set), so it needs --allow-all to act
	// there (raw typing included), and keeps its evidence apart.
	s.env = append(s.desk.Env(), "MCEC_SESSIONS_DIR="+filepath.Join(tmp, "sessions"))

	factory, err := startProc(command(s.env, "gtk3-widget-factory"))
	if err != nil {
		return err
	}
	s.procs = append(s.procs, factory)

	port, err := freePort()
	if err != nil {
		return err
	}
	// A token of the bench's own, in serve's environment (never its argv), as an operator would
	// hand one to clients.
	token := rand.Text()
	serve := command(append(slices.Clip(s.env), "MCEC_TOKEN="+token), s.opt.Mcec, "serve", "--allow-all", "--port", strconv.Itoa(port), "--log-level", "error")
	serve.Stderr = os.Stderr
	if s.serve, err = startProc(serve); err != nil {
		return err
	}
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	s.facade = newFacade(base, token)
	if err := s.waitServe(); err != nil {
		return err
	}
	cctx, cancel2 := context.WithTimeout(s.ctx, 20*time.Second)
	defer cancel2()
	s.httpMCP, err = connectMCP(cctx, &mcp.StreamableClientTransport{Endpoint: base + "/mcp", DisableStandaloneSSE: true,
		HTTPClient: &http.Client{Transport: s.facade.client.Transport}})
	if err != nil {
		return fmt.Errorf("MCP HTTP: %w", err)
	}
	stdio := command(s.env, s.opt.Mcec, "mcp", "--allow-all", "--log-level", "error")
	stdio.Stderr = os.Stderr
	// The SDK owns this process: it closes stdin and waits on Close.
	if s.stdio, err = connectMCP(cctx, &mcp.CommandTransport{Command: stdio}); err != nil {
		return fmt.Errorf("MCP stdio: %w", err)
	}
	walk := command(append(s.env, "MCEC_TREE_MIRROR=off"), s.opt.Mcec, "mcp", "--allow-all", "--log-level", "error")
	walk.Stderr = os.Stderr
	if s.walk, err = connectMCP(cctx, &mcp.CommandTransport{Command: walk}); err != nil {
		return fmt.Errorf("MCP stdio without the mirror: %w", err)
	}
	if _, err = s.waitWindow(map[string]any{"process": "gtk3-widget-factory"}); err != nil {
		return err
	}
	s.logf("mcec serve is pid %d, mcec mcp is pid %d", s.serve.pid(), stdio.Process.Pid)
	s.idleRSS, err = procStatus(s.serve.pid(), "VmRSS")
	return err
}

// waitServe waits for mcec serve to answer the façade, under a deadline.
func (s *suite) waitServe() error {
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(s.ctx, time.Second)
		_, err := s.facade.call(ctx, "session-status", nil)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-s.serve.Done():
			return fmt.Errorf("mcec serve exited: %v", s.serve.Err())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("mcec serve did not answer within 20s: %w", err)
		}
	}
}

type windowInfo struct {
	Handle        uint32 `json:"handle"`
	Title         string `json:"title"`
	ProcessID     int    `json:"processId"`
	X, Y          int
	Width, Height int
}

// waitWindow waits (with mcec's own event-driven windows wait) for one window matching filter.
func (s *suite) waitWindow(filter map[string]any) (windowInfo, error) {
	args := map[string]any{"timeout": 15000}
	maps.Copy(args, filter)
	var res struct {
		Satisfied bool         `json:"satisfied"`
		Windows   []windowInfo `json:"windows"`
	}
	ctx, cancel := context.WithTimeout(s.ctx, 20*time.Second)
	defer cancel()
	if err := callOK(ctx, s.stdio, "windows", args, &res); err != nil {
		return windowInfo{}, err
	}
	if !res.Satisfied || len(res.Windows) != 1 {
		return windowInfo{}, fmt.Errorf("window %v: satisfied=%v, %d windows", filter, res.Satisfied, len(res.Windows))
	}
	return res.Windows[0], nil
}

func (s *suite) close() {
	if s.stdio != nil {
		_ = s.stdio.cs.Close()
	}
	if s.walk != nil {
		_ = s.walk.cs.Close()
	}
	if s.httpMCP != nil {
		_ = s.httpMCP.cs.Close()
	}
	s.serve.stop()
	for _, p := range s.procs {
		p.stop()
	}
	if s.desk != nil {
		if err := s.desk.Stop(); err != nil {
			s.logf("stopping the desktop: %v", err)
		}
	}
	if s.tmp != "" {
		_ = os.RemoveAll(s.tmp)
	}
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// callCtx bounds one benchmarked call.
func (s *suite) callCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.ctx, 60*time.Second)
}

// ratioRow builds a row where smaller is better on both sides: ratio = theirs / ours.
func ratioRow(what, against string, ours, theirs time.Duration, need float64, comments string) row {
	r := row{What: what, Mcec: ms(ours), Against: against, Ref: ms(theirs), Comments: comments}
	if ours > 0 {
		r.Ratio = float64(theirs) / float64(ours)
	}
	if need > 0 {
		r.Target = fmt.Sprintf("≥ %g×", need)
		r.Met = ptr(r.Ratio >= need)
	}
	return r
}
