package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Huge trees (issue 14): a spreadsheet whose sheet claims 2^30 cells, and a Qt list of 1,500
// items (Qt's bridge serves no cache: every node costs calls). Nothing else answers these at
// all in reasonable time (pyatspi's name search over Calc never finishes), so they are rows
// against targets.

const qtListItems = 1500

func (s *suite) benchHuge() error {
	if err := s.benchCalc(); err != nil {
		return err
	}
	return s.benchQtList()
}

func (s *suite) benchCalc() error {
	profile, err := os.MkdirTemp(s.tmp, "lo-")
	if err != nil {
		return err
	}
	calc, err := startProc(command(s.env, "libreoffice", "--calc", "--norestore", "--nologo",
		"-env:UserInstallation=file://"+profile))
	if err != nil {
		return err
	}
	s.procs = append(s.procs, calc)
	target := map[string]any{"className": "libreoffice-calc"}
	if err := s.waitSlowWindow(target); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(s.ctx, 60*time.Second)
	defer cancel()
	find := func(cell string) func() error {
		return func() error {
			var res struct {
				Found bool `json:"found"`
			}
			args := map[string]any{"element": map[string]any{"name": cell}}
			for k, v := range target {
				args[k] = v
			}
			if err := callOK(ctx, s.stdio, "find", args, &res); err != nil {
				return err
			}
			if !res.Found {
				return fmt.Errorf("find %s in Calc: not found", cell)
			}
			return nil
		}
	}
	// The first find also waits out Calc filling its tree after the window maps.
	deadline := time.Now().Add(30 * time.Second)
	for find("A1")() != nil {
		if time.Now().After(deadline) {
			return fmt.Errorf("the Calc cell A1 never appeared")
		}
		time.Sleep(300 * time.Millisecond) // bounded poll for the application's tree
	}
	for _, cell := range []string{"A1", "B2"} {
		got, err := measure(s.opt.Warm, s.opt.Reps/2, timed(find(cell)))
		if err != nil {
			return err
		}
		s.add(targetRow(fmt.Sprintf("`find` cell %s in LibreOffice Calc (sheet of 2^30 cells), stdio MCP", cell),
			got.median(), time.Second))
	}
	var res queryResult
	got, err := measure(s.opt.Warm, s.opt.Reps/2, timed(func() error {
		return callOK(ctx, s.stdio, "query", target, &res)
	}))
	if err != nil {
		return err
	}
	r := targetRow(fmt.Sprintf("`query` LibreOffice Calc, defaults (%d nodes, truncated %v)", res.NodeCount, res.Truncated),
		got.median(), 2*time.Second)
	r.Comments = "bounded by maxChildren 200 and the 2 s time budget"
	s.add(r)
	calc.stop()
	return nil
}

func (s *suite) benchQtList() error {
	script := filepath.Join(s.tmp, "qtlist.py")
	if err := os.WriteFile(script, qtListPy, 0o644); err != nil {
		return err
	}
	list, err := startProc(command(s.env, debianPython, script, fmt.Sprint(qtListItems)))
	if err != nil {
		return err
	}
	s.procs = append(s.procs, list)
	target := map[string]any{"window": fmt.Sprintf("mcec qt list %d", qtListItems)}
	if _, err := s.waitWindow(target); err != nil {
		return err
	}
	args := fullTree(target)
	res, err := s.queryUntil(args, qtListItems, "the Qt list's tree")
	if err != nil {
		return err
	}
	got, err := s.timedQuery(s.walk, args, 1, 5, nil)
	if err != nil {
		return err
	}
	r := targetRow(fmt.Sprintf("`query` a PyQt5 list of %d items, whole tree (%d nodes, no bridge cache), stdio MCP", qtListItems, res.NodeCount),
		got.median(), 3*time.Second)
	r.Comments = "Qt is read one property at a time (its bridge crashes on GetAll)"
	s.add(r)
	list.stop()
	return nil
}
