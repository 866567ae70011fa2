package doctor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/linux"
)

// treeWait bounds the probe of one window's tree: a process still registering is waited for
// (up to 3 s in the backend) and a hung one costs this at most. Windows are probed together.
const treeWait = 5 * time.Second

// windowTrees reads a shallow tree of every window, the way query would, and says for each
// window without a usable tree why and what fixes it: a skeleton (a browser without renderer
// accessibility), a toolkit started with accessibility off, an application still registering,
// one that does not answer. Windows of programs that have no accessibility bridge at all (a
// terminal, Tk) are listed but are no problem: capture and pixel input serve them.
func windowTrees(ctx context.Context, cfg linux.Config) Check {
	ctx, cancel := context.WithTimeout(ctx, treeWait+stepTimeout)
	defer cancel()
	cfg.AtspiCallTimeout = 2 * time.Second
	d, err := linux.Open(ctx, cfg)
	if err != nil {
		return Check{Name: "window-trees", Status: Skip, Detail: err.Error()}
	}
	defer d.Close()
	ws, err := d.Windows(ctx)
	if err != nil {
		return Check{Name: "window-trees", Status: Skip, Detail: err.Error()}
	}
	if len(ws) == 0 {
		return Check{Name: "window-trees", Status: OK, Detail: "no windows are open"}
	}
	lines := make([]treeLine, len(ws))
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Go(func() {
			wctx, cancel := context.WithTimeout(ctx, treeWait)
			defer cancel()
			t, err := d.Tree(wctx, w, platform.TreeLimits{MaxDepth: 2, MaxNodes: 50, Budget: time.Second})
			lines[i] = classify(w, t, err)
		})
	}
	wg.Wait()
	c := Check{Name: "window-trees", Status: OK}
	var fine, fixes []string
	for _, l := range lines {
		if l.problem {
			c.Status = Warn
			fixes = append(fixes, l.text)
		} else {
			fine = append(fine, l.text)
		}
	}
	c.Detail = strings.Join(append(fixes, fine...), "; ")
	if c.Status == Warn {
		c.Fix = "restart the named applications through mcec's launch (it switches each toolkit's accessibility on), " +
			"or as each line says; until then use capture and pixel input on them"
	}
	return c
}

type treeLine struct {
	text    string
	problem bool
}

func classify(w platform.Window, t platform.Tree, err error) treeLine {
	name := fmt.Sprintf("%q (%s, pid %d)", clipTitle(w.Title), w.ProcessName, w.ProcessID)
	switch {
	case err == nil && t.Skeleton != "":
		return treeLine{name + ": a skeleton tree: " + t.Skeleton, true}
	case err == nil:
		return treeLine{fmt.Sprintf("%s: tree ok", name), false}
	case errors.Is(err, platform.ErrTreeNotReady), errors.Is(err, context.DeadlineExceeded):
		return treeLine{name + ": not ready: " + err.Error(), true}
	case errors.Is(err, platform.ErrAppNotResponding):
		return treeLine{name + ": not answering: " + err.Error(), true}
	case errors.Is(err, platform.ErrNoAccessibleTree) && strings.Contains(err.Error(), "accessibility off"):
		return treeLine{name + ": " + err.Error(), true}
	case errors.Is(err, platform.ErrNoAccessibleTree):
		return treeLine{name + ": no tree (" + err.Error() + ")", false}
	}
	return treeLine{name + ": " + err.Error(), true}
}

func clipTitle(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
