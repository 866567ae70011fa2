package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

type queryResult struct {
	Window    windowInfo `json:"window"`
	NodeCount int        `json:"nodeCount"`
	Truncated bool       `json:"truncated"`
	Tree      struct {
		Name string `json:"name"`
	} `json:"tree"`
}

// query runs one query over stdio MCP on the server without the tree mirror, so that it
// measures a walk of the application.
func (s *suite) query(args map[string]any) (queryResult, error) {
	res, _, err := s.queryTimed(s.walk, args)
	return res, err
}

// queryTimed runs one query on c and returns its result with the time until the MCP client
// library returned it (callTimed: decoding and checking the answer is not timed).
func (s *suite) queryTimed(c *mcpCaller, args map[string]any) (queryResult, time.Duration, error) {
	var res queryResult
	ctx, cancel := s.callCtx()
	defer cancel()
	env, took, err := c.callTimed(ctx, "query", args)
	if err == nil {
		err = env.resultInto("query", &res)
	}
	return res, took, err
}

// timedQuery measures queries of args on c; check (may be nil) vets each answer, untimed.
func (s *suite) timedQuery(c *mcpCaller, args map[string]any, warm, reps int, check func(queryResult) error) (sample, error) {
	return measure(warm, reps, func() (time.Duration, error) {
		r, took, err := s.queryTimed(c, args)
		if err == nil && check != nil {
			err = check(r)
		}
		return took, err
	})
}

// queryUntil queries until the answer holds more than minNodes nodes (the application's tree
// fills in after its window maps), polling every 300 ms for at most 20 s.
func (s *suite) queryUntil(args map[string]any, minNodes int, what string) (queryResult, error) {
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := s.query(args)
		if err == nil && res.NodeCount > minNodes {
			return res, nil
		}
		if time.Now().After(deadline) {
			return res, fmt.Errorf("%s never filled (%d nodes): %v", what, res.NodeCount, err)
		}
		time.Sleep(300 * time.Millisecond) // bounded poll for the application's tree
	}
}

// walker is the warm pyatspi process.
type walker struct {
	p   *proc
	in  io.WriteCloser
	out *bufio.Reader
}

func (s *suite) startWalker() (*walker, error) {
	cmd := command(s.env, debianPython, filepath.Join(s.tmp, "walk.py"))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p, err := startProc(cmd)
	if err != nil {
		return nil, err
	}
	s.procs = append(s.procs, p)
	return &walker{p: p, in: in, out: bufio.NewReader(out)}, nil
}

// walk asks for one walk of pid's frame and returns the node count it read.
func (w *walker) walk(ctx context.Context, pid int, frame string) (int, error) {
	type answer struct {
		line string
		err  error
	}
	ch := make(chan answer, 1)
	go func() {
		if _, err := fmt.Fprintf(w.in, "walk %d %s\n", pid, frame); err != nil {
			ch <- answer{err: err}
			return
		}
		line, err := w.out.ReadString('\n')
		ch <- answer{line: strings.TrimSpace(line), err: err}
	}()
	select {
	case a := <-ch:
		if a.err != nil {
			return 0, a.err
		}
		n, err := strconv.Atoi(a.line)
		if err != nil {
			return 0, fmt.Errorf("pyatspi walk: %s", a.line)
		}
		return n, nil
	case <-ctx.Done():
		w.p.stop()
		return 0, fmt.Errorf("pyatspi walk: %w", ctx.Err())
	}
}

// fullTree is a query large enough for the whole frame subtree (the server's caps are 64 levels
// and 20,000 nodes; children and time unbounded in practice).
func fullTree(target map[string]any) map[string]any {
	args := map[string]any{"maxDepth": 64, "maxNodes": 20000, "maxChildren": 20000, "timeBudget": 30000}
	maps.Copy(args, target)
	return args
}

func (s *suite) benchTree() error {
	args := fullTree(map[string]any{"process": "gtk3-widget-factory"})
	// The first query also waits out the application's start-up.
	res, err := s.queryUntil(args, 1, "the widget factory's tree")
	if err != nil {
		return err
	}
	if res.Truncated {
		return fmt.Errorf("query of gtk3-widget-factory was truncated at %d nodes", res.NodeCount)
	}
	w, err := s.startWalker()
	if err != nil {
		return err
	}
	pid, frame := res.Window.ProcessID, res.Tree.Name
	ctx, cancel := context.WithTimeout(s.ctx, 5*time.Minute)
	defer cancel()
	// gtk3-widget-factory keeps adding nodes for a moment after its window maps: compare until
	// both sides agree (or give up and say so).
	var pyCount int
	deadline := time.Now().Add(15 * time.Second)
	for {
		if pyCount, err = w.walk(ctx, pid, frame); err != nil {
			return err
		}
		if pyCount == res.NodeCount {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("node counts differ: query %d, pyatspi %d (frame %q)", res.NodeCount, pyCount, frame)
		}
		time.Sleep(300 * time.Millisecond) // bounded poll for the tree to settle
		if res, err = s.query(args); err != nil {
			return err
		}
	}
	nodes := func(what string) func(queryResult) error {
		return func(r queryResult) error {
			if r.NodeCount != pyCount {
				return fmt.Errorf("%s returned %d nodes, pyatspi %d", what, r.NodeCount, pyCount)
			}
			return nil
		}
	}
	ours, err := s.timedQuery(s.walk, args, s.opt.Warm, s.opt.Reps, nodes("query"))
	if err != nil {
		return err
	}
	theirs, err := measure(s.opt.Warm, s.opt.Reps, timed(func() error {
		n, err := w.walk(ctx, pid, frame)
		if err == nil && n != pyCount {
			err = fmt.Errorf("pyatspi walked %d nodes, before %d", n, pyCount)
		}
		return err
	}))
	if err != nil {
		return err
	}
	r := ratioRow(fmt.Sprintf("`query` gtk3-widget-factory, all fields (%d nodes), stdio MCP", pyCount),
		"pyatspi walk (role, name, states, extents), warm process", ours.median(), theirs.median(), 5,
		fmt.Sprintf("aim < 30 ms: %s", yesNo(ours.median() < 30*time.Millisecond)))
	s.add(r)
	w.p.stop()
	// The same query again and again of the unchanged window, answered from the mirror.
	warm, err := s.timedQuery(s.stdio, args, s.opt.Warm, s.opt.Reps, nodes("warm query"))
	if err != nil {
		return err
	}
	r = targetRow(fmt.Sprintf("`query` gtk3-widget-factory unchanged, all fields (%d nodes), warm mirror, stdio MCP", pyCount),
		warm.median(), 5*time.Millisecond)
	r.Comments = fmt.Sprintf("the walk above: %s; the answer is %s of JSON", ms(ours.median()), kb(warmBytes(s, args)))
	s.add(r)
	// The same as an outline: a quarter of the bytes to encode, send and decode.
	outlineArgs := maps.Clone(args)
	outlineArgs["format"] = "outline"
	warmOutline, err := s.timedQuery(s.stdio, outlineArgs, s.opt.Warm, s.opt.Reps, nil)
	if err != nil {
		return err
	}
	r = targetRow(fmt.Sprintf("`query` gtk3-widget-factory unchanged, outline (%d nodes), warm mirror, stdio MCP", pyCount),
		warmOutline.median(), 5*time.Millisecond)
	r.Comments = fmt.Sprintf("the answer is %s", kb(warmBytes(s, outlineArgs)))
	s.add(r)
	return s.benchColdList()
}

// coldListRows makes a generated list of about 1,500 nodes (issue 16's cold query target).
const coldListRows = 1500

// benchColdList measures a cold query (every node read from the application) of a generated
// GTK list of 1,500 rows.
func (s *suite) benchColdList() error {
	p, err := startProc(command(s.env, debianPython, filepath.Join(s.tmp, "rows.py"), strconv.Itoa(coldListRows)))
	if err != nil {
		return err
	}
	defer p.stop()
	target := map[string]any{"window": fmt.Sprintf("mcec rows %d", coldListRows)}
	if _, err := s.waitWindow(target); err != nil {
		return err
	}
	args := fullTree(target)
	res, err := s.queryUntil(args, coldListRows, "the list's tree")
	if err != nil {
		return err
	}
	app := cpuOf(p.pid())
	cold, err := s.timedQuery(s.walk, args, 1, 10, nil)
	if err != nil {
		return err
	}
	appMs := float64(cpuOf(p.pid())-app) / float64(time.Millisecond) / 11
	r := targetRow(fmt.Sprintf("`query` a generated GTK list of %d rows, cold (%d nodes), stdio MCP", coldListRows, res.NodeCount),
		cold.median(), 300*time.Millisecond)
	r.Comments = fmt.Sprintf("%.0f µs per node; the application's CPU %.0f ms per query (its main loop answering)",
		float64(cold.median().Microseconds())/float64(res.NodeCount), appMs)
	s.add(r)
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// cpuOf reads a process's user+system CPU time from /proc (clock ticks of 10 ms).
func cpuOf(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	st := string(b)
	f := strings.Fields(st[strings.LastIndexByte(st, ')')+2:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.Atoi(f[11])
	k, _ := strconv.Atoi(f[12])
	return time.Duration(u+k) * 10 * time.Millisecond
}

// warmBytes is the size of the envelope a query answers with (0 when it fails).
func warmBytes(s *suite, args map[string]any) int {
	ctx, cancel := s.callCtx()
	defer cancel()
	t, err := s.stdio.text(ctx, "query", args)
	if err != nil {
		return 0
	}
	return len(t)
}

func kb(n int) string { return fmt.Sprintf("%.1f KB", float64(n)/1000) }
