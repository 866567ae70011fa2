package bench

import (
	"fmt"
	"path/filepath"
	"strconv"
	"time"
)

// benchGrowth queries a generated app (a GTK TreeView of N rows) of growing size, reading every
// node and then with maxNodes 1000, to show how the cost grows with the nodes visited.
func (s *suite) benchGrowth() error {
	type point struct {
		rows, nodes int
		all, capped time.Duration
		cappedNodes int
	}
	var pts []point
	for _, n := range []int{100, 1000, 10000} {
		p, err := startProc(command(s.env, debianPython, filepath.Join(s.tmp, "rows.py"), strconv.Itoa(n)))
		if err != nil {
			return err
		}
		title := fmt.Sprintf("mcec rows %d", n)
		win, err := s.waitWindow(map[string]any{"window": title})
		if err != nil {
			p.stop()
			return err
		}
		target := map[string]any{"handle": win.Handle}
		pt := point{rows: n}
		// Wait for the tree to fill in (the rows are exposed once the view is realized).
		deadline := time.Now().Add(20 * time.Second)
		for {
			res, err := s.query(fullTree(target))
			if err == nil && res.NodeCount > n {
				pt.nodes = res.NodeCount
				break
			}
			if time.Now().After(deadline) {
				p.stop()
				return fmt.Errorf("%s: tree never showed %d rows (last: %d nodes, %v)", title, n, res.NodeCount, err)
			}
			time.Sleep(200 * time.Millisecond) // bounded poll for the application's tree to appear
		}
		all, err := s.timedQuery(s.walk, fullTree(target), 1, s.opt.Reps, func(res queryResult) error {
			if res.NodeCount != pt.nodes {
				return fmt.Errorf("%s: %d nodes, before %d", title, res.NodeCount, pt.nodes)
			}
			return nil
		})
		if err != nil {
			p.stop()
			return err
		}
		capped := fullTree(target)
		capped["maxNodes"] = 1000
		cap, err := s.timedQuery(s.walk, capped, 1, s.opt.Reps, func(res queryResult) error {
			pt.cappedNodes = res.NodeCount
			return nil
		})
		p.stop()
		if err != nil {
			return err
		}
		pt.all, pt.capped = all.median(), cap.median()
		pts = append(pts, pt)
		s.logf("%d rows: %d nodes %s, maxNodes 1000 (%d nodes) %s", n, pt.nodes, ms(pt.all), pt.cappedNodes, ms(pt.capped))
	}
	base := pts[0]
	perNode := float64(base.all) / float64(base.nodes)
	for _, pt := range pts {
		linear := time.Duration(perNode * float64(pt.nodes))
		r := ratioRow(fmt.Sprintf("`query` TreeView of %d rows, every node (%d nodes)", pt.rows, pt.nodes),
			"linear from 100 rows (per-node cost × nodes)", pt.all, linear, 0,
			fmt.Sprintf("%.1f µs/node", float64(pt.all)/float64(pt.nodes)/1e3))
		if pt.rows > base.rows {
			// Linear means the per-node cost does not grow: allow 1.5× for noise and caches.
			r.Target, r.Met = "≥ 0.67× (linear)", ptr(r.Ratio >= 1/1.5)
		}
		s.add(r)
	}
	ref := pts[1] // 1,000 rows, maxNodes 1000: the bound is reached there already
	for _, pt := range pts {
		r := ratioRow(fmt.Sprintf("`query` TreeView of %d rows, maxNodes 1000 (%d nodes)", pt.rows, pt.cappedNodes),
			"same query on 1,000 rows", pt.capped, ref.capped, 0, "")
		if pt.rows > ref.rows {
			r.Target, r.Met = "≥ 0.67× (bounded)", ptr(r.Ratio >= 1/1.5)
		}
		s.add(r)
	}
	return nil
}
