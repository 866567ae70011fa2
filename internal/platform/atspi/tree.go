package atspi

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/atspi/dbuswire"
)

// node is one object during a walk.
type node struct {
	ref    objRef
	info   *objInfo
	parent *node
	index  int // among the parent's children as the walk listed them (rowsinview.go)
	depth  int // meaningful depth: unnamed structural containers above it do not count
	raw    int // levels below the root
	kids   []*node
	dead   atomic.Bool
	cut    bool // the walk listed fewer children than the object has

	kidRefs []objRef // children chosen within the budget, before they are described
	extents *platform.Rect
	extDone bool
	// offscreen: showing by its states, but its extents say it is not on screen (setExtents).
	offscreen bool
	// transparent: a socket, or a plug's node above the first that reports SHOWING; its
	// visibility is its parent's (embed.go).
	transparent bool
	// top: a top-level object (frame, dialog) of its application, whose empty extents do not
	// hide it (a GTK 4 dialog's frame reports 0×0; its window has the area).
	top bool
	// popover: a GTK 4 popover on a Wayland desktop (popups.go); its objects get no bounds.
	popover  bool
	id       string // AccessibleId when the cache lacked it
	roleName string
	value    *string
	actions  []string
	// What this walk fetched that the client's meta cache should keep; one field per job so
	// concurrent jobs on a node never write the same word.
	gotKind, gotID, gotActions bool
}

// role is the node's role name: from the table, or as the application named a newer one.
func (n *node) role() string {
	if n.roleName != "" {
		return n.roleName
	}
	r, _ := roleName(n.info.role)
	return r
}

// walker holds the state of one Tree call on one application.
type walker struct {
	c      *Client
	sem    chan struct{} // bounds this walk's calls in flight across concurrent batches
	app    objRef
	bridge bridge              // what the application's bridge serves safely
	origin *platform.Point     // the window's origin, for bridges with window-relative extents
	snap   map[objRef]*objInfo // nil: the application has no cache; describe by calls
	limits platform.TreeLimits

	pid        int             // the window's process, 0 in Subtree
	embedded   map[string]bool // plug buses whose caches joined snap (embed.go)
	unfollowed []string        // plug buses that did not answer

	frame *platform.Rect // the root's screen rectangle, when it reported one (outside)

	nodes     []*node         // every node kept, in breadth-first order
	seen      map[objRef]bool // guards against applications that report an object twice
	truncated atomic.Uint32   // the limits that cut the walk, as truncation bits; set from jobs
	dead      int
	timings   []any // phase durations for the debug log
}

// Tree returns the accessibility tree of the application frame that belongs to the window win:
// among the top-level objects of the applications of win's process, the one frames.go matches
// to it by title, geometry, kind and focus, against the process's other windows (from
// Options.WindowsOf). The root is that frame, at depth 0.
//
// Limits below 1 node or depth 0 are raised to them. A hung application fails with
// platform.ErrAppNotResponding within the call deadline; a pid with no registered
// application, or an application without a frame, fails with platform.ErrNoAccessibleTree;
// frames that the clues cannot tell apart fail with platform.ErrFrameAmbiguous.
//
// A Chromium frame caught while it rebuilds its tree is walked again, bounded (hollow.go).
func (c *Client) Tree(ctx context.Context, win platform.Window, limits platform.TreeLimits) (platform.Tree, error) {
	limits.MaxNodes = max(limits.MaxNodes, 1)
	limits.MaxDepth = max(limits.MaxDepth, 0)
	t, isHollow, err := c.treeOnce(ctx, win, limits)
	if err != nil || !isHollow {
		return t, err
	}
	return c.fillHollow(ctx, win, limits, t)
}

// treeOnce is one Tree: from the mirror or one walk. It also reports a Chromium frame with no
// content in it (hollow.go).
func (c *Client) treeOnce(ctx context.Context, win platform.Window, limits platform.TreeLimits) (platform.Tree, bool, error) {
	start, calls := time.Now(), c.calls.Load()
	key := keyOf(win, limits)
	if !c.noMirror {
		if t, ok := c.fromMirror(ctx, key); ok {
			c.mirror.hits.Add(1)
			c.log.Debug("atspi: tree from the mirror", "pid", win.ProcessID, "nodes", t.NodeCount, "total", time.Since(start))
			return t, false, nil
		}
		c.mirror.misses.Add(1)
	}
	appsGen := c.hub.appsGen.Load()
	pid := win.ProcessID
	apps, err := c.appsOf(ctx, pid)
	if err != nil {
		return platform.Tree{}, false, err
	}
	if len(apps) == 0 {
		return platform.Tree{}, false, &notRegistered{pid: pid}
	}
	var stamp mirrorStamp
	var (
		cands    []frameCandidate
		walkers  = map[*node]*walker{}
		firstErr error
	)
	for _, app := range apps {
		if _, err := c.bridgeOf(ctx, app.Bus); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
	}
	if firstErr == nil && !c.noMirror {
		// Before anything is read: an event from here on makes what the walk reads stale.
		stamp = c.stamp(ctx, apps, appsGen)
	}
	for _, app := range apps {
		b, err := c.bridgeOf(ctx, app.Bus)
		if err != nil {
			continue
		}
		w := &walker{c: c, sem: make(chan struct{}, maxInFlight), app: app, bridge: b, limits: limits, pid: pid}
		tops, err := w.topLevels(ctx)
		if err != nil {
			// Another application of the same process may still answer.
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		for _, t := range tops {
			cands = append(cands, frameCandidate{node: t, relative: b.relative})
			walkers[t] = w
		}
	}
	if len(cands) == 0 {
		if firstErr != nil {
			return platform.Tree{}, false, firstErr
		}
		return platform.Tree{}, false, &notRegistered{pid: pid, frameless: true}
	}
	var others []platform.Window
	if len(cands) > 1 && c.opts.WindowsOf != nil {
		ws, err := c.opts.WindowsOf(ctx, pid)
		if err != nil {
			return platform.Tree{}, false, err
		}
		listed := false
		for _, o := range ws {
			if o.Handle != win.Handle {
				others = append(others, o)
			} else {
				listed = true
			}
		}
		if !listed && win.Handle != 0 {
			return platform.Tree{}, false, closedWindow(win)
		}
	} else if len(cands) == 1 && win.Handle != 0 && c.opts.Window != nil {
		// The lone frame may be another window's of the process while the asked one has just
		// closed (a dialog whose title holds the main window's): then there is no tree to give.
		if _, err := c.opts.Window(ctx, win.Handle); errors.Is(err, platform.ErrWindowClosed) {
			return platform.Tree{}, false, closedWindow(win)
		}
	}
	best, err := matchFrame(cands, win, others)
	if err != nil {
		return platform.Tree{}, false, err
	}
	if best == nil {
		return platform.Tree{}, false, fmt.Errorf("%w: none of the %d frames of pid %d fits the window %q at %+v; use capture and pixel input instead",
			platform.ErrNoAccessibleTree, len(cands), pid, win.Title, win.Bounds)
	}
	bestW := walkers[best]
	if bestW.bridge.relative {
		if bestW.origin, err = c.windowOrigin(ctx, win, best, bestW.bridge); err != nil {
			return platform.Tree{}, false, err
		}
		if o := bestW.origin; o != nil {
			c.rememberFrame(best.ref, win, o.X-win.Bounds.X, o.Y-win.Bounds.Y, true)
		} else {
			c.rememberFrame(best.ref, win, 0, 0, false)
		}
	}
	bestW.timings = append(bestW.timings, "frames", time.Since(start))
	t, err := bestW.tree(ctx, best)
	if err == nil && bestW.bridge.vclShift && !limits.Lean && len(t.Root.Children) > 0 {
		// LibreOffice: VCL's objects are drawn below the native menu bar (vcl.go).
		s, serr := c.topShift(ctx, best.ref)
		if serr != nil {
			return platform.Tree{}, false, serr
		}
		shiftTree(t.Root, s, false)
	}
	if err == nil && bestW.bridge.relative && bestW.origin != nil && c.opts.Popups != nil && !limits.Lean {
		// GTK 4's popovers: placed where their surfaces are (popups.go).
		if popups, perr := c.opts.Popups(ctx, win.Handle); perr == nil {
			placePopups(t.Root, popups)
		}
	}
	if err == nil && c.opts.WindowLocal && !limits.Lean {
		// Wayland popups: placed where the compositor shows their surfaces (surfaces.go).
		c.placeSurfaces(ctx, t.Root, pid)
	}
	if err == nil && (t.Root.Bounds == nil || t.Root.Bounds.Empty()) && !win.Bounds.Empty() && t.Root.States["showing"] {
		// A frame that reports no rectangle (Swing) or an empty one (a GTK 4 dialog) covers its
		// window, whose area X knows.
		b := win.Bounds
		t.Root.Bounds = &b
	}
	if err == nil && len(bestW.embedded) > 0 {
		c.noteEmbeds(pid, bestW.embedded)
		stamp.ok = false // the plug's events are not counted by the stamp (embed.go)
	}
	if err == nil && !c.noMirror {
		c.keep(key, stamp, t)
		t.Root = cloneNode(t.Root)
	}
	if err == nil {
		c.log.Debug("atspi: tree", append([]any{"pid", pid, "nodes", t.NodeCount, "cache", bestW.snap != nil,
			"total", time.Since(start), "calls", c.calls.Load() - calls}, bestW.timings...)...)
	}
	return t, err == nil && hollow(bestW.bridge, t), err
}

// topLevels returns the application's top-level objects (frames, dialogs, windows) with their
// extents. It fetches the application's cache first.
func (w *walker) topLevels(ctx context.Context) ([]*node, error) {
	snap, err := w.c.snapshot(ctx, w.app)
	if err != nil {
		return nil, err
	}
	w.snap = snap
	if w.bridge.noShowing {
		for _, info := range snap {
			info.states = w.bridge.normalize(info.states)
		}
	}
	app := &node{ref: w.app, depth: -1, raw: -1}
	if info := snap[w.app]; info != nil && info.childrenComplete {
		app.kidRefs = info.children
	} else {
		refs, _, f, err := w.c.children(ctx, w.app)
		if err != nil {
			if f.fatal() {
				return nil, err
			}
			return nil, nil
		}
		app.kidRefs = refs
	}
	tops, err := w.materialize(ctx, []*node{app})
	if err != nil {
		return nil, err
	}
	var jobs []job
	for _, t := range tops {
		if t.info.ifaces&hasComponent != 0 {
			jobs = append(jobs, w.extentsJob(t))
		}
	}
	if err := run(ctx, w.sem, jobs); err != nil {
		return nil, err
	}
	live := tops[:0]
	for _, t := range tops {
		if !t.dead.Load() {
			live = append(live, t)
		}
	}
	return live, nil
}

// tree walks breadth-first from root within the limits and converts the kept nodes. Each
// level is enriched (extents, ids, actions, values) in the background as soon as it is
// known, so those calls overlap the calls that walk containers managing their descendants.
func (w *walker) tree(ctx context.Context, root *node) (platform.Tree, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		enrichers sync.WaitGroup
		once      sync.Once
		enrichErr error
	)
	enrich := func(level []*node) {
		jobs := w.enrichJobs(level)
		enrichers.Go(func() {
			if err := w.c.runBatch(ctx, w.sem, jobs); err != nil {
				once.Do(func() { enrichErr = err; cancel() })
			}
		})
	}
	start := time.Now()
	root.depth, root.raw = 0, 0
	w.nodes = []*node{root}
	level := []*node{root}
	enrich(level)
	walkErr := func() error {
		rawCap := platform.RawDepthCap(w.limits.MaxDepth)
		for len(level) > 0 {
			if err := w.countUnknown(ctx, level); err != nil {
				return err
			}
			var expand []*node
			for _, n := range level {
				switch {
				case n.dead.Load() || !n.hasChildren():
				case w.limits.ShowingOnly && n.raw > 0 && !n.info.states.has(stateShowing) && !n.maybeSocket():
				case n.depth+n.depthCost(w.bridge) > w.limits.MaxDepth || n.raw >= rawCap:
					n.cut = true
					w.cut(cutDepth)
				default:
					expand = append(expand, n)
				}
			}
			if len(expand) == 0 {
				return nil
			}
			if w.limits.Budget > 0 && time.Since(start) >= w.limits.Budget {
				w.cut(cutTime)
				for _, n := range expand {
					n.cut = true
				}
				return nil
			}
			if err := w.childRefs(ctx, expand, w.limits.MaxNodes-len(w.nodes)); err != nil {
				return err
			}
			next, err := w.materialize(ctx, expand)
			if err != nil {
				return err
			}
			enrich(next)
			w.nodes = append(w.nodes, next...)
			level = next
		}
		return nil
	}()
	w.timings = append(w.timings, "walk", time.Since(start))
	enrichers.Wait()
	w.timings = append(w.timings, "enrich", time.Since(start))
	if enrichErr != nil {
		return platform.Tree{}, enrichErr // the first failure; the walk's is then only the cancellation
	}
	if walkErr != nil {
		return platform.Tree{}, walkErr
	}
	w.remember()
	if w.c.opts.WindowLocal && w.bridge.windowCoords && !w.limits.Lean {
		if err := w.markPopovers(ctx); err != nil {
			return platform.Tree{}, err
		}
	}
	if root.dead.Load() {
		return platform.Tree{}, fmt.Errorf("%w: its frame disappeared during the walk", platform.ErrWindowClosed)
	}
	if r := w.screenRect(root.extents); r != nil && !r.Empty() && root.top {
		w.frame = r
	}
	out, count := w.convert(root)
	w.dead += len(w.nodes) - count
	by := w.truncatedBy()
	skeleton := w.skeleton(root)
	if skeleton == "" {
		skeleton = unfollowedWarning(w.unfollowed)
	}
	return platform.Tree{Root: out, NodeCount: count, Truncated: len(by) > 0, TruncatedBy: by, SkippedDead: w.dead,
		SecretsMasked: secretsMasked(out), Skeleton: skeleton}, nil
}

// closedWindow is the failure of a tree asked for a window that is no longer open.
func closedWindow(win platform.Window) error {
	return fmt.Errorf("%w: window %d (%q) is no longer open", platform.ErrWindowClosed, win.Handle, win.Title)
}

// skeleton recognises a tree that is only a shell: Chromium (and Electron) without renderer
// accessibility publish the browser's frame with no page in it.
func (w *walker) skeleton(root *node) string {
	if !w.bridge.chromium() || root.hasChildren() {
		return ""
	}
	return "Chromium/Electron published only its window frame: the page's accessibility is off. Start it with " +
		"--force-renderer-accessibility (mcec's launch adds it) or ACCESSIBILITY_ENABLED=1; until then use capture and pixel input"
}

// Truncation bits, one per limit, in the order Tree.TruncatedBy lists them.
const (
	cutDepth uint32 = 1 << iota
	cutNodes
	cutChildren
	cutTime
)

var cutNames = []string{platform.LimitMaxDepth, platform.LimitMaxNodes, platform.LimitMaxChildren, platform.LimitTime}

// cut records that limit cut off nodes that exist.
func (w *walker) cut(limit uint32) { w.truncated.Or(limit) }

func (w *walker) truncatedBy() []string {
	var by []string
	bits := w.truncated.Load()
	for i, name := range cutNames {
		if bits&(1<<i) != 0 {
			by = append(by, name)
		}
	}
	return by
}

// hasChildren reports an object that says it has children.
func (n *node) hasChildren() bool { return n.info.childCount > 0 || len(n.info.children) > 0 }

// depthCost is what n adds to its children's meaningful depth: nothing for an unnamed
// structural container (toolkits nest those deeply: GTK's fillers, Chromium's panels above the
// page), one level for everything else.
func (n *node) depthCost(b bridge) int {
	if n.info != nil && b.displayName(n.info.name) == "" && platform.LayoutRole(n.role()) {
		return 0
	}
	return 1
}

// countUnknown asks containers that manage their descendants how many children they have.
func (w *walker) countUnknown(ctx context.Context, level []*node) error {
	var jobs []job
	for _, n := range level {
		if n.info.childCount >= 0 {
			continue
		}
		jobs = append(jobs, func(ctx context.Context) error {
			var cnt int32
			f, err := w.c.property(ctx, n.ref.Bus, n.ref.Path, ifAccessible, "ChildCount", &cnt)
			switch {
			case err == nil:
				n.info.childCount = cnt
			case f.fatal():
				return err
			default:
				n.info.childCount = 0
				if f == failDead {
					n.dead.Store(true)
				}
			}
			return nil
		})
	}
	return run(ctx, w.sem, jobs)
}

// maxListChildren is the most children of a container that manages its descendants fetched
// with one GetChildren; beyond it, or when the budget takes only some, they are fetched by
// index, because listing all of them can instantiate thousands of cells.
const maxListChildren = 256

// maxWholeList is the most children of a container that manages its descendants fetched with
// one GetChildren when the walk takes all of them: the application makes every child's object
// for the walk anyway, and one call instead of one per child takes a seventh of the calls off
// a long list (BenchmarkColdList). Beyond it the reply would be large and the one call long.
const maxWholeList = 5000

// maxSocketChildren bounds the children fetched by index from an object that counts some but
// lists none (a socket holds one plug).
const maxSocketChildren = 4

// hugeContainer is a child count no list a person scrolls through has: a spreadsheet's.
const hugeContainer = 100_000

// childRefs picks, in breadth-first order, the children each node of level may add within
// budget nodes, and fetches the references the cache does not hold: with one GetChildren, or
// by index for large containers that manage their descendants.
func (w *walker) childRefs(ctx context.Context, level []*node, budget int) error {
	var jobs []job
	for _, n := range level {
		cnt := int(n.info.childCount)
		if n.info.childrenComplete {
			cnt = len(n.info.children)
		}
		if cnt <= 0 || n.dead.Load() {
			continue
		}
		take := min(cnt, budget)
		lim := w.limits.MaxChildren
		if n.info.managesDescendants() && cnt > hugeContainer && (lim <= 0 || lim > maxListChildren) {
			// A sheet of cells made on demand, one object per call: its first cells are all a walk
			// can usefully list, and none when the walk looks for cells by address (cellJobs).
			lim = maxListChildren
			if len(w.limits.Cells) > 0 {
				n.cut = true
				w.cut(cutChildren)
				continue
			}
		}
		if lim > 0 && lim < take {
			take = lim
			w.cut(cutChildren)
		} else if take < cnt {
			w.cut(cutNodes)
		}
		n.cut = take < cnt
		if take == 0 {
			continue
		}
		budget -= take
		switch {
		case n.info.childrenComplete:
			n.kidRefs = n.info.children[:take]
		case n.info.managesDescendants() && (take < cnt || cnt > maxWholeList):
			n.kidRefs = make([]objRef, take)
			for i := range take {
				jobs = append(jobs, func(ctx context.Context) error {
					r, f, err := w.c.childAt(ctx, n.ref, int32(i))
					if err != nil {
						if f.fatal() {
							return err
						}
						return nil // left null: counted as dead
					}
					n.kidRefs[i] = r
					return nil
				})
			}
		default:
			jobs = append(jobs, func(ctx context.Context) error {
				refs, _, f, err := w.c.children(ctx, n.ref)
				if err != nil {
					if f.fatal() {
						return err
					}
					if f == failDead {
						n.dead.Store(true)
					}
					return nil
				}
				if len(refs) == 0 && cnt <= maxSocketChildren {
					// A socket lists no children but gives its plug by index (embed.go).
					for i := range take {
						r, f, err := w.c.childAt(ctx, n.ref, int32(i))
						if err != nil {
							if f.fatal() {
								return err
							}
							continue
						}
						refs = append(refs, r)
					}
				}
				if len(refs) > take {
					if take == cnt {
						w.cut(cutNodes) // more children than it counted; the budget held only cnt
					}
					refs = refs[:take]
					n.cut = true
				}
				n.kidRefs = refs
				return nil
			})
		}
	}
	cells := w.cellJobs(level)
	if err := run(ctx, w.sem, append(jobs, cells.jobs...)); err != nil {
		return err
	}
	cells.merge()
	return nil
}

// cellRefs are the cells of cut tables that the walk was asked for (TreeLimits.Cells), fetched
// by position: a spreadsheet's cells lie far beyond any children limit in index order.
type cellRefs struct {
	jobs  []job
	owner []*node
	refs  []objRef
}

func (w *walker) cellJobs(level []*node) *cellRefs {
	cr := &cellRefs{}
	if len(w.limits.Cells) == 0 {
		return cr
	}
	for _, n := range level {
		if n.info.ifaces&hasTable == 0 || !n.cut || n.dead.Load() {
			continue
		}
		for _, cell := range w.limits.Cells {
			i := len(cr.refs)
			cr.owner, cr.refs = append(cr.owner, n), append(cr.refs, objRef{})
			cr.jobs = append(cr.jobs, func(ctx context.Context) error {
				call, f, err := w.c.call(ctx, n.ref.Bus, n.ref.Path, ifTable+".GetAccessibleAt", int32(cell.Row), int32(cell.Col))
				if err != nil {
					if f.fatal() {
						return err
					}
					return nil // no such cell: left null
				}
				_ = call.Store(&cr.refs[i])
				return nil
			})
		}
	}
	return cr
}

// merge adds the fetched cells to their tables' children (materialize drops duplicates).
func (cr *cellRefs) merge() {
	for i, r := range cr.refs {
		if !r.null() {
			cr.owner[i].kidRefs = append(cr.owner[i].kidRefs, r)
		}
	}
}

// materialize turns the chosen child references of parents into the next level's nodes: from
// the cache when it has them, otherwise described with calls, all in one batch. Children that
// vanished are counted and left out.
func (w *walker) materialize(ctx context.Context, parents []*node) ([]*node, error) {
	if err := w.followPlugs(ctx, parents); err != nil {
		return nil, err
	}
	var unknown []*node
	for _, n := range parents {
		n.kids = make([]*node, 0, len(n.kidRefs))
		for i, r := range n.kidRefs {
			if r.null() {
				w.dead++
				continue
			}
			if w.seen[r] {
				continue // a cycle or a shared child: keep its first place only
			}
			if w.seen == nil {
				w.seen = make(map[objRef]bool)
			}
			w.seen[r] = true
			k := &node{ref: r, parent: n, index: i, depth: n.depth + n.depthCost(w.bridge), raw: n.raw + 1, top: n.depth < 0}
			if info := w.snap[r]; info != nil {
				k.info = info
			} else {
				unknown = append(unknown, k)
			}
			n.kids = append(n.kids, k)
		}
		n.kidRefs = nil
	}
	if err := w.describe(ctx, unknown); err != nil {
		return nil, err
	}
	if sockets := w.markPlugs(parents); len(sockets) > 0 && !w.limits.Lean {
		var jobs []job
		for _, s := range sockets {
			if s.info.ifaces&hasComponent != 0 && !s.extDone {
				jobs = append(jobs, w.extentsJob(s))
			}
		}
		if err := run(ctx, w.sem, jobs); err != nil {
			return nil, err
		}
	}
	var next []*node
	for _, n := range parents {
		live := n.kids[:0]
		for _, k := range n.kids {
			if k.dead.Load() || k.info.states.has(stateDefunct) {
				w.dead++
				continue
			}
			live = append(live, k)
		}
		n.kids = live
		next = append(next, live...)
	}
	return next, nil
}

// describe fetches with calls what the cache would have told about each node; role and
// interfaces come from the client's meta cache when it knows the object.
func (w *walker) describe(ctx context.Context, nodes []*node) error {
	var (
		jobs    []job
		calls   []callJob
		redo    redoList // GetAll replies the fast decoder could not read
		checked []*node  // described from the meta cache: their role is read to confirm it
		metas   []objMeta
	)
	fast := w.useCalls()
	for _, n := range nodes {
		info := &objInfo{}
		n.info = info
		if m := w.c.meta.get(n.ref); m.has&metaKind != 0 && w.bridgeAt(n).stablePaths {
			// A GTK 3 list's rows are described by calls on every walk: one call of five per row
			// saved (BenchmarkColdList).
			info.role, info.ifaces = m.role, m.ifaces
		} else if m.has&metaKind != 0 {
			// Applications reuse object paths (LibreOffice's cells, Gecko's nodes): the cached
			// interfaces hold only while the role is still the one cached with them.
			checked, metas = append(checked, n), append(metas, m)
			info.ifaces = m.ifaces
			jobs = append(jobs, func(ctx context.Context) error {
				r, f, err := w.c.role(ctx, n.ref)
				if err != nil {
					return nodeFailure(n, deadUnlessFatal(f), err)
				}
				info.role = r
				return nil
			})
		} else {
			n.gotKind = true
			// Every object implements Accessible: a GetRole refused for any reason means it is gone.
			jobs = append(jobs, w.c.kindJobs(n, deadUnlessFatal)...)
		}
		if fast {
			calls = append(calls, w.c.statesCall(n, deadUnlessFatal))
		} else {
			jobs = append(jobs, func(ctx context.Context) error {
				words, f, err := w.c.states(ctx, n.ref)
				if err != nil {
					return nodeFailure(n, deadUnlessFatal(f), err)
				}
				info.states = words
				return nil
			})
		}
		if w.bridgeAt(n).getAll && fast {
			calls = append(calls, w.accessibleCall(n, &redo))
		} else {
			jobs = append(jobs, func(ctx context.Context) error {
				return w.accessibleProps(ctx, n)
			})
		}
	}
	if err := w.c.runBatch(ctx, w.sem, batch{jobs: jobs, calls: calls}); err != nil {
		return err
	}
	if err := run(ctx, w.sem, redo.jobs(w)); err != nil {
		return err
	}
	var again []job
	for i, n := range checked {
		if !n.dead.Load() && n.info.role != metas[i].role {
			n.gotKind = true // another object now lives at that path: read it afresh
			again = append(again, w.c.kindJobs(n, deadUnlessFatal)...)
		}
	}
	return run(ctx, w.sem, again)
}

// redoList collects nodes whose GetAll reply held a type the fast decoder does not know, to be
// read again through godbus (off the connection's reader, where nothing may block).
type redoList struct {
	mu    sync.Mutex
	nodes []*node
}

func (l *redoList) add(n *node) {
	l.mu.Lock()
	l.nodes = append(l.nodes, n)
	l.mu.Unlock()
}

// jobs reads the collected nodes' properties through godbus.
func (l *redoList) jobs(w *walker) []job {
	var jobs []job
	for _, n := range l.nodes {
		jobs = append(jobs, func(ctx context.Context) error { return w.accessibleProps(ctx, n) })
	}
	return jobs
}

// accessibleCall reads name, description, child count and accessible id in one GetAll on the
// fast path; a reply it cannot decode goes to redo.
func (w *walker) accessibleCall(n *node, redo *redoList) callJob {
	return callJob{ref: n.ref, iface: "org.freedesktop.DBus.Properties", member: "GetAll", args: []any{ifAccessible},
		handle: func(rep *dbuswire.Reply, f failure, err error) error {
			if err != nil {
				return nodeFailure(n, f, err)
			}
			if !decodeAccessibleAll(rep, n.info) {
				redo.add(n)
			}
			return nil
		}}
}

// storeAccessibleProps copies a godbus GetAll of the Accessible interface into info.
func storeAccessibleProps(info *objInfo, props map[string]dbus.Variant) {
	_ = props["Name"].Store(&info.name)
	_ = props["Description"].Store(&info.desc)
	_ = props["ChildCount"].Store(&info.childCount)
	if v, ok := props["AccessibleId"]; ok {
		_ = v.Store(&info.id)
	}
	info.idKnown = true
}

// accessibleProps reads name, description, child count and accessible id through godbus: in
// one GetAll where the bridge serves it safely, one property at a time elsewhere. (With the fast
// connection up, the GetAll is a call job: accessibleCall.)
func (w *walker) accessibleProps(ctx context.Context, n *node) error {
	info := n.info
	if b := w.bridgeAt(n); b.getAll {
		props, ok, f, err := w.c.getAllProps(ctx, b, n.ref, ifAccessible)
		switch {
		case err != nil && (f.fatal() || f == failDead):
			return nodeFailure(n, f, err)
		case ok:
			storeAccessibleProps(info, props)
			return nil
		}
		// A bridge that refused GetAll: read the properties one by one.
	}
	for _, p := range []struct {
		name string
		v    any
	}{{"Name", &info.name}, {"Description", &info.desc}, {"ChildCount", &info.childCount}} {
		if f, err := w.c.property(ctx, n.ref.Bus, n.ref.Path, ifAccessible, p.name, p.v); err != nil {
			return nodeFailure(n, f, err)
		}
	}
	return nil
}

// inPopup reports an object that lies in a popup surface of its own (a menu's items, a combo
// box's list), not on its window: on Wayland such an object's extents are relative to a surface
// whose place no client is told, so it gets no bounds rather than wrong ones.
func inPopup(n *node) bool {
	var roles []string
	for p := n; p != nil && p.depth >= 0 && p.info != nil; p = p.parent { // not the application
		if p.popover {
			return true
		}
		roles = append(roles, p.role())
	}
	return popupChain(roles)
}

// popupChain applies inPopup's rule to an object's role and its ancestors' (nearest first): an
// object below a menu (a menu bar's menus open popups, a combo box's list is one), or a menu
// that is not a menu bar's own item, or a popup menu, a tool tip or a window below the top level.
func popupChain(roles []string) bool {
	for i, r := range roles {
		switch r {
		case "popup menu", "tool tip":
			return true
		case "window":
			if i < len(roles)-1 {
				return true
			}
		case "menu":
			if i > 0 {
				return true // an item of an open menu
			}
			if len(roles) < 2 || roles[1] != "menu bar" {
				return true // a combo box's or a context menu's popup
			}
		}
	}
	return false
}

// screenRect converts extents as the bridge reported them to screen coordinates: nil when the
// bridge reports window-relative ones and the window's origin is not known (an element without
// bounds, never one at the screen's corner).
func (w *walker) screenRect(r *platform.Rect) *platform.Rect {
	if r == nil || !w.bridge.relative {
		return r
	}
	if w.origin == nil {
		return nil
	}
	return &platform.Rect{X: r.X + w.origin.X, Y: r.Y + w.origin.Y, Width: r.Width, Height: r.Height}
}

// emptyExtents reports an object below the top level whose extents are empty: GTK 4 keeps the
// VISIBLE state (which stands in for SHOWING there) on the widgets of a hidden stack page or an
// unrevealed revealer and answers 0×0 for them (measured on GTK 4.8: an About window's eight
// hidden Close buttons, an editor's unrevealed error label). Nobody sees such an object, so it is
// not reported showing, in every toolkit.
func (n *node) emptyExtents() bool {
	return !n.top && n.extents != nil && (n.extents.Width <= 0 || n.extents.Height <= 0)
}

// outside reports an object whose rectangle lies wholly outside its window's frame: scrolled out
// of view (a web page below the fold), or parked off the window by its toolkit. Objects in
// popups (menus, combo lists, tool tips) are drawn in windows of their own and are exempt.
func (w *walker) outside(n *node) bool {
	if w.frame == nil || n.top || n.extents == nil || !n.info.states.has(stateShowing) {
		return false
	}
	r := w.screenRect(n.extents)
	return r != nil && !r.Empty() && r.Intersect(*w.frame).Empty() && !inPopup(n)
}

// convert builds the platform tree from the live nodes and returns it with its size.
func (w *walker) convert(n *node) (*platform.Node, int) {
	role := n.role()
	states := n.info.states
	if n.offscreen || n.emptyExtents() || w.outside(n) {
		states[stateShowing/32] &^= 1 << (stateShowing % 32)
	}
	out := &platform.Node{
		Ref:          w.c.refOf(n.ref),
		Role:         role,
		ControlType:  ControlType(role),
		Name:         w.bridge.displayName(n.info.name),
		Description:  n.info.desc,
		AutomationID: n.id,
		States:       states.set(),
		Value:        n.value,
		Actions:      n.actions,
	}
	if n.info.idKnown {
		out.AutomationID = n.info.id
	}
	if states.has(stateShowing) && !(w.c.opts.WindowLocal && inPopup(n)) {
		// Frames are measured before this check to match windows; hidden ones keep no bounds.
		out.Bounds = w.screenRect(n.extents)
	}
	if n.cut {
		out.ChildCount = int(n.info.childCount)
		if n.info.childrenComplete {
			out.ChildCount = len(n.info.children)
		}
	}
	count := 1
	for _, k := range n.kids {
		if k.dead.Load() {
			continue
		}
		kn, kc := w.convert(k)
		out.Children = append(out.Children, kn)
		count += kc
	}
	if w.bridge.mnemonicNames && (out.Name != "" || contentNamed[out.Role]) {
		out.Name = unmnemonic(out.Name, shownLabel(out.Children))
	}
	if w.bridge.lateLabels {
		nameLateLabels(out.Children)
	}
	return out, count
}

// ErrNotRegistered is wrapped (with platform.ErrNoAccessibleTree) by Tree when no application
// of the process is on the bus, or its application has no window yet, so the backend can say
// why and wait for one that is on its way.
var ErrNotRegistered = errors.New("no application of the process is registered")

type notRegistered struct {
	pid       int
	frameless bool // registered, but without a top-level object (yet)
}

func (e *notRegistered) Error() string {
	if e.frameless {
		return fmt.Sprintf("%v: the application of pid %d has no frame; use capture and pixel input instead",
			platform.ErrNoAccessibleTree, e.pid)
	}
	return fmt.Sprintf("%v: no application of pid %d is registered on the AT-SPI bus "+
		"(toolkit without accessibility, or started with NO_AT_BRIDGE=1); use capture and pixel input instead",
		platform.ErrNoAccessibleTree, e.pid)
}

func (e *notRegistered) Is(target error) bool { return target == ErrNotRegistered }

// Unwrap makes it a platform.ErrNoAccessibleTree that errmap finds with errors.As (a match by Is
// alone carries no code).
func (e *notRegistered) Unwrap() error { return platform.ErrNoAccessibleTree }

// role reads Accessible.GetRole, through the fast connection when it is up (a long list's rows
// are described by calls, one GetRole each).
func (c *Client) role(ctx context.Context, ref objRef) (uint32, failure, error) {
	if fc := c.fastConn(); fc != nil {
		rep, f, err := c.fastCall(ctx, fc, ref.Bus, ref.Path, ifAccessible, "GetRole")
		if err != nil {
			return 0, f, err
		}
		// An undecodable reply reads as zero, as godbus's Store leaves it.
		d, derr := rep.Decoder("u")
		if derr != nil {
			return 0, 0, nil
		}
		if r := d.Uint32(); d.Err() == nil {
			return r, 0, nil
		}
		return 0, 0, nil
	}
	call, f, err := c.call(ctx, ref.Bus, ref.Path, ifAccessible+".GetRole")
	if err != nil {
		return 0, f, err
	}
	var r uint32
	_ = call.Store(&r)
	return r, 0, nil
}

// interfaces reads Accessible.GetInterfaces, through the fast connection when it is up.
func (c *Client) interfaces(ctx context.Context, ref objRef) ([]string, failure, error) {
	if fc := c.fastConn(); fc != nil {
		rep, f, err := c.fastCall(ctx, fc, ref.Bus, ref.Path, ifAccessible, "GetInterfaces")
		if err != nil {
			return nil, f, err
		}
		d, derr := rep.Decoder("as")
		if derr != nil {
			return nil, 0, nil
		}
		var names []string
		for end := d.Array(4); d.More(end); {
			names = append(names, d.String())
		}
		if d.Err() != nil {
			return nil, 0, nil
		}
		return names, 0, nil
	}
	call, f, err := c.call(ctx, ref.Bus, ref.Path, ifAccessible+".GetInterfaces")
	if err != nil {
		return nil, f, err
	}
	var names []string
	_ = call.Store(&names)
	return names, 0, nil
}

// childAt reads Accessible.GetChildAtIndex, through the fast connection when it is up.
func (c *Client) childAt(ctx context.Context, ref objRef, i int32) (objRef, failure, error) {
	return c.refCall(ctx, ref, ifAccessible, "GetChildAtIndex", i)
}

// refCall makes a call whose reply is an object reference, on the fast connection where it is
// up; a reply that is not one reads as the null reference.
func (c *Client) refCall(ctx context.Context, ref objRef, iface, member string, args ...any) (objRef, failure, error) {
	if fc := c.fastConn(); fc != nil {
		rep, f, err := c.fastCall(ctx, fc, ref.Bus, ref.Path, iface, member, args...)
		if err != nil {
			return objRef{}, f, err
		}
		d, derr := rep.Decoder("(so)")
		if derr != nil {
			return objRef{}, 0, nil
		}
		d.Struct()
		bus := d.String()
		path := d.String()
		if d.Err() != nil {
			return objRef{}, 0, nil
		}
		return objRef{Bus: bus, Path: dbus.ObjectPath(path)}, 0, nil
	}
	call, f, err := c.call(ctx, ref.Bus, ref.Path, iface+"."+member, args...)
	if err != nil {
		return objRef{}, f, err
	}
	var r objRef
	_ = call.Store(&r)
	return r, 0, nil
}
