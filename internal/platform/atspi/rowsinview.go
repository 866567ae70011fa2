package atspi

import (
	"context"
)

// Rows in view. A GTK 3 tree view reports every one of its cells showing, rows scrolled out of
// view included, and answers GetExtents of those with INT_MIN (setExtents); each answer costs
// the application an X round trip of its own, so in a cold walk of a 1,500-row list the cells'
// extents took as long as everything else together (BenchmarkColdList). Its cells are its
// children row by row, in the order the rows are displayed, and a cell is in view when its
// rectangle meets the view's (is_cell_showing). So the walk measures only the cells around one
// in view, which the table names by hit test at its centre, outwards in both directions until
// a whole row's worth of cells in a row is out of view: rows are stacked, so every row beyond
// is out too. Those cells are settled offscreen without a call, which is what GetExtents would
// have said of each. Anything unexpected (no cell at the centre, a table without columns, a
// cell at the centre that says it is out of view) measures every cell as before.
// TestRowsInView compares both on lists scrolled every way.

// manyCells is the fewest cells of one table worth the probe: it costs three calls in sequence.
const manyCells = 64

// probeBatch bounds the calls in flight of one table's probe, beside the walk's own.
const probeBatch = 16

// rowsInViewJobs returns one job per large table among the parents of nodes (one level of a
// walk) whose bridge lays cells out in rows (bridge.cellsInRows): it measures the cells in view
// and settles the others. The cells it takes are marked measured, so enrichJobs leaves them.
func (w *walker) rowsInViewJobs(nodes []*node) []job {
	if !w.bridge.cellsInRows || w.c.everyExtent || w.limits.Lean || len(w.limits.Cells) > 0 {
		return nil // cells asked for by address are not in their table's order
	}
	var (
		tables []*node
		cells  = map[*node][]*node{}
	)
	for _, n := range nodes {
		p := n.parent
		if p == nil || p.info == nil || p.info.ifaces&hasTable == 0 || n.dead.Load() || n.extDone || n.info.role != roleTableCell ||
			n.info.ifaces&hasComponent == 0 || !n.info.states.has(stateShowing) {
			continue
		}
		if cells[p] == nil {
			tables = append(tables, p)
		}
		cells[p] = append(cells[p], n)
	}
	var jobs []job
	for _, t := range tables {
		cs := cells[t]
		if len(cs) < manyCells {
			continue
		}
		for _, n := range cs {
			n.extDone = true
		}
		jobs = append(jobs, func(ctx context.Context) error {
			inView, err := w.cellsInView(ctx, t, cs)
			if err != nil || inView {
				return err
			}
			return w.measure(ctx, cs)
		})
	}
	return jobs
}

// cellsInView measures the cells of table around the one at its centre and settles the rest
// offscreen. It reports false, having settled nothing, when the table does not lend itself.
func (w *walker) cellsInView(ctx context.Context, table *node, cells []*node) (bool, error) {
	coords := w.bridge.coordType()
	r, ok, f, err := w.c.extents(ctx, table.ref, coords)
	if err != nil {
		return false, nodeFailure(table, f, err)
	}
	box := extentsRect(r)
	if !ok || box == nil || box.Width <= 0 || box.Height <= 0 {
		return false, nil
	}
	var cols int32
	if f, err := w.c.property(ctx, table.ref.Bus, table.ref.Path, ifTable, "NColumns", &cols); err != nil || cols < 1 {
		if f.fatal() {
			return false, err
		}
		return false, nil
	}
	// On the application's socket like the walk's other calls: inside a modal dialog's nested
	// loop GTK 3 answers there, not on the bus (peer.go).
	hit, f, err := w.c.refCall(ctx, table.ref, ifComponent, "GetAccessibleAtPoint",
		int32(box.X+box.Width/2), int32(box.Y+box.Height/2), coords)
	if err != nil || hit.null() {
		if f.fatal() {
			return false, err
		}
		return false, nil
	}
	seed := -1
	for i, n := range cells {
		if n.ref == hit {
			seed = i
			break
		}
	}
	if seed < 0 {
		return false, nil
	}
	if err := w.measure(ctx, cells[seed:seed+1]); err != nil {
		return false, err
	}
	if s := cells[seed]; s.extents == nil || s.offscreen {
		return false, nil
	}
	for _, dir := range []int{1, -1} {
		if err := w.measureOutwards(ctx, cells, seed, dir, int(cols)); err != nil {
			return false, err
		}
	}
	return true, nil
}

// measureOutwards measures cells from seed in direction dir (1: down, -1: up), in growing
// batches, until cols cells of consecutive indices are out of view, and settles the cells
// beyond them offscreen. Cells of consecutive indices cover every column once, over at most two
// rows, and the seed's column is in view, so the farther of those rows is out of view.
func (w *walker) measureOutwards(ctx context.Context, cells []*node, seed, dir, cols int) error {
	run, last := 0, cells[seed].index
	step := 8
	for i := seed + dir; i >= 0 && i < len(cells); {
		end := max(min(i+dir*step, len(cells)), -1)
		var batch []*node
		for j := i; j != end; j += dir {
			batch = append(batch, cells[j])
		}
		if err := w.measure(ctx, batch); err != nil {
			return err
		}
		for _, n := range batch {
			out := !n.dead.Load() && n.offscreen
			if !out || n.index != last+dir {
				run = 0 // a cell in view, unreadable or gone, or a gap: count afresh
			}
			last = n.index
			if !out {
				continue
			}
			if run++; run >= cols {
				for j := end; j >= 0 && j < len(cells); j += dir {
					cells[j].extents, cells[j].offscreen = nil, true
				}
				return nil
			}
		}
		i, step = end, min(2*step, 64)
	}
	return nil
}

// measure asks the extents of cells, at most probeBatch at a time.
func (w *walker) measure(ctx context.Context, cells []*node) error {
	sem := make(chan struct{}, probeBatch)
	if w.useCalls() {
		calls := make([]callJob, len(cells))
		for i, n := range cells {
			calls[i] = w.extentsCall(n)
		}
		return w.c.runCalls(ctx, sem, calls)
	}
	jobs := make([]job, len(cells))
	for i, n := range cells {
		jobs[i] = w.extentsJob(n)
	}
	return run(ctx, sem, jobs)
}
