package linux

import (
	"context"
	"sync"
	"time"

	"github.com/mcec/mcec/internal/platform"
	"github.com/mcec/mcec/internal/platform/atspi"
	"github.com/mcec/mcec/internal/procname"
	"github.com/mcec/mcec/internal/sysload"
)

// owners finds which process owns each window where the compositor does not say
// (wlr-foreign-toplevel tells no pid): by the accessibility bus's frames, whose names are their
// windows' titles. A window gets a pid only where that cannot be another's (matchOwners), and
// keeps it: a window never changes process. A window with no match is looked for again at most
// every ownerRetry, as its application may register later.
type owners struct {
	mu    sync.Mutex
	known map[uint32]int       // handle → pid, for good
	tried map[uint32]time.Time // handle → when it last found none
}

// The bounds of one search of the accessibility bus for owners (a hung application costs no
// more), and how often a window without a match is looked for again.
const (
	ownerSearch = 500 * time.Millisecond
	ownerRetry  = time.Second
)

// fill sets ProcessID and ProcessName of the windows in ws that lack them.
func (o *owners) fill(ctx context.Context, ws []platform.Window, frames func(context.Context) ([]atspi.Frame, error)) {
	o.mu.Lock()
	if o.known == nil {
		o.known, o.tried = map[uint32]int{}, map[uint32]time.Time{}
	}
	live := make(map[uint32]bool, len(ws))
	search := false
	for i := range ws {
		w := &ws[i]
		live[w.Handle] = true
		if w.ProcessID != 0 {
			continue
		}
		if pid, ok := o.known[w.Handle]; ok {
			w.ProcessID = pid
		} else if w.Title != "" && time.Since(o.tried[w.Handle]) >= ownerRetry {
			search = true
		}
	}
	for h := range o.known {
		if !live[h] {
			delete(o.known, h)
		}
	}
	for h := range o.tried {
		if !live[h] {
			delete(o.tried, h)
		}
	}
	o.mu.Unlock()
	if search {
		sctx, cancel := context.WithTimeout(ctx, sysload.Scale(ownerSearch))
		fs, _ := frames(sctx) // partial on a timeout: a missing frame only leaves windows unmatched
		cancel()
		found := matchOwners(ws, fs)
		o.mu.Lock()
		for i := range ws {
			w := &ws[i]
			if w.ProcessID != 0 {
				continue
			}
			if pid, ok := found[w.Handle]; ok {
				o.known[w.Handle], w.ProcessID = pid, pid
			} else {
				o.tried[w.Handle] = time.Now()
			}
		}
		o.mu.Unlock()
	}
	for i := range ws {
		if ws[i].ProcessID != 0 && ws[i].ProcessName == "" {
			ws[i].ProcessName = procname.Of(ws[i].ProcessID)
		}
	}
}

// matchOwners finds the owners of the windows in ws without a ProcessID among frames, title by
// title, and only where no other process can own them: when the frames of that title not yet
// taken by windows with a known pid all belong to one process, and there are exactly as many of
// them as windows of that title still without one, those windows are that process's. So a
// second window of one title, once the first one's owner is known, is the other process's.
//
// A title no frame has, one that more windows have than frames (a program without accessibility
// showing the same title), or one whose frames two processes still share, matches nothing: those
// windows have no tree, never another's. Focus could tell two same-titled windows apart, but
// the compositor and the toolkit report it at different moments.
func matchOwners(ws []platform.Window, frames []atspi.Frame) map[uint32]int {
	type byTitle struct {
		frames    map[int]int // pid → frames of the title
		open      []int       // indexes into ws of the windows without a pid
		knownPIDs []int       // the pids of the windows that have one
	}
	titles := map[string]*byTitle{}
	get := func(t string) *byTitle {
		b := titles[t]
		if b == nil {
			b = &byTitle{frames: map[int]int{}}
			titles[t] = b
		}
		return b
	}
	for _, f := range frames {
		if f.Name == "" {
			continue
		}
		get(f.Name).frames[f.PID]++
	}
	for i, w := range ws {
		if w.Title == "" {
			continue
		}
		b := get(w.Title)
		if w.ProcessID == 0 {
			b.open = append(b.open, i)
		} else {
			b.knownPIDs = append(b.knownPIDs, w.ProcessID)
		}
	}
	out := map[uint32]int{}
	for _, b := range titles {
		if len(b.open) == 0 {
			continue
		}
		left := map[int]int{}
		for pid, n := range b.frames {
			left[pid] = n
		}
		for _, pid := range b.knownPIDs {
			if left[pid] > 0 {
				left[pid]--
			}
		}
		pid, sum, pids := 0, 0, 0
		for p, n := range left {
			if n > 0 {
				pid, sum, pids = p, sum+n, pids+1
			}
		}
		if pids == 1 && sum == len(b.open) {
			for _, i := range b.open {
				out[ws[i].Handle] = pid
			}
		}
	}
	return out
}
